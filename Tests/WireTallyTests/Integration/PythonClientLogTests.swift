import Foundation
import Testing
@testable import WireTally

/// Connections and exchanges against what the python clients logged (`NAME.client.jsonl`): bytes
/// written and read on raw sockets per connection, and status and body size per standard-library
/// request or poller request.
@Suite struct PythonClientLogTests {
    static let withClientLog = TestPaths.recordedCaptures(beside: ".client.jsonl")

    @Test(arguments: withClientLog)
    func clientLogMatchesConnectionsAndExchanges(_ name: String) throws {
        let log = try PythonClientLog.load(name)
        let (writer, _) = CollectingWriter.analyze([TestPaths.capture(name + ".pcap")])
        let lines = try JSONLines.load(TestPaths.capture(name + ".client.jsonl")).count
        #expect(log.connections.count + log.requests.count + log.auxiliary == lines, "\(name): every line read")
        #expect(log.connections.count + log.requests.count > 0)
        let compared = try Self.checkConnections(log.connections, writer, name)
            + Self.checkRequests(log.requests, writer, name)
        #expect(compared == log.connections.count + log.requests.count, "\(name): client log lines compared")
    }

    /// Raw-socket connections, matched by local and remote port (and, for a reused port, in time order):
    /// `bytes_sent` / `bytes_received` equal the connection's unique payload each way when the server
    /// closed normally (`eof`); after a reset or a client abort the wire carries at most what the
    /// client wrote and at least what it read. Request lines and status lines equal our exchanges'.
    static func checkConnections(_ lines: [PythonClientLog.Connection], _ writer: CollectingWriter, _ name: String) throws -> Int {
        var compared = 0
        var used: Set<Int> = []
        for line in lines.sorted(by: { $0.time < $1.time }) {
            let label = "\(name) \(line.name) port \(line.localPort)"
            guard let connection = writer.connections.first(where: {
                $0.port("client") == line.localPort && $0.port("server") == line.remotePort && !used.contains($0.int("id") ?? -1)
            }) else {
                Issue.record("\(label): no connection")
                continue
            }
            used.insert(connection.int("id")!)
            let sent = connection.int("up.categories.payload.payload_bytes") ?? -1
            let received = connection.int("down.categories.payload.payload_bytes") ?? -1
            if line.ended == "eof" {
                #expect(sent == line.bytesSent, "\(label): bytes_sent")
                #expect(received == line.bytesReceived, "\(label): bytes_received")
            } else {
                // The peer reset or the client closed with unread data: bytes the client wrote may never
                // have left its kernel, and bytes that arrived may not have been read.
                #expect(sent <= line.bytesSent, "\(label): bytes_sent")
                #expect(received >= line.bytesReceived, "\(label): bytes_received")
            }
            let exchanges = writer.exchanges.filter { $0.int("conn.id") == connection.int("id") }
                .sorted { ($0.int("conn.index") ?? 0) < ($1.int("conn.index") ?? 0) }
            #expect(exchanges.map { "\($0.string("request.method") ?? "") \($0.string("request.target") ?? "")" }
                == line.requests.map { $0.split(separator: " ").prefix(2).joined(separator: " ") }, "\(label): requests")
            let statusLines = exchanges.compactMap { exchange -> String? in
                guard let status = exchange.int("response.status") else { return nil }
                return "\(exchange.string("response.version") ?? "") \(status)"
            }
            #expect(statusLines == line.responses.map { $0.split(separator: " ").prefix(2).joined(separator: " ") }, "\(label): status lines")
            compared += 1
        }
        return compared
    }

    /// Per-request lines, matched in time order per server port, or per client port when every line
    /// to that server logged one (concurrent pollers): method, path and status equal ours, the logged
    /// client port (http.client keep-alive) is the exchange's, and `body_bytes` (decoded) equals our
    /// response body (the servers do not compress; chunk framing is not body).
    static func checkRequests(_ lines: [PythonClientLog.Request], _ writer: CollectingWriter, _ name: String) throws -> Int {
        var compared = 0
        for (serverPort, toServer) in Dictionary(grouping: lines, by: \.serverPort) {
            let perClientPort = toServer.allSatisfy { $0.localPort != nil }
            for (group, logged) in Dictionary(grouping: toServer, by: { perClientPort ? $0.localPort! : -1 }) {
                let ours = writer.exchanges.filter {
                    $0.port("conn.server") == serverPort && (group == -1 || $0.port("conn.client") == group)
                }.sorted { ($0.time("request.ts_first") ?? 0) < ($1.time("request.ts_first") ?? 0) }
                #expect(ours.count == logged.count, "\(name) server port \(serverPort) client port \(group): exchanges = logged requests")
                for (line, exchange) in zip(logged.sorted { $0.time < $1.time }, ours) {
                    let label = "\(name) \(line.method) :\(line.serverPort)\(line.path)"
                    #expect(exchange.string("request.method") == line.method, "\(label)")
                    #expect(exchange.string("request.target") == line.path, "\(label)")
                    #expect(exchange.int("response.status") == line.status, "\(label)")
                    #expect(exchange.int("response.bytes.body") == line.bodyBytes, "\(label): body_bytes")
                    if let localPort = line.localPort { #expect(exchange.port("conn.client") == localPort, "\(label): client port") }
                    compared += 1
                }
            }
        }
        return compared
    }
}

import Foundation
import Testing
@testable import WireTally

/// The aioquic recordings (`captures/quic-*`, `scripts/record-captures quic`) analysed without keys:
/// each connection the client logged is one QUIC connection record with its version, server name,
/// ALPN and resumption as the client logged them, its datagrams exactly as tshark counted them at
/// recording time (`NAME.frames.tsv`), conserved; and each request the client made one after another
/// opens an estimated exchange when its first datagram leaves.
@Suite struct QUICRecordingTests {
    static let recordings = TestPaths.recordedCaptures(beside: ".h3client.jsonl")

    /// The client's log: its connections and its requests.
    static func clientLog(_ name: String) throws -> (connections: [[String: Any]], requests: [[String: Any]]) {
        let lines = try JSONLines.load(TestPaths.capture(name + ".h3client.jsonl"))
        return (lines.filter { $0["record"] as? String == "connection" }, lines.filter { $0["record"] as? String == "request" })
    }

    /// Per sender port: frames, frame bytes, IP bytes and UDP payload bytes tshark counted.
    static func tsharkTotals(_ name: String) throws -> [Int: [Int]] {
        var totals: [Int: [Int]] = [:]
        for row in try TruthTable.read(TestPaths.capture(name + ".frames.tsv")).rows {
            guard let port = row.int("udp.srcport"), let frame = row.int("frame.len"), let ip = row.int("ip.len"),
                  let udp = row.int("udp.length") else { continue }
            totals[port] = zip(totals[port] ?? [0, 0, 0, 0], [1, frame, ip, udp - 8]).map(+)
        }
        return totals
    }

    @Test(arguments: recordings)
    func connectionsAreTheClientsConnections(_ name: String) throws {
        let (writer, result) = CollectingWriter.analyze([TestPaths.capture(name + ".pcap")])
        Conservation.check(writer, result)
        let log = try Self.clientLog(name)
        #expect(writer.quicConnections.count == log.connections.count, "\(name)")
        let tshark = try Self.tsharkTotals(name)
        for logged in log.connections {
            let port = try #require(logged["local_port"] as? Int)
            let record = try #require(writer.quicConnections.first { $0.string("client")?.hasSuffix(":\(port)") == true }, "\(name): \(port)")
            let version = try #require(UInt32(String((logged["version"] as? String ?? "").dropFirst(2)), radix: 16))
            #expect(record.string("quic.version") == QUICVersion(rawValue: version).description, "\(name)")
            #expect(record.string("tls.sni") == "www.wt.test" && record.string("tls.alpn") == logged["alpn"] as? String, "\(name)")
            #expect(record["tls"]?["resumed"] == .bool(logged["session_resumed"] as? Bool ?? false), "\(name)")
            let serverPort = try #require(logged["server_port"] as? Int)
            #expect(record.string("server")?.hasSuffix(":\(serverPort)") == true)
            // an Initial of a version wiretally does not know, before a Version Negotiation, stays a UDP flow
            let flows = writer.flows.filter { $0.string("client")?.hasSuffix(":\(port)") == true }
            for (index, level) in ["packets", "frame_bytes", "ip_bytes", "payload_bytes"].enumerated() {
                let inFlows = flows.reduce(0) { $0 + ($1.int("up.\(level)") ?? 0) }
                #expect((record.int("up.\(level)") ?? 0) + inFlows == tshark[port]?[index], "\(name) \(port) up \(level)")
            }
            let early = logged["early_data_accepted"] as? Bool ?? false
            #expect(((record.int("quic.packets.0rtt.up.packets") ?? 0) > 0) == early, "\(name) \(port) 0-RTT")
        }
        // the server's datagrams: every connection's down direction, per server port
        for port in Set(log.connections.compactMap { $0["server_port"] as? Int }) {
            let down = writer.quicConnections.filter { $0.string("server")?.hasSuffix(":\(port)") == true }
            let flows = writer.flows.filter { $0.string("server")?.hasSuffix(":\(port)") == true }
            let packets = down.reduce(0) { $0 + ($1.int("down.packets") ?? 0) } + flows.reduce(0) { $0 + ($1.int("down.packets") ?? 0) }
            let ipBytes = down.reduce(0) { $0 + ($1.int("down.ip_bytes") ?? 0) } + flows.reduce(0) { $0 + ($1.int("down.ip_bytes") ?? 0) }
            #expect(packets == tshark[port]?[0] && ipBytes == tshark[port]?[2], "\(name) server \(port)")
        }
        #expect(writer.exchanges.allSatisfy { $0.flagNames == ["encrypted", "estimated"] && $0.string("conn.transport") == "quic" })
    }

    /// Each request the client began with none other in flight opens an estimated exchange while it
    /// is in flight (between the client's logged start and end). Requests sent while another was in
    /// flight may share one (HTTP/3 multiplexes them), and so may a request after one the server never
    /// answered (quic-cancel's reset upload): the estimate needs the server's data in between.
    @Test(arguments: recordings)
    func eachRequestAloneInFlightOpensAnEstimatedExchange(_ name: String) throws {
        let (writer, _) = CollectingWriter.analyze([TestPaths.capture(name + ".pcap")])
        let starts = writer.exchanges.compactMap { $0["request"]?["ts_first"]?.plainText }.compactMap(Double.init)
        let requests = try Self.clientLog(name).requests.compactMap { request in
            (request["start"] as? Double).flatMap { start in
                (request["end"] as? Double).map { (start, $0, request["path"] ?? "", request["status"] as? Int != nil) }
            }
        }.sorted { $0.0 < $1.0 }
        var busyUntil = -Double.infinity
        var previousAnswered = true
        var alone = 0
        for (start, end, path, answered) in requests {
            defer {
                busyUntil = max(busyUntil, end)
                previousAnswered = answered
            }
            guard start >= busyUntil, previousAnswered else { continue }
            alone += 1
            #expect(starts.contains { $0 >= start && $0 < end }, "\(name): \(path) at \(start)")
        }
        #expect(alone > 0 && writer.exchanges.count >= alone, "\(name)")
    }
}

import Foundation
import Testing
@testable import WireTally

/// HTTP exchanges to the python test servers against the servers' own logs (`NAME.pyhttp10.jsonl`,
/// `NAME.pyhttp11.jsonl`): the exact bytes read and written on the server socket per request.
@Suite struct PythonServerLogTests {
    static let withServerLog = Set(TestPaths.files(in: TestPaths.captures, endingWith: [".pyhttp10.jsonl", ".pyhttp11.jsonl"])
        .map { String($0.prefix { $0 != "." }) }).sorted()

    /// Every logged request is one of our exchanges (client port, position on the connection, method,
    /// path, status) with `request.bytes.total == request_bytes` and `response.bytes.total ==
    /// response_bytes`; requests the server aborted on purpose (`/reset`: no response; `/reset-mid`:
    /// RST after part of the body) have no response or an incomplete one of at most what the server
    /// wrote. We have no exchange to these servers that the logs do not list.
    @Test(arguments: withServerLog)
    func everyRequestMatchesItsExchange(_ name: String) throws {
        let log = try PythonServerRequest.load(name)
        let (writer, _) = CollectingWriter.analyze([TestPaths.capture(name + ".pcap")])
        let serverPorts = Set(log.map(\.serverPort))
        let ours = writer.exchanges.filter { serverPorts.contains($0.port("conn.server") ?? -1) }
        var compared = 0
        for line in log {
            let label = "\(name) \(line.method) \(line.path) from port \(line.clientPort) #\(line.connectionRequest)"
            guard let exchange = ours.first(where: {
                $0.port("conn.client") == line.clientPort && $0.port("conn.server") == line.serverPort
                    && $0.int("conn.index") == line.connectionRequest - 1
            }) else {
                Issue.record("\(label): no exchange")
                continue
            }
            #expect(exchange.string("request.method") == line.method, "\(label)")
            #expect(exchange.string("request.target") == line.path, "\(label)")
            #expect(exchange.int("request.bytes.total") == line.requestBytes, "\(label): request bytes")
            if line.aborted && line.responseBytes == 0 {
                #expect(exchange["response"] == .null && exchange.flagNames.contains("no_response"), "\(label)")
            } else if line.aborted {
                #expect(exchange.flagNames.contains("response_incomplete"), "\(label)")
                #expect((exchange.int("response.bytes.total") ?? .max) <= line.responseBytes, "\(label): response bytes")
                #expect(exchange.int("response.status") == line.status, "\(label)")
            } else {
                #expect(exchange.int("response.bytes.total") == line.responseBytes, "\(label): response bytes")
                #expect(exchange.int("response.status") == line.status, "\(label)")
            }
            compared += 1
        }
        #expect(!log.isEmpty)
        #expect(compared == log.count, "\(name): server log lines compared")
        #expect(ours.count == log.count, "\(name): our exchanges to ports \(serverPorts.sorted())")
    }
}

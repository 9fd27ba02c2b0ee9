import Foundation
import Testing
@testable import WireTally

/// Reassembly edge cases end to end: small captures the test writes (FrameBuilder frames in pcap
/// files) go through the reader, decoder, reassembler, HTTP parser and ledger, and the records are
/// checked against hand-computed expectations and conservation.
@Suite struct SyntheticCaptureTests {
    let client = "10.0.0.1:40000"
    let server = "10.0.0.2:80"
    static let request = Array("GET /a HTTP/1.1\r\nHost: t\r\n\r\n".utf8)  // 28 bytes
    static let response = Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello".utf8)  // 43 bytes

    func analyze(_ frames: [[UInt8]], link: FrameBuilder.Link = .ethernet) throws -> (CollectingWriter, AnalysisRun.Result) {
        let path = TestScratch.folder.appendingPathComponent("wt-synthetic-\(UUID().uuidString).pcap").path
        try Data(FrameBuilder.pcap(frames: frames, link: link)).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (writer, result) = CollectingWriter.analyze([path])
        Conservation.check(writer, result)
        return (writer, result)
    }

    func tcp(
        _ from: String, _ to: String, _ seq: UInt32, _ ack: UInt32, _ flags: TCPFlags, _ payload: [UInt8] = [],
        link: FrameBuilder.Link = .ethernet
    ) -> [UInt8] {
        FrameBuilder.tcp(from: from, to: to, seq: seq, ack: ack, flags: flags, payload: payload, link: link)
    }

    /// A request in two segments delivered out of order, a retransmitted response, sequence numbers
    /// wrapping past 2^32 on the server side.
    @Test func reorderedRetransmittedAndWrapping() throws {
        let c: UInt32 = 100, s: UInt32 = 0xFFFF_FFF0
        let frames = [
            tcp(client, server, c, 0, [.syn]),
            tcp(server, client, s, c + 1, [.syn, .ack]),
            tcp(client, server, c + 1, s &+ 1, [.ack]),
            tcp(client, server, c + 11, s &+ 1, [.ack], Array(Self.request[10...])),  // second half first
            tcp(client, server, c + 1, s &+ 1, [.ack], Array(Self.request[..<10])),
            tcp(server, client, s &+ 1, c + 29, [.ack], Self.response),
            tcp(server, client, s &+ 1, c + 29, [.ack], Self.response),  // retransmission
            tcp(client, server, c + 29, s &+ 44, [.ack]),
            tcp(client, server, c + 29, s &+ 44, [.fin, .ack]),
            tcp(server, client, s &+ 44, c + 30, [.fin, .ack]),
            tcp(client, server, c + 30, s &+ 45, [.ack]),
        ]
        let (writer, _) = try analyze(frames)
        try #require(writer.connections.count == 1 && writer.exchanges.count == 1)
        let exchange = writer.exchanges[0], connection = writer.connections[0]
        #expect(exchange.int("request.bytes.total") == 28)
        #expect(exchange.int("response.bytes.total") == 43)
        #expect(exchange.int("response.bytes.body") == 5)
        #expect(exchange.int("wire.down.retransmitted_packets") == 1)
        #expect(exchange.int("wire.down.retransmitted_bytes") == 43)
        #expect(exchange.int("wire.up.packets") == 7)  // SYN, ACK, 2 data, ACK, FIN, last ACK
        #expect(exchange.int("wire.down.packets") == 4)
        #expect(connection.int("unattributed.up.packets") == 0)
        #expect(connection.int("down.missing_bytes") == 0)
        #expect(!connection.flagNames.contains("gap"))
    }

    /// A response segment the capture missed (acknowledged by the client): the gap is reported, the
    /// stream goes on, the message is flagged and conservation holds.
    @Test func gapInTheResponseBody() throws {
        let body = [UInt8](repeating: 0x61, count: 30)
        let head = Array("HTTP/1.1 200 OK\r\nContent-Length: 30\r\n\r\n".utf8)  // 39 bytes
        let c: UInt32 = 1, s: UInt32 = 1000
        let frames = [
            tcp(client, server, c, 0, [.syn]),
            tcp(server, client, s, c + 1, [.syn, .ack]),
            tcp(client, server, c + 1, s + 1, [.ack]),
            tcp(client, server, c + 1, s + 1, [.ack, .psh], Self.request),
            tcp(server, client, s + 1, c + 29, [.ack], head + Array(body[..<10])),
            // body[10..<20] never captured
            tcp(server, client, s + 60, c + 29, [.ack], Array(body[20...])),  // stream offset 59
            tcp(client, server, c + 29, s + 70, [.ack]),
        ]
        let (writer, _) = try analyze(frames)
        try #require(writer.exchanges.count == 1)
        let exchange = writer.exchanges[0]
        #expect(exchange.int("response.bytes.total") == 69)
        #expect(exchange.flagNames.contains("response_gap"))
        #expect(writer.connections[0].int("down.missing_bytes") == 10)
        #expect(writer.connections[0].flagNames.contains("gap"))
    }

    /// Picked up mid-stream: no handshake, the response arrives before any request.
    @Test func midstreamResponseWithoutRequest() throws {
        let frames = [
            tcp(server, client, 5000, 300, [.ack, .psh], Self.response),
            tcp(client, server, 300, 5043, [.ack]),
            tcp(client, server, 300, 5043, [.ack, .psh], Self.request),
        ]
        let (writer, _) = try analyze(frames)
        #expect(writer.connections[0].flagNames.contains("midstream"))
        #expect(writer.connections[0].string("client") == client)
        try #require(writer.exchanges.count == 2)
        #expect(writer.exchanges[0].flagNames.contains("no_request"))
        #expect(writer.exchanges[1].flagNames.contains("no_response"))
    }

    /// Port reuse: a new SYN after FIN/FIN on the same ports starts a second connection.
    @Test func portReuseMakesTwoConnections() throws {
        var frames: [[UInt8]] = []
        for isn: UInt32 in [100, 90_000] {
            frames += [
                tcp(client, server, isn, 0, [.syn], link: .sll2),
                tcp(server, client, isn + 7, isn + 1, [.syn, .ack], link: .sll2),
                tcp(client, server, isn + 1, isn + 8, [.ack], link: .sll2),
                tcp(client, server, isn + 1, isn + 8, [.fin, .ack], link: .sll2),
                tcp(server, client, isn + 8, isn + 2, [.fin, .ack], link: .sll2),
                tcp(client, server, isn + 2, isn + 9, [.ack], link: .sll2),
            ]
        }
        let (writer, _) = try analyze(frames, link: .sll2)
        #expect(writer.connections.count == 2)
        #expect(writer.connections[0].flagNames.contains("port_reused"))
        #expect(writer.connections.allSatisfy { $0.int("up.packets") == 4 && $0.int("down.packets") == 2 })
    }
}

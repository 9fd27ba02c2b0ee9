import Foundation
import Testing
@testable import WireTally

/// Which exchange a frame without a stream still open costs is decided frame by frame: frames of the
/// same kind in a row (curl 7.88's RST_STREAM(STREAM_CLOSED) after each finished stream) must not stay
/// with an exchange whose record was written in between (they went to `unattributed`,
/// `late_after_seal`: 23 and 28 packets on two connections of the h2 bench capture).
@Suite struct HTTP2ConnectionFrameOwnerTests {
    typealias W = HTTP2FrameWriter

    @Test func consecutiveConnectionFramesFollowTheOpenStreams() throws {
        let path = TestScratch.folder.appendingPathComponent("h2-rst-after-close.pcap").path
        let connection = try StreamedConnectionWriter(path: path)
        try connection.handshake()
        var client = W(), server = W()
        let request = { (path: String) in [(":method", "GET"), (":scheme", "http"), (":authority", "a.test"), (":path", path)] }
        try connection.send(.up, W.preface + W.settings())
        try connection.send(.down, W.settings() + W.settings(ack: true))
        try connection.send(.up, client.headers(stream: 1, request("/one"), endStream: true))
        try connection.send(.up, client.headers(stream: 3, request("/two"), endStream: true))
        try connection.send(.up, client.headers(stream: 5, request("/three"), endStream: true))
        // stream 1 ends while stream 3's response arrives; the client resets stream 1 after the fact (a
        // connection-level frame: stream 3's, read last and still open); then stream 3 ends and is
        // acknowledged (its record can be written) and the client resets it too, right after the first
        try connection.send(.down, server.headers(stream: 1, [(":status", "200")]) + W.data(stream: 1, Array(repeating: 1, count: 500), endStream: true)
                            + server.headers(stream: 3, [(":status", "200")]) + W.data(stream: 3, Array(repeating: 3, count: 500)))
        try connection.send(.up, W.rst(stream: 1, code: 5))
        try connection.send(.down, W.data(stream: 3, Array(repeating: 3, count: 500), endStream: true))
        try connection.acknowledge(from: .up)
        try connection.send(.up, W.rst(stream: 3, code: 5))
        try connection.send(.down, server.headers(stream: 5, [(":status", "200")]) + W.data(stream: 5, Array(repeating: 5, count: 500), endStream: true))
        try connection.acknowledge(from: .up)
        try connection.send(.up, W.rst(stream: 5, code: 5))
        try connection.acknowledge(from: .down)
        try connection.close()

        let (writer, result) = CollectingWriter.analyze([path])
        Conservation.check(writer, result)
        let record = try #require(writer.connections.first)
        #expect(!record.flagNames.contains("late_after_seal"), "\(record.flagNames)")
        #expect(record.int("unattributed.up.payload_bytes") == 0 && record.int("unattributed.up.packets") == 0)
        #expect(writer.exchanges.map { $0.int("response.status") } == [200, 200, 200])
        // Each RST_STREAM is its stream's `control` while that exchange is not written: every one here,
        // as each comes 100-200 µs after its stream's end, within the linger (5 ms) that keeps a
        // finished exchange open (else it would be a connection-level frame of the exchanges still open).
        let control = writer.exchanges.map { $0.int("request.bytes.control") ?? 0 }
        #expect(control == [13, 13, 13])
        #expect(writer.exchanges.map { $0["http2"]?["reset_after_end"] } == [.bool(true), .bool(true), .bool(true)])
        #expect(writer.exchanges.allSatisfy { !$0.flagNames.contains("reset") }, "a reset after the end cancelled nothing")
        let shares = writer.exchanges.reduce(0) { $0 + ($1.int("http2.connection_share.up") ?? 0) }
        #expect(shares + control.reduce(0, +) == 24 + 9 + 3 * 13, "preface, SETTINGS, three RST_STREAMs")
    }
}

import Foundation
import Testing
@testable import WireTally

/// A stateless reset (RFC 9000 §10.3) ends a QUIC connection: a datagram that looks like a short-header
/// packet and ends with a reset token its sender issued. With keys, the tokens are read (the server's
/// transport parameters in EncryptedExtensions, NEW_CONNECTION_ID frames): quic-sequential with a
/// server datagram appended whose last 16 bytes are one of the server's tokens — as tshark decrypts them
/// from the same capture — is a stateless reset: flagged, teardown, conserved.
@Suite(.requires(.tshark)) struct QUICStatelessResetTests {
    /// The stateless reset tokens the server (UDP 443) issued, as tshark reads them with the key log.
    static func serverTokens() throws -> [[UInt8]] {
        let result = try Tshark.output(["-r", TestPaths.capture("quic-sequential.pcap"), "-o",
                                     "tls.keylog_file:" + TestPaths.capture("quic-sequential.keys"),
                                     "-Y", "quic.nci.stateless_reset_token && udp.srcport == 443", "-T", "fields",
                                     "-e", "quic.nci.stateless_reset_token"])
        return result.split(whereSeparator: { $0 == "\n" || $0 == "," }).map { QUICTestSupport.bytes(String($0)) }
    }

    /// quic-sequential plus a copy of its last server datagram 10 ms after the end, its UDP payload
    /// a short header, random bytes and `token` (same length; UDP checksum 0: none).
    static func captureWithReset(token: [UInt8]) throws -> String {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: TestPaths.capture("quic-sequential.pcap"))))
        var position = 24, lastServer: Range<Int>?, lastTime = (seconds: 0, micros: 0)
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        while position + 16 <= bytes.count {
            let length = u32(position + 8)
            let frame = position + 16 ..< position + 16 + length
            let udp = frame.lowerBound + 14 + Int(bytes[frame.lowerBound + 14] & 0x0f) * 4
            if bytes[udp] == 0x01, bytes[udp + 1] == 0xbb, length - (udp + 8 - frame.lowerBound) >= 40 { lastServer = position ..< frame.upperBound }
            lastTime = (u32(position), u32(position + 4))
            position = frame.upperBound
        }
        var record = Array(bytes[try #require(lastServer)])
        let micros = lastTime.micros + 10_000
        for (offset, value) in [(0, lastTime.seconds + micros / 1_000_000), (4, micros % 1_000_000)] {
            for index in 0 ..< 4 { record[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
        }
        let udp = 16 + 14 + Int(record[16 + 14] & 0x0f) * 4
        (record[udp + 6], record[udp + 7]) = (0, 0)
        var generator = SeededGenerator(state: 9)
        for index in udp + 8 ..< record.count - 16 { record[index] = UInt8.random(in: 0 ... 255, using: &generator) }
        record[udp + 8] = 0x40 | (record[udp + 8] & 0x3f)
        record.replaceSubrange(record.count - 16 ..< record.count, with: token)
        bytes += record
        let path = TestScratch.folder.appendingPathComponent("quic-sequential-stateless-reset.pcap").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aDatagramEndingWithAServerTokenIsAStatelessReset() throws {
        let tokens = try Self.serverTokens()
        try #require(!tokens.isEmpty && tokens.allSatisfy { $0.count == 16 }, "tshark's tokens")
        let path = try Self.captureWithReset(token: try #require(tokens.last))
        var options = CaptureAnalyzer.Options()
        options.tlsKeys = try TLSKeyStore.reading(files: [TestPaths.capture("quic-sequential.keys")])
        let (writer, result) = CollectingWriter.analyze([path], options: options)
        Conservation.check(writer, result)
        let connection = try #require(writer.quicConnections.first)
        #expect(connection["quic"]?["flags"] == .array([.string("stateless_reset_by_server")]))
        let (plain, _) = CollectingWriter.analyze([TestPaths.capture("quic-sequential.pcap")], options: options)
        let before = try #require(plain.quicConnections.first)
        #expect(connection.int("down.categories.teardown.packets") == (before.int("down.categories.teardown.packets") ?? 0) + 1)
        #expect(connection.int("unattributed.down.packets") == 0)
        #expect(writer.exchanges.count == 8 && writer.exchanges.allSatisfy { $0.flagNames.contains("decrypted") })
        // without keys the tokens are unknown: the datagram is one more protected packet
        let (keyless, _) = CollectingWriter.analyze([path])
        #expect(keyless.quicConnections.first?["quic"]?["flags"] == .array([]))
    }
}

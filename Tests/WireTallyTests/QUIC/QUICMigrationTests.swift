import Foundation
import Testing
@testable import WireTally

/// Migration to a connection ID issued in a NEW_CONNECTION_ID frame: quic-sequential's client switches
/// to a new server connection ID mid-connection (RETIRE_CONNECTION_ID); here it also moves to a new
/// port from that datagram on (rewritten copy). With keys the new ID is known from the frame: one
/// connection, flagged `migrated`, two paths, every request decrypted, conserved. Without keys the new
/// ID is encrypted: the datagrams after the move are a UDP flow (as documented).
@Suite struct QUICMigrationTests {
    /// quic-sequential with the client on UDP port 40000 from its first short-header datagram to a new
    /// destination connection ID on (and the server's answers to it); UDP checksums zeroed.
    static func migratedCapture() throws -> String {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: TestPaths.capture("quic-sequential.pcap"))))
        var position = 24, firstDCID: [UInt8]?, moved = false, movedPackets = 0
        while position + 16 <= bytes.count {
            let length = Int(bytes[position + 8]) | Int(bytes[position + 9]) << 8 | Int(bytes[position + 10]) << 16 | Int(bytes[position + 11]) << 24
            let frame = position + 16
            let udp = frame + 14 + Int(bytes[frame + 14] & 0x0f) * 4
            let source = Int(bytes[udp]) << 8 | Int(bytes[udp + 1]), payload = udp + 8
            if source == 57984, bytes[payload] & 0x80 == 0 {
                let dcid = Array(bytes[payload + 1 ..< payload + 9])
                if firstDCID == nil { firstDCID = dcid } else if dcid != firstDCID { moved = true }
            }
            if moved {
                let port = source == 57984 ? udp : udp + 2
                (bytes[port], bytes[port + 1]) = (0x9c, 0x40)  // 40000
                (bytes[udp + 6], bytes[udp + 7]) = (0, 0)
                movedPackets += 1
            }
            position = frame + length
        }
        try #require(moved && movedPackets > 10, "the client switched connection IDs")
        let path = TestScratch.folder.appendingPathComponent("quic-sequential-migrated.pcap").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func withKeysTheIssuedIDKeepsOneConnection() throws {
        let path = try Self.migratedCapture()
        var options = CaptureAnalyzer.Options()
        options.tlsKeys = try TLSKeyStore.reading(files: [TestPaths.capture("quic-sequential.keys")])
        let (writer, result) = CollectingWriter.analyze([path], options: options)
        Conservation.check(writer, result)
        #expect(writer.quicConnections.count == 1 && writer.flows.isEmpty)
        let connection = try #require(writer.quicConnections.first)
        #expect(connection.flagNames.contains("migrated"))
        #expect(connection["quic"]?["paths"].map { if case let .array(paths) = $0 { paths.count } else { 0 } } == 2)
        #expect(writer.exchanges.count == 8 && writer.exchanges.allSatisfy { $0.flagNames.contains("decrypted") && $0["response"] != .null })

        let (keyless, _) = CollectingWriter.analyze([path])
        #expect(keyless.quicConnections.count == 1 && !keyless.flows.isEmpty, "without keys the new ID is unknown")
    }
}

import Crypto
import Testing
@testable import WireTally

/// RFC 9001 Appendix A.5 and RFC 9369 Appendix A.5: keys from a TLS_CHACHA20_POLY1305_SHA256 traffic
/// secret (key, IV, header-protection key and the key-update secret), the ChaCha20 header-protection
/// mask, and the protected short-header packet opening to its header, packet number and PING.
@Suite struct QUICChaChaVectorTests {
    typealias V = QUICTestSupport
    typealias A5 = QUICChaChaVector
    static let suite = TLSCipherSuite(code: 0x1303)

    static func keys(_ version: QUICVersion) throws -> QUICPacketKeys {
        try #require(QUICPacketKeys(secret: V.bytes(A5.secret), suite: suite, version: version))
    }

    @Test func keysAndKeyUpdateSecret() throws {
        let keys = try Self.keys(.v1)
        #expect(keys.aead == .chaCha20Poly1305 && !keys.sha384)
        #expect(V.hex(QUICRFCVectorTests.keyBytes(keys.key)) == A5.key)
        #expect(V.hex(keys.iv) == A5.iv)
        #expect(V.hex(QUICRFCVectorTests.keyBytes(keys.headerProtectionKey)) == A5.hp)
        let next = keys.nextPhase
        #expect(V.hex(next.secret) == A5.ku)
        // the header-protection key survives the update; the packet keys do not
        #expect(QUICRFCVectorTests.keyBytes(next.headerProtectionKey) == QUICRFCVectorTests.keyBytes(keys.headerProtectionKey))
        #expect(QUICRFCVectorTests.keyBytes(next.key) != QUICRFCVectorTests.keyBytes(keys.key))
        #expect(V.hex(try Self.keys(.v2).iv) == A5.v2IV)
    }

    @Test func chaCha20Mask() throws {
        let keys = try Self.keys(.v1)
        let mask = QUICPacketProtection.headerProtectionMask(sample: V.bytes(A5.sample), key: keys.headerProtectionKey, aead: .chaCha20Poly1305)
        #expect(mask.map(V.hex) == A5.mask)
    }

    @Test(arguments: [(QUICVersion.v1, A5.packet, A5.mask), (.v2, A5.v2Packet, A5.v2Mask)])
    func shortHeaderPacketOpens(_ version: QUICVersion, _ packetHex: String, _ maskHex: String) throws {
        let keys = try Self.keys(version)
        let packet = V.bytes(packetHex)
        let (unprotected, opened) = try #require(V.header(packet) { header -> (QUICUnprotectedHeader?, QUICOpenedPacket?)? in
            guard let header, header.kind == .short else { return nil }
            return (QUICPacketProtection.unprotect(header, keys: keys),
                    QUICPacketProtection.open(header, keys: keys, largestPacketNumber: A5.packetNumber - 1))
        })
        let header = try #require(unprotected)
        #expect(header.firstByte == 0x42 && header.packetNumberLength == 3 && header.truncatedPacketNumber == 0xbff4)
        let pn = header.truncatedPacketNumber
        #expect(V.hex([header.firstByte, UInt8(pn >> 16), UInt8((pn >> 8) & 0xff), UInt8(pn & 0xff)]) == A5.unprotectedHeader)
        let result = try #require(opened)
        #expect(result.packetNumber == A5.packetNumber && result.plaintext == [0x01] && result.headerLength == 4 && !result.keyPhase)
        #expect(QUICFrameParser.parse(result.plaintext) == QUICFrameWalk(frames: [QUICFrame(type: 1, range: 0 ..< 1, kind: .ping)]))
        // the protected first byte is the unprotected one masked in its low 5 bits
        #expect(packet[0] == 0x42 ^ (V.bytes(maskHex)[0] & 0x1f))
        // the wrong AEAD (same key bytes as AES-256-GCM) opens nothing
        let aes = QUICPacketKeys(secret: V.bytes(A5.secret), aead: .aes256GCM, sha384: false, version: version)
        #expect(V.header(packet) { QUICPacketProtection.open($0!, keys: aes, largestPacketNumber: A5.packetNumber - 1) } == nil)
    }
}

import Crypto
import Testing
@testable import WireTally

/// RFC 9001 Appendix A (QUIC v1) and RFC 9369 Appendix A (QUIC v2): the Initial keys derived from
/// the DCID 0x8394c8f03e515708, the protected client and server Initial packets decrypting to the
/// RFC's plaintext, the headers and the Retry packets.
@Suite struct QUICRFCVectorTests {
    typealias V = QUICTestSupport
    static let dcid = V.bytes("8394c8f03e515708")

    /// A version and its RFC sample values.
    struct Vector: Sendable, CustomStringConvertible {
        let version: QUICVersion
        let values: QUICRFCVectorSet
        var description: String { "v\(version)" }
    }

    static let vectors = [Vector(version: .v1, values: QUICRFCVectors.v1), Vector(version: .v2, values: QUICRFCVectors.v2)]

    static func keyBytes(_ key: SymmetricKey) -> [UInt8] { key.withUnsafeBytes { Array($0) } }

    @Test func initialSecretsV1AndV2() {
        for (version, values) in [(QUICVersion.v1, QUICRFCVectors.v1), (.v2, QUICRFCVectors.v2)] {
            let secret = QUICInitialKeys.initialSecret(salt: version.initialSalt!, dcid: Self.dcid)
            #expect(V.hex(secret) == values.initialSecret)
            #expect(V.hex(TLSRecordCipher.expandLabel(secret, "client in", length: 32, sha384: false)) == values.clientSecret)
            #expect(V.hex(TLSRecordCipher.expandLabel(secret, "server in", length: 32, sha384: false)) == values.serverSecret)
        }
    }

    @Test(arguments: vectors)
    func packetKeys(_ vector: Vector) throws {
        let keys = try #require(QUICInitialKeys(version: vector.version, clientDestinationConnectionID: Self.dcid))
        #expect(V.hex(Self.keyBytes(keys.client.key)) == vector.values.clientKey)
        #expect(V.hex(keys.client.iv) == vector.values.clientIV)
        #expect(V.hex(Self.keyBytes(keys.client.headerProtectionKey)) == vector.values.clientHP)
        #expect(V.hex(Self.keyBytes(keys.server.key)) == vector.values.serverKey)
        #expect(V.hex(keys.server.iv) == vector.values.serverIV)
        #expect(V.hex(Self.keyBytes(keys.server.headerProtectionKey)) == vector.values.serverHP)
    }

    @Test(arguments: vectors)
    func clientInitialDecryptsToTheRFCPlaintext(_ vector: Vector) throws {
        let keys = try #require(QUICInitialKeys(version: vector.version, clientDestinationConnectionID: Self.dcid))
        let packet = V.bytes(vector.values.clientProtected)
        #expect(packet.count == 1200)
        let header = try #require(V.header(packet) { $0.map { ($0.kind, $0.version, $0.destinationConnectionIDBytes,
                                                              $0.sourceConnectionID.count, $0.token.count, $0.end) } })
        #expect(header.0 == .long(.initial) && header.1 == vector.version)
        #expect(header.2 == Self.dcid && header.3 == 0 && header.4 == 0 && header.5 == 1200)
        let opened = try #require(V.open(packet, keys: keys.client))
        #expect(opened.packetNumber == 2)
        // the CRYPTO frame, then PADDING to 1162 bytes
        let frame = V.bytes(vector.values.clientCryptoFrame)
        #expect(opened.plaintext.count == 1162)
        #expect(Array(opened.plaintext.prefix(frame.count)) == frame)
        #expect(opened.plaintext.dropFirst(frame.count).allSatisfy { $0 == 0 })
        // the server cannot open it with its own keys
        #expect(V.open(packet, keys: keys.server) == nil)
    }

    @Test(arguments: vectors)
    func serverInitialDecryptsToTheRFCPlaintext(_ vector: Vector) throws {
        let keys = try #require(QUICInitialKeys(version: vector.version, clientDestinationConnectionID: Self.dcid))
        let packet = V.bytes(vector.values.serverProtected)
        let opened = try #require(V.open(packet, keys: keys.server))
        #expect(opened.packetNumber == 1)
        #expect(opened.plaintext == V.bytes(vector.values.serverPayload))
        let walk = QUICFrameParser.parse(opened.plaintext)
        #expect(walk.error == nil)
        #expect(walk.frames.map(\.kind) == [.ack(largest: 0, ranges: [0 ... 0], ecn: false), .crypto(offset: 0, data: 9 ..< 99)])
        #expect(opened.headerLength == 20 && opened.headerLength + opened.plaintext.count + 16 == packet.count)
        let scid = try #require(V.header(packet) { $0?.sourceConnectionIDBytes })
        #expect(V.hex(scid) == "f067a5502a4262b5")
    }

    /// The RFC's unprotected headers: the packet-number offset and Length the view reads from them.
    @Test(arguments: vectors)
    func unprotectedHeadersParse(_ vector: Vector) throws {
        let client = V.bytes(vector.values.clientUnprotectedHeader) + [UInt8](repeating: 0, count: 1182 - 4)
        let view = try #require(V.header(client) { $0.map { ($0.packetNumberOffset, $0.end, $0.truncated) } })
        #expect(view.0 == 18 && view.1 == 1200 && !view.2)
        let server = V.bytes(vector.values.serverUnprotectedHeader)
        let serverView = try #require(V.header(server) { $0.map { ($0.packetNumberOffset, $0.end, $0.truncated) } })
        #expect(serverView.0 == 18 && serverView.1 == server.count && serverView.2)  // Length 0x75 past the header alone
    }

    @Test(arguments: vectors)
    func retryPacket(_ vector: Vector) throws {
        let packet = V.bytes(vector.values.retry)
        let view = try #require(V.header(packet) { $0.map { ($0.kind, $0.token, $0.sourceConnectionIDBytes) } })
        #expect(view.0 == .long(.retry))
        #expect(Array(packet[view.1]) == Array("token".utf8))
        #expect(V.hex(view.2) == "f067a5502a4262b5")
    }

    /// The observer fed the two RFC packets reads the ClientHello (SNI example.com, ALPN "alpn",
    /// transport parameters) and ServerHello (TLS_AES_128_GCM_SHA256, TLS 1.3).
    @Test(arguments: vectors)
    func observerReadsBothHellos(_ vector: Vector) throws {
        let observer = QUICConnectionObserver()
        observer.observe(V.bytes(vector.values.clientProtected), fromClient: true)
        observer.observe(V.bytes(vector.values.serverProtected), fromClient: false)
        let info = observer.info
        #expect(info.version == vector.version)
        #expect(info.originalDestinationConnectionID == Self.dcid)
        #expect(info.serverName == "example.com")
        #expect(info.alpn == ["alpn"])
        #expect(info.cipherSuite == 0x1301)
        #expect(info.tlsVersion == 0x0304)
        #expect(info.transportParameters == [0x04, 0x05, 0x07, 0x08, 0x01, 0x09, 0x0f, 0x06])
        #expect(info.up[.initial] == QUICPacketCounters(packets: 1, bytes: 1200))
        #expect(info.down[.initial] == QUICPacketCounters(packets: 1, bytes: 135))
        #expect(info.flags.isEmpty, "\(info.flags)")
        #expect(info.decryptedInitialsUp == 1 && info.decryptedInitialsDown == 1)
    }
}

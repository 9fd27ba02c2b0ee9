/// Packets and bytes (of QUIC packets, coalesced ones counted separately) in one packet-number space
/// and direction.
package struct QUICPacketCounters: Hashable, Sendable {
    package var packets = 0
    package var bytes = 0

    mutating func add(_ length: Int) {
        packets += 1
        bytes += length
    }
}

/// The packet-number spaces as header types show them (0-RTT and 1-RTT share the application space,
/// kept apart here because the header tells them apart).
package enum QUICPacketSpace: String, CaseIterable, Sendable {
    case initial, handshake, zeroRTT = "0rtt", oneRTT = "1rtt"
}

/// A CONNECTION_CLOSE frame: its error code and who sent it.
package struct QUICConnectionClose: Equatable, Sendable {
    package var errorCode: UInt64
    package var byClient: Bool
    /// An application close (0x1d: the error code is the application's, e.g. HTTP/3's), read only with keys.
    package var isApplication = false
}

/// What an observer without keys learns of one QUIC connection: the version, connection IDs, the
/// ClientHello and ServerHello read from the decrypted Initial packets, and packet counts.
package struct QUICConnectionInfo: Equatable, Sendable {
    /// The version of the first v1/v2 long header (after compatible negotiation: the last one seen).
    package var version: QUICVersion?
    /// The Destination Connection ID of the client's first Initial (the key-derivation input).
    package var originalDestinationConnectionID: [UInt8]?
    /// Source Connection IDs of long headers, client's and server's, in the order first seen (≤ 8).
    package var sourceConnectionIDs: [[UInt8]] = []
    /// The ClientHello, from the client's Initial CRYPTO stream.
    package var clientHello: TLSClientHello?
    /// The ServerHello, from the server's Initial CRYPTO stream.
    package var serverHello: TLSServerHello?
    /// Transport parameter ids of the ClientHello, in order.
    package var transportParameters: [UInt64] = []
    package var retrySeen = false
    package var versionNegotiationSeen = false
    /// Versions a Version Negotiation packet offered.
    package var offeredVersions: [QUICVersion] = []
    /// Per direction (client → server, server → client) and space.
    package var up: [QUICPacketSpace: QUICPacketCounters] = [:]
    package var down: [QUICPacketSpace: QUICPacketCounters] = [:]
    /// Packets opened (tag verified) per direction and space: Initial packets always, the others with
    /// a key log.
    package var decryptedUp: [QUICPacketSpace: Int] = [:]
    package var decryptedDown: [QUICPacketSpace: Int] = [:]
    package var decryptedInitialsUp: Int { decryptedUp[.initial] ?? 0 }
    package var decryptedInitialsDown: Int { decryptedDown[.initial] ?? 0 }
    /// With a key log (`QUICConnectionObserver(keys:)`): how decryption went; nil without.
    package var decryption: QUICDecryptionCounts?
    /// The server's EncryptedExtensions was decrypted (then `negotiatedALPN` is the server's choice).
    package var sawEncryptedExtensions = false
    /// The application protocol the server's EncryptedExtensions selected (nil: none, or not decrypted).
    package var negotiatedALPN: String?
    /// The client's max_idle_timeout transport parameter (0: none); the server's is encrypted.
    package var clientMaxIdleTimeoutMilliseconds: UInt64?
    /// The first CONNECTION_CLOSE read (in an Initial packet without keys; in any packet with keys).
    package var close: QUICConnectionClose?
    /// `undecryptable_initial`, `crypto_buffer_overflow`, `unexpected_frame` (a frame type not allowed
    /// in its packet's space, or unknown), `malformed_frame`, `truncated_packet`, `unknown_version`,
    /// `decrypt_failed` (with keys: a packet did not open).
    package var flags: Set<String> = []

    package var serverName: String? { clientHello?.serverName }
    package var alpn: [String] { clientHello?.alpn ?? [] }
    package var cipherSuite: UInt16? { serverHello?.cipherSuite }
    package var tlsVersion: UInt16? { serverHello?.version }

}

extension QUICConnectionInfo {
    /// The TLS session the hellos show, as for TLS over TCP (TLS 1.3: the ALPN choice known when the
    /// client offered one protocol), and with keys the server's choice from its decrypted
    /// EncryptedExtensions; nil before any hello.
    package var tlsSession: TLSSessionInfo? {
        guard clientHello != nil || serverHello != nil else { return nil }
        var session = TLSSessionInfo()
        session.clientHello = clientHello
        if let serverHello { session.noteServerHello(serverHello) }
        if sawEncryptedExtensions {
            session.alpn = negotiatedALPN
            session.alpnSource = .encryptedExtensions
        }
        return session
    }
}

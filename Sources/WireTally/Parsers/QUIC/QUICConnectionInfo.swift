/// Packets and bytes (of QUIC packets, coalesced ones counted separately) in one packet-number space
/// and direction.
public struct QUICPacketCounters: Hashable, Sendable {
    public var packets = 0
    public var bytes = 0

    mutating func add(_ length: Int) {
        packets += 1
        bytes += length
    }
}

/// The packet-number spaces as header types show them (0-RTT and 1-RTT share the application space,
/// kept apart here because the header tells them apart).
public enum QUICPacketSpace: String, CaseIterable, Sendable {
    case initial, handshake, zeroRTT = "0rtt", oneRTT = "1rtt"
}

/// A CONNECTION_CLOSE frame: its error code and who sent it.
public struct QUICConnectionClose: Equatable, Sendable {
    public var errorCode: UInt64
    public var byClient: Bool
    /// An application close (0x1d: the error code is the application's, e.g. HTTP/3's), read only with keys.
    public var isApplication = false
}

/// What an observer without keys learns of one QUIC connection: the version, connection IDs, the
/// ClientHello and ServerHello read from the decrypted Initial packets, and packet counts.
public struct QUICConnectionInfo: Equatable, Sendable {
    /// The version of the first v1/v2 long header (after compatible negotiation: the last one seen).
    public var version: QUICVersion?
    /// The Destination Connection ID of the client's first Initial (the key-derivation input).
    public var originalDestinationConnectionID: [UInt8]?
    /// Source Connection IDs of long headers, client's and server's, in the order first seen (≤ 8).
    public var sourceConnectionIDs: [[UInt8]] = []
    /// The ClientHello, from the client's Initial CRYPTO stream.
    public var clientHello: TLSClientHello?
    /// The ServerHello, from the server's Initial CRYPTO stream.
    public var serverHello: TLSServerHello?
    /// Transport parameter ids of the ClientHello, in order.
    public var transportParameters: [UInt64] = []
    public var retrySeen = false
    public var versionNegotiationSeen = false
    /// Versions a Version Negotiation packet offered.
    public var offeredVersions: [QUICVersion] = []
    /// Per direction (client → server, server → client) and space.
    public var up: [QUICPacketSpace: QUICPacketCounters] = [:]
    public var down: [QUICPacketSpace: QUICPacketCounters] = [:]
    /// Packets opened (tag verified) per direction and space: Initial packets always, the others with
    /// a key log.
    public var decryptedUp: [QUICPacketSpace: Int] = [:]
    public var decryptedDown: [QUICPacketSpace: Int] = [:]
    public var decryptedInitialsUp: Int { decryptedUp[.initial] ?? 0 }
    public var decryptedInitialsDown: Int { decryptedDown[.initial] ?? 0 }
    /// With a key log (`QUICConnectionObserver(keys:)`): how decryption went; nil without.
    public var decryption: QUICDecryptionCounts?
    /// The server's EncryptedExtensions was decrypted (then `negotiatedALPN` is the server's choice).
    public var sawEncryptedExtensions = false
    /// The application protocol the server's EncryptedExtensions selected (nil: none, or not decrypted).
    public var negotiatedALPN: String?
    /// The client's max_idle_timeout transport parameter (0: none); the server's is encrypted.
    public var clientMaxIdleTimeoutMilliseconds: UInt64?
    /// The first CONNECTION_CLOSE read (in an Initial packet without keys; in any packet with keys).
    public var close: QUICConnectionClose?
    /// `undecryptable_initial`, `crypto_buffer_overflow`, `unexpected_frame` (a frame type not allowed
    /// in its packet's space, or unknown), `malformed_frame`, `truncated_packet`, `unknown_version`,
    /// `decrypt_failed` (with keys: a packet did not open).
    public var flags: Set<String> = []

    public var serverName: String? { clientHello?.serverName }
    public var alpn: [String] { clientHello?.alpn ?? [] }
    public var cipherSuite: UInt16? { serverHello?.cipherSuite }
    public var tlsVersion: UInt16? { serverHello?.version }

}

extension QUICConnectionInfo {
    /// The TLS session the hellos show, as for TLS over TCP (TLS 1.3: the ALPN choice known when the
    /// client offered one protocol), and with keys the server's choice from its decrypted
    /// EncryptedExtensions; nil before any hello.
    public var tlsSession: TLSSessionInfo? {
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

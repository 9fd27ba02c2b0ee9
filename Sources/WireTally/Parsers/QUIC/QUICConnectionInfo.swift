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
    /// Initial packets opened (tag verified) per direction.
    public var decryptedInitialsUp = 0
    public var decryptedInitialsDown = 0
    /// The client's max_idle_timeout transport parameter (0: none); the server's is encrypted.
    public var clientMaxIdleTimeoutMilliseconds: UInt64?
    /// The first CONNECTION_CLOSE read (in an Initial packet, without keys).
    public var close: QUICConnectionClose?
    /// `undecryptable_initial`, `crypto_buffer_overflow`, `unexpected_frame`, `malformed_frame`,
    /// `truncated_packet`, `unknown_version`.
    public var flags: Set<String> = []

    public var serverName: String? { clientHello?.serverName }
    public var alpn: [String] { clientHello?.alpn ?? [] }
    public var cipherSuite: UInt16? { serverHello?.cipherSuite }
    public var tlsVersion: UInt16? { serverHello?.version }

}

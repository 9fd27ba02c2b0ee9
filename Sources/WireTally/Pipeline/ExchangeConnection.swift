/// The connection an HTTP exchange was carried on (a TCP connection — HTTP/1.x, HTTP/2, TLS — or a
/// QUIC connection), as it was when the exchange's record was made: a value, taken on the analysing
/// thread at emission, of everything outputs read about the exchange's connection (its endpoints, its
/// owner, the exchange's wire share, its TLS session). The analyzer keeps changing the live connection
/// after the exchange (later exchanges, the ledger, the owner at its end); this copy does not change,
/// so a record can be encoded on another thread or kept after the run.
package struct ExchangeConnection: Sendable {
    /// The transport the exchange came over.
    package enum Transport: Sendable {
        case tcp, quic
    }

    /// How the exchange was protected, for its `encrypted`/`estimated`/`decrypted` flags.
    package enum Protection: Sendable {
        /// Cleartext HTTP.
        case cleartext
        /// TLS or QUIC without the keys: the exchange is an estimate from record or datagram bursts.
        case estimated
        /// TLS or QUIC, decrypted and parsed.
        case decrypted
        /// TLS whose exchanges are neither estimated nor decrypted (a session not parsed).
        case encrypted
    }

    package var transport: Transport
    package var id: Int
    package var client: IPAddress
    package var clientPort: UInt16
    package var server: IPAddress
    package var serverPort: UInt16
    package var firstTimestamp: Timestamp
    /// The process or app the connection belongs to (as known when the exchange was reported).
    package var owner: TrafficOwner? {
        get { sharedOwner?.owner }
        set { sharedOwner = newValue.map(SharedTrafficOwner.init) }
    }
    /// `owner` by reference: inline it was about 150 bytes of every exchange's record, which most
    /// captures (no owner in them) never fill; with it the record fits the allocator's per-thread cache.
    private var sharedOwner: SharedTrafficOwner?
    /// The packets the exchange owns: its share of the connection's ledger.
    package var wire: ExchangeWire
    /// The TLS session the exchange was protected by (TLS over TCP, or QUIC's handshake), nil for
    /// cleartext; by reference, so that the record carries a pointer, not the session.
    package var tlsSession: TLSSessionSnapshot?
    package var protection: Protection
}

extension ExchangeConnection {
    // The initializers are in an extension so that the struct keeps its memberwise initializer, which
    // `snapshot` makes a TCP exchange's connection with in one piece.

    package init(
        transport: Transport, id: Int, client: IPAddress, clientPort: UInt16, server: IPAddress, serverPort: UInt16,
        firstTimestamp: Timestamp, owner: TrafficOwner?, wire: ExchangeWire, tlsSession: TLSSessionSnapshot?,
        protection: Protection
    ) {
        self.init(
            transport: transport, id: id, client: client, clientPort: clientPort, server: server, serverPort: serverPort,
            firstTimestamp: firstTimestamp, sharedOwner: owner.map(SharedTrafficOwner.init), wire: wire,
            tlsSession: tlsSession, protection: protection)
    }

    /// Exchange `index` of a TCP connection, as the connection is now; `tls`: its application layer's
    /// TLS analysis, nil for cleartext; `decrypted`: the exchange's TLS records were opened; `owner`:
    /// the connection's owner, boxed once for the exchanges reported together (`SharedTrafficOwner`).
    /// Made by the memberwise initializer in one expression and inlined into its one caller
    /// (`ExchangeRecord`'s TCP initializer), which stores it into the record: an initializer setting
    /// `self` field by field built the snapshot aside, twice, and copied it into the record with a
    /// retain and a release of its references ("session 21" and "session 23" in BENCHMARKS.md).
    @inline(__always)
    static func snapshot(
        of connection: TCPConnection, tls: TLSConnectionAnalysis?, exchange index: Int, decrypted: Bool, owner: SharedTrafficOwner?
    ) -> ExchangeConnection {
        ExchangeConnection(
            transport: .tcp, id: connection.id, client: connection.client, clientPort: connection.clientPort,
            server: connection.server, serverPort: connection.serverPort, firstTimestamp: connection.firstTimestamp,
            sharedOwner: owner, wire: connection.ledger.exchanges.wire(index), tlsSession: tls?.sharedSession,
            protection: tls.map { $0.isEstimated ? .estimated : decrypted ? .decrypted : .encrypted } ?? .cleartext)
    }

    /// Exchange `index` of a QUIC connection, as the connection is now.
    init(_ connection: QUICConnection, exchange index: Int) {
        self.init(
            transport: .quic, id: connection.id, client: connection.client, clientPort: connection.clientPort,
            server: connection.server, serverPort: connection.serverPort, firstTimestamp: connection.firstTimestamp,
            owner: connection.owner, wire: connection.ledger.exchange(index), tlsSession: connection.tlsSession.map(TLSSessionSnapshot.init),
            protection: connection.isDecrypted ? .decrypted : .estimated)
    }

    /// The host a request without a `Host` header or absolute target is reported under: the server
    /// name the exchange was given (`HTTPExchange.serverName`: TLS SNI or DNS), else the server's
    /// address. Static, so that a closure that needs it captures these two values, not a connection.
    package static func fallbackHost(serverName: String?, server: IPAddress) -> String {
        serverName ?? server.description
    }

    /// `ip:port` of the client and the server (the first path's, for QUIC).
    package var clientEndpoint: String { client.endpoint(port: clientPort) }
    package var serverEndpoint: String { server.endpoint(port: serverPort) }

    /// The `transport` of records: `tcp` or `quic`.
    package var transportName: String {
        switch transport {
        case .tcp: return "tcp"
        case .quic: return "quic"
        }
    }
}

/// A `TrafficOwner` held by reference (`ExchangeConnection.owner`): made once for the exchanges of a
/// connection reported together, which share it.
final class SharedTrafficOwner: Sendable {
    let owner: TrafficOwner

    init(_ owner: TrafficOwner) { self.owner = owner }
}

/// The connection an HTTP exchange was carried on: a TCP connection (HTTP/1.x, HTTP/2, TLS) or a QUIC
/// connection. Outputs read an exchange's endpoints, its wire share and its TLS session through this,
/// whatever the transport.
public enum ExchangeConnection {
    case tcp(TCPConnection)
    case quic(QUICConnection)

    public var id: Int {
        switch self {
        case let .tcp(connection): return connection.id
        case let .quic(connection): return connection.id
        }
    }

    public var client: IPAddress {
        switch self {
        case let .tcp(connection): return connection.client
        case let .quic(connection): return connection.client
        }
    }

    public var clientPort: UInt16 {
        switch self {
        case let .tcp(connection): return connection.clientPort
        case let .quic(connection): return connection.clientPort
        }
    }

    public var server: IPAddress {
        switch self {
        case let .tcp(connection): return connection.server
        case let .quic(connection): return connection.server
        }
    }

    public var serverPort: UInt16 {
        switch self {
        case let .tcp(connection): return connection.serverPort
        case let .quic(connection): return connection.serverPort
        }
    }

    /// `ip:port` of the client and the server (the first path's, for QUIC).
    public var clientEndpoint: String { client.endpoint(port: clientPort) }
    public var serverEndpoint: String { server.endpoint(port: serverPort) }

    public var firstTimestamp: Timestamp {
        switch self {
        case let .tcp(connection): return connection.firstTimestamp
        case let .quic(connection): return connection.firstTimestamp
        }
    }

    /// The process or app the connection belongs to.
    public var owner: TrafficOwner? {
        switch self {
        case let .tcp(connection): return connection.owner
        case let .quic(connection): return connection.owner
        }
    }

    /// The packets exchange `index` owns.
    public func wire(ofExchange index: Int) -> ExchangeWire {
        switch self {
        case let .tcp(connection): return connection.ledger.exchange(index)
        case let .quic(connection): return connection.ledger.exchange(index)
        }
    }

    /// The TCP connection, for what only TCP has (its handshake, HTTP/2, the TLS record analysis).
    public var tcp: TCPConnection? {
        if case let .tcp(connection) = self { return connection }
        return nil
    }

    /// The `transport` of records: `tcp` or `quic`.
    public var transportName: String {
        switch self {
        case .tcp: return "tcp"
        case .quic: return "quic"
        }
    }

    /// The TLS session the exchange was protected by (TLS over TCP, or QUIC's handshake), nil for
    /// cleartext.
    public var tlsSession: TLSSessionInfo? {
        switch self {
        case let .tcp(connection): return RecordEncoding.tlsSession(of: connection)?.session
        case let .quic(connection): return connection.tlsSession
        }
    }
}

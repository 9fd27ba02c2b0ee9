/// The connection an HTTP exchange was carried on: a TCP connection (HTTP/1.x, HTTP/2, TLS) or a QUIC
/// connection. Outputs read an exchange's endpoints, its wire share and its TLS session through this,
/// whatever the transport.
package enum ExchangeConnection {
    case tcp(TCPConnection)
    case quic(QUICConnection)

    package var id: Int {
        switch self {
        case let .tcp(connection): return connection.id
        case let .quic(connection): return connection.id
        }
    }

    package var client: IPAddress {
        switch self {
        case let .tcp(connection): return connection.client
        case let .quic(connection): return connection.client
        }
    }

    package var clientPort: UInt16 {
        switch self {
        case let .tcp(connection): return connection.clientPort
        case let .quic(connection): return connection.clientPort
        }
    }

    package var server: IPAddress {
        switch self {
        case let .tcp(connection): return connection.server
        case let .quic(connection): return connection.server
        }
    }

    package var serverPort: UInt16 {
        switch self {
        case let .tcp(connection): return connection.serverPort
        case let .quic(connection): return connection.serverPort
        }
    }

    /// `ip:port` of the client and the server (the first path's, for QUIC).
    package var clientEndpoint: String { client.endpoint(port: clientPort) }
    package var serverEndpoint: String { server.endpoint(port: serverPort) }

    package var firstTimestamp: Timestamp {
        switch self {
        case let .tcp(connection): return connection.firstTimestamp
        case let .quic(connection): return connection.firstTimestamp
        }
    }

    /// The process or app the connection belongs to.
    package var owner: TrafficOwner? {
        switch self {
        case let .tcp(connection): return connection.owner
        case let .quic(connection): return connection.owner
        }
    }

    /// The packets exchange `index` owns.
    package func wire(ofExchange index: Int) -> ExchangeWire {
        switch self {
        case let .tcp(connection): return connection.ledger.exchange(index)
        case let .quic(connection): return connection.ledger.exchange(index)
        }
    }

    /// The TCP connection, for what only TCP has (its handshake, HTTP/2, the TLS record analysis).
    package var tcp: TCPConnection? {
        if case let .tcp(connection) = self { return connection }
        return nil
    }

    /// The `transport` of records: `tcp` or `quic`.
    package var transportName: String {
        switch self {
        case .tcp: return "tcp"
        case .quic: return "quic"
        }
    }

    /// The TLS session the exchange was protected by (TLS over TCP, or QUIC's handshake), nil for
    /// cleartext.
    package var tlsSession: TLSSessionInfo? {
        switch self {
        case let .tcp(connection): return RecordEncoding.tlsSession(of: connection)?.session
        case let .quic(connection): return connection.tlsSession
        }
    }
}

/// One HTTP request and its response (HTTP/1.x, HTTP/2 or HTTP/3, cleartext or decrypted; or an
/// encrypted exchange estimated from TLS records), with the exact packets it cost on the wire.
///
/// The same facts as a JSON Lines `http` record. ``wire`` is what the exchange owns: the packets
/// that carried its bytes, their ACKs and retransmissions, and on a connection's first exchange its
/// setup (and on the last its teardown); what no exchange owns is its connection's
/// ``Connection/unattributed``.
public struct Exchange: Hashable, Sendable {
    /// The record id: 1, 2, … in the order exchanges completed.
    public var id: Int
    /// The ``Connection/id`` of the connection that carried it.
    public var connectionID: Int
    /// Position on its connection, from 0.
    public var index: Int
    /// `tcp` or `quic`.
    public var transport: Transport
    /// `ip:port` of the client.
    public var client: String
    /// `ip:port` of the server.
    public var server: String
    /// The request method; nil when the capture has no request (it started after it) or the exchange
    /// is encrypted.
    public var method: String?
    /// The absolute URL (scheme, host from the Host header or `:authority`, target); for an encrypted
    /// exchange only scheme and server name (SNI, DNS answer or address).
    public var url: String
    /// The final status code; nil without response.
    public var status: Int?
    /// The request as parsed; nil when the capture has none.
    public var request: Message?
    /// The final response as parsed; nil when the capture has none.
    public var response: Message?
    /// The packets the exchange owns, per direction and level.
    public var wire: Wire
    /// IP bytes of the DNS lookup that preceded the connection (queries and answer), on the first
    /// exchange that used the answer; 0 otherwise. Not part of ``wire``.
    public var dnsIPBytes: Int
    /// Timing phases.
    public var phases: Phases
    /// Flag names as in the JSON Lines record: `no_request`, `no_response`, `upgraded`, `reset`,
    /// `request_incomplete`, `response_gap`, `encrypted`, `estimated`, `decrypted`…
    public var flags: [String]
    /// What ``Comparison`` needs of the exchange; nil without
    /// ``AnalysisOptions/keepsExchangesForComparison``.
    let source: ExchangeSource?

    /// The transport of a connection.
    public enum Transport: String, Hashable, Sendable {
        case tcp, quic
    }

    /// One request or response.
    public struct Message: Hashable, Sendable {
        /// `HTTP/1.1`, `HTTP/2`, `HTTP/3`…
        public var version: String
        /// Bytes of the message on its stream, by part (start line, headers, body as sent, chunk or
        /// frame framing, HTTP/2 control frames). For an encrypted exchange, the body is the
        /// plaintext size of its TLS records.
        public var bytes: HTTPByteCounts
        /// Interim (1xx) responses before the final one, and their bytes.
        public var interimBytes: Int
        /// All bytes of the message on the stream: ``bytes`` total plus ``interimBytes``.
        public var totalBytes: Int { bytes.total + interimBytes }
        /// `Content-Encoding`, when the message has one.
        public var contentEncoding: String?
        /// The decoded body size when ``AnalysisOptions/decodeBodies`` is on and the body has a content coding.
        public var decodedBodyBytes: Int?
        /// Capture time of the first packet that carried the message, seconds since 1970.
        public var firstTime: Double
        /// Capture time of the last packet that carried the message, seconds since 1970.
        public var lastTime: Double
        /// The header fields as sent (HTTP/2 and HTTP/3: decoded; pseudo-headers included).
        public var headers: [HTTPHeader]

        init(_ message: HTTPMessage) {
            version = message.version
            bytes = message.bytes
            interimBytes = message.interimBytes
            contentEncoding = message.contentEncoding
            decodedBodyBytes = message.decodedBodyBytes
            firstTime = message.firstOrigin.timestamp.seconds
            lastTime = message.lastOrigin.timestamp.seconds
            headers = message.headers
        }
    }

    /// The exchange of an `AnalysisRecord.exchange`, read when it is reported.
    init(_ exchange: HTTPExchange, id: Int, connection: ExchangeConnection, keepsSource: Bool) {
        self.id = id
        connectionID = connection.id
        index = exchange.index
        transport = connection.transportName == "quic" ? .quic : .tcp
        client = connection.clientEndpoint
        server = connection.serverEndpoint
        method = exchange.request?.method
        if let message = exchange.request ?? exchange.response {
            url = HAREntry.url(of: message, connection: connection, serverName: exchange.serverName)
        } else {
            url = "http://" + connection.serverEndpoint
        }
        status = exchange.response?.status
        request = exchange.request.map(Message.init)
        response = exchange.response.map(Message.init)
        wire = Wire(connection.wire)
        dnsIPBytes = exchange.dnsIPBytes
        phases = Phases(exchange.timing)
        flags = RecordEncoding.flags(of: exchange, on: connection)
        source = keepsSource ? ExchangeSource(exchange: exchange, id: id, connection: connection) : nil
    }
}

/// The pipeline's exchange and connection behind an ``Exchange``, for ``Comparison``.
///
/// `@unchecked Sendable`: it is read only by ``Comparison/run(_:appLog:level:)`` on an ``Analysis``,
/// which exists once the run that filled the connection has ended; nothing changes them after that.
/// Two sources are always equal: the exchange's values already say which exchange it is.
final class ExchangeSource: Hashable, @unchecked Sendable {
    let exchange: HTTPExchange
    let id: Int
    let connection: ExchangeConnection

    init(exchange: HTTPExchange, id: Int, connection: ExchangeConnection) {
        self.exchange = exchange
        self.id = id
        self.connection = connection
    }

    static func == (lhs: ExchangeSource, rhs: ExchangeSource) -> Bool { true }
    func hash(into hasher: inout Hasher) {}
}

/// What the matcher needs of one wire exchange (built from an `http` record's exchange and connection).
package struct AppLogWireExchange: Sendable {
    /// The `http` record's id.
    package var id: Int
    package var connectionID: Int
    /// The exchange's position on its connection (`conn.index`).
    package var index: Int
    package var clientPort: Int
    package var serverAddress: String
    package var serverPort: Int
    /// Nil for estimated (encrypted) exchanges and exchanges without request.
    package var method: String?
    /// The URL requested; for estimated exchanges only scheme + host are known (`hostOnly`).
    package var url: AppLogURL?
    /// True when only the host is known (TLS without keys: `estimated` exchanges).
    package var hostOnly: Bool
    package var status: Int?
    /// Start on the capture clock, seconds since the epoch (`timing.start`, else the first packet of
    /// the request or response).
    package var start: Double
    package var timing: ExchangeTiming
    /// The exchange's bytes on the wire per direction (the ledger's tallies), for the estimate comparison.
    package var up: TrafficCounters
    package var down: TrafficCounters

    package init(
        id: Int, connectionID: Int = 0, index: Int = 0, clientPort: Int = 0, serverAddress: String = "",
        serverPort: Int = 0, method: String?, url: AppLogURL?, hostOnly: Bool = false, status: Int? = nil,
        start: Double, timing: ExchangeTiming = ExchangeTiming(), up: TrafficCounters = TrafficCounters(),
        down: TrafficCounters = TrafficCounters()
    ) {
        self.id = id
        self.connectionID = connectionID
        self.index = index
        self.clientPort = clientPort
        self.serverAddress = serverAddress
        self.serverPort = serverPort
        self.method = method
        self.url = url
        self.hostOnly = hostOnly
        self.status = status
        self.start = start
        self.timing = timing
        self.up = up
        self.down = down
    }

    /// From an exchange as the analyzer reported it (`AnalysisRecord.exchange`).
    /// - scheme: `https` when the connection is TLS or the server port is 443, else `http`;
    /// - host: `RecordEncoding.host(of:fallback:)` (Host header, absolute target, else the server's
    ///   name or address); an encrypted estimated exchange has `serverName` (SNI / DNS answer) or the
    ///   server address, and is `hostOnly`;
    /// - path and query: the request target (origin form, or the path of an absolute-form target).
    package init(_ exchange: HTTPExchange, id: Int, connection: ExchangeConnection) {
        let isTLS = connection.tlsSession != nil || connection.serverPort == 443
        let scheme = isTLS ? "https" : "http"
        let address = connection.server.isIPv6 ? "[\(connection.server)]" : connection.server.description
        let fallback = exchange.serverName ?? address
        var url: AppLogURL?
        var hostOnly = false
        if let request = exchange.request, request.method != nil, let target = request.target {
            if target.contains("://"), let absolute = AppLogURL(target) {
                url = absolute
            } else {
                let authority = RecordEncoding.host(of: request, fallback: fallback)
                let (host, port) = AppLogURL.splitAuthority(authority) ?? (authority, nil)
                let path = target.hasPrefix("/") ? target : (target == "*" ? "/" : "/" + target)
                url = AppLogURL(scheme: scheme, host: host, port: port ?? Int(connection.serverPort), pathAndQuery: path)
            }
        } else {
            url = AppLogURL(scheme: scheme, host: fallback, port: Int(connection.serverPort), pathAndQuery: "/")
            hostOnly = true
        }
        let timing = exchange.timing
        let first = timing.start ?? exchange.request?.firstOrigin.timestamp ?? exchange.response?.firstOrigin.timestamp
            ?? connection.firstTimestamp
        let wire = connection.wire
        self.init(
            id: id, connectionID: connection.id, index: exchange.index, clientPort: Int(connection.clientPort),
            serverAddress: connection.server.description, serverPort: Int(connection.serverPort),
            method: exchange.request?.method, url: url, hostOnly: hostOnly, status: exchange.response?.status,
            start: Double(first.nanoseconds) / 1e9, timing: timing, up: wire.tally(.up).total, down: wire.tally(.down).total)
    }
}

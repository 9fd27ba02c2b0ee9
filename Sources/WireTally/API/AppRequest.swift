/// One request as an app's network monitor counted it: the fields of a line of the wiretally app log
/// (JSON Lines), built in code.
///
/// Byte counts are what the monitor counted for the request's start line + headers and body, and for
/// the response's (URLSession's `countOfRequestHeaderBytesSent`… or the monitor's own counts); nil
/// where it has none. The request's `up` is header + body bytes; its `down` is
/// ``responseTransferBytes`` when given, else response header + body bytes.
public struct AppRequest: Hashable, Sendable {
    /// The absolute URL requested (the fragment is ignored).
    public var url: String
    /// The request method; nil: not compared.
    public var method: String?
    /// The final status code; nil: no response.
    public var status: Int?
    /// When the request started on the app's clock, seconds since 1970: pairs it with the exchange
    /// that started nearest (after correcting the clock offset). Nil: paired in order.
    public var start: Double?
    /// Bytes the app counted for the request line and headers; nil: not counted.
    public var requestHeaderBytes: Int?
    /// Bytes the app counted for the request body; nil: not counted.
    public var requestBodyBytes: Int?
    /// Bytes the app counted for the status line and headers of the response; nil: not counted.
    public var responseHeaderBytes: Int?
    /// Bytes the app counted for the response body (as its client handed it over); nil: not counted.
    public var responseBodyBytes: Int?
    /// The response's total bytes on the network, when the monitor knows them (preferred for `down`).
    public var responseTransferBytes: Int?
    /// Timing phases the app measured, in milliseconds.
    public var phases: AppLogPhases
    /// The client's port of the connection used, when the monitor knows it (with the server's
    /// address and port it pairs by connection instead of by time).
    public var localPort: Int?
    /// The server's address of the connection used, when the monitor knows it.
    public var remoteAddress: String?
    /// The server's port of the connection used, when the monitor knows it.
    public var remotePort: Int?

    /// A request as the app counted it; every field but `url` is optional (what a monitor does not know is nil).
    public init(
        url: String, method: String? = nil, status: Int? = nil, start: Double? = nil,
        requestHeaderBytes: Int? = nil, requestBodyBytes: Int? = nil, responseHeaderBytes: Int? = nil,
        responseBodyBytes: Int? = nil, responseTransferBytes: Int? = nil, phases: AppLogPhases = AppLogPhases(),
        localPort: Int? = nil, remoteAddress: String? = nil, remotePort: Int? = nil
    ) {
        self.url = url
        self.method = method
        self.status = status
        self.start = start
        self.requestHeaderBytes = requestHeaderBytes
        self.requestBodyBytes = requestBodyBytes
        self.responseHeaderBytes = responseHeaderBytes
        self.responseBodyBytes = responseBodyBytes
        self.responseTransferBytes = responseTransferBytes
        self.phases = phases
        self.localPort = localPort
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
    }

    /// The entry a wiretally app log line with these fields reads as, at position `sequence`.
    func entry(sequence: Int) -> AppLogEntry {
        func count(_ value: Int?) -> Int? { value.flatMap { $0 >= 0 ? $0 : nil } }
        return AppLogEntry(
            sequence: sequence, line: sequence + 1, source: "", method: method.flatMap { $0.isEmpty ? nil : $0.uppercased() },
            url: url, status: status.flatMap { $0 > 0 ? $0 : nil }, start: start,
            requestHeaderBytes: count(requestHeaderBytes), requestBodyBytes: count(requestBodyBytes),
            responseHeaderBytes: count(responseHeaderBytes), responseBodyBytes: count(responseBodyBytes),
            responseTransferBytes: count(responseTransferBytes), phases: phases, localPort: localPort,
            remoteAddress: remoteAddress, remotePort: remotePort)
    }
}

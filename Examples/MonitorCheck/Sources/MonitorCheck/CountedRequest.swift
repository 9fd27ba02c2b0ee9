/// What the monitor counted for one request: the fields of a wiretally app log line.
public struct CountedRequest: Sendable {
    public var url: String
    public var method: String
    public var status: Int?
    /// Seconds since 1970, when the request was sent.
    public var start: Double
    /// The request line and header block as the monitor rebuilt them, and the body it sent.
    public var requestHeaderBytes: Int
    public var requestBodyBytes: Int
    /// The response body it received (the monitor does not see the response's header block).
    public var responseBodyBytes: Int
}

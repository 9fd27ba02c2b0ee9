/// When an exchange spent its time, in milliseconds, as seen on the wire (HAR's phases, the JSON Lines
/// record's `timing`); nil where the phase did not happen on this exchange (a reused connection has
/// no `connect`) or cannot be seen.
public struct Phases: Hashable, Sendable {
    /// Waiting before the request could be sent (queued behind an earlier exchange on the connection).
    public var blocked: Double?
    /// The DNS lookup that gave the server's address (first exchange of the connection only).
    public var dns: Double?
    /// The TCP handshake (QUIC: first Initial to the server's first packet).
    public var connect: Double?
    /// The TLS handshake.
    public var ssl: Double?
    /// First to last packet of the request.
    public var send: Double?
    /// End of the request to the first packet of the response.
    public var wait: Double?
    /// First to last packet of the response.
    public var receive: Double?
    /// From the start of the first phase to the exchange's last payload packet.
    public var total: Double?
    /// Start of the first phase, seconds since 1970 on the capture's clock.
    public var start: Double?

    /// No phase known.
    public init() {}

    init(_ timing: ExchangeTiming) {
        func phase(_ value: Double) -> Double? { value < 0 ? nil : value }
        blocked = phase(timing.blocked)
        dns = phase(timing.dns)
        connect = phase(timing.connect)
        ssl = phase(timing.ssl)
        send = phase(timing.send)
        wait = phase(timing.wait)
        receive = phase(timing.receive)
        total = phase(timing.total)
        start = timing.start.map(\.seconds)
    }
}

extension Timestamp {
    /// Seconds since 1970, as a `Double` (microsecond precision for today's dates).
    var seconds: Double { Double(nanoseconds) / 1e9 }
}

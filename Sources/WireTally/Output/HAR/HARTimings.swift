/// HAR's `timings` object from an `ExchangeTiming`, and the default timing wiretally derives from the
/// messages alone until the full phase computation is wired in.
public enum HARTimings {
    /// Send/wait/receive from the messages' first and last packets; `connect` (the TCP handshake,
    /// `handshakeNanoseconds`) on the connection's first exchange, which then starts at the
    /// connection's first packet (the SYN). Phases are clamped so that they never overlap: a response
    /// starting before its request ended (`100 Continue`, an early error) gets `wait` 0 and receives
    /// from the request's end, so `send + wait + receive` is always first request packet → last
    /// response packet. A missing request has `send` 0 and a missing response `wait` and `receive` 0.
    public static func wireTiming(_ exchange: HTTPExchange, _ connection: TCPConnection) -> ExchangeTiming {
        var timing = ExchangeTiming()
        let requestStart = exchange.request?.firstOrigin.timestamp
        let requestEnd = exchange.request?.lastOrigin.timestamp
        let responseStart = exchange.response?.firstOrigin.timestamp
        let responseEnd = exchange.response?.lastOrigin.timestamp
        guard let begin = requestStart ?? responseStart else { return timing }
        var start = begin
        if exchange.index == 0, exchange.request != nil, let handshake = connection.handshakeNanoseconds {
            timing.connect = Double(handshake) / 1_000_000
            start = min(connection.firstTimestamp, begin)
        }
        let sendEnd = requestEnd ?? begin
        timing.send = requestStart.map { ms(sendEnd, $0) } ?? 0
        if let responseStart, let responseEnd {
            let receiveStart = max(responseStart, sendEnd)
            timing.wait = ms(receiveStart, sendEnd)
            timing.receive = ms(max(responseEnd, receiveStart), receiveStart)
        } else {
            timing.wait = 0
            timing.receive = 0
        }
        timing.start = start
        let end = max(responseEnd ?? sendEnd, sendEnd)
        timing.total = ms(end, start)
        return timing
    }

    /// The HAR phases in microseconds (-1: not applicable). HAR's `connect` includes `ssl`, whereas
    /// `ExchangeTiming.connect` is the TCP handshake only; `send`, `wait` and `receive` must not be
    /// negative in HAR (a phase that did not happen is 0 there).
    struct Phases {
        var blocked, dns, connect, ssl, send, wait, receive: Int64

        init(_ timing: ExchangeTiming) {
            func micro(_ ms: Double) -> Int64 { ms < 0 ? -1 : Int64((ms * 1000).rounded()) }
            blocked = micro(timing.blocked)
            dns = micro(timing.dns)
            ssl = micro(timing.ssl)
            let tcp = micro(timing.connect)
            connect = tcp < 0 && ssl < 0 ? -1 : max(tcp, 0) + max(ssl, 0)
            send = max(micro(timing.send), 0)
            wait = max(micro(timing.wait), 0)
            receive = max(micro(timing.receive), 0)
        }

        /// HAR's `time`: the sum of the phases that apply (`ssl` is inside `connect`).
        var time: Int64 { [blocked, dns, connect, send, wait, receive].filter { $0 >= 0 }.reduce(0, +) }

        var json: JSONValue {
            .object([
                ("blocked", number(blocked)), ("dns", number(dns)), ("connect", number(connect)),
                ("ssl", number(ssl)), ("send", number(send)), ("wait", number(wait)), ("receive", number(receive)),
            ])
        }
    }

    /// Microseconds as milliseconds with three decimals; -1 stays `-1`.
    static func number(_ microseconds: Int64) -> JSONValue {
        microseconds < 0 ? .integer(-1) : .number(RecordEncoding.milliseconds(microseconds * 1000))
    }

    private static func ms(_ later: Timestamp, _ earlier: Timestamp) -> Double {
        Double(later.nanoseconds - earlier.nanoseconds) / 1_000_000
    }
}

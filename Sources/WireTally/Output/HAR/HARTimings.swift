/// HAR's `timings` object from an `ExchangeTiming`.
package enum HARTimings {
    /// The HAR phases in microseconds (-1: not applicable). HAR's `connect` includes `ssl`, whereas
    /// `ExchangeTiming.connect` is the TCP handshake only; `send`, `wait` and `receive` must not be
    /// negative in HAR (a phase that did not happen is 0 there).
    struct Phases {
        var blocked, dns, connect, ssl, send, wait, receive: Int64

        /// Phases that overlap on the wire (a response starting before its request ended: `100
        /// Continue`, an early error) are clamped for HAR, which adds them up: `wait` is then 0 and
        /// `receive` runs from the end of the request.
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
            if let request = timing.requestSpan, let response = timing.responseSpan {
                let receiveStart = max(response.lowerBound, request.upperBound)
                wait = max(0, (receiveStart.nanoseconds - request.upperBound.nanoseconds) / 1000)
                receive = max(0, (response.upperBound.nanoseconds - receiveStart.nanoseconds) / 1000)
            }
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

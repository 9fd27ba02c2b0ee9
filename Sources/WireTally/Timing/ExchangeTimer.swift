/// Derives an exchange's timing phases from what the wire showed: the connection's handshake, the
/// first and last packets carrying its request and response bytes (as the ledger attributed them,
/// retransmissions included), and (when known) the DNS lookup and TLS handshake that preceded it.
package enum ExchangeTimer {
    /// An interval seen on the wire.
    package struct Interval: Sendable {
        package var start: Timestamp
        package var end: Timestamp
        package init(start: Timestamp, end: Timestamp) {
            self.start = start
            self.end = end
        }
    }

    /// The phases of exchange `index` of its connection, with messages `request` and `response` (given
    /// apart: a whole exchange, ~440 bytes, was copied for the call), whose packets carrying new payload
    /// bytes span `payloadTimes` per direction (`ExchangeWire.payloadTimes`: the few bytes of the wire
    /// the phases read). `dns`, `connect` and `tls` are the lookup, the transport handshake (TCP's SYN to
    /// its completion, QUIC's first Initial to the server's answer) and the TLS handshake that preceded
    /// the connection (ClientHello to the client's Finished); they count only for its first exchange.
    /// `ssl` starts where `connect` ends (the time
    /// the client takes to build its ClientHello is part of it, as in curl's `appconnect − connect` and
    /// URLSessionTaskMetrics' `secureConnectionStartDate`), or at the ClientHello without a handshake.
    /// `serverFIN`: when the server's FIN was seen, the end of a close-delimited response.
    package static func timing(
        ofExchange index: Int, request: HTTPMessage?, response: HTTPMessage?, payloadTimes: DirectionPair<ClosedRange<Timestamp>?>,
        dns: Interval? = nil, connect: Interval? = nil, tls: Interval? = nil, serverFIN: Timestamp? = nil
    ) -> ExchangeTiming {
        var timing = ExchangeTiming()
        let isFirst = index == 0
        // The earliest start of a phase that happened (kept as it comes: no array per exchange).
        var earliest: Timestamp?
        func started(_ time: Timestamp) { earliest = min(earliest ?? time, time) }
        if isFirst, let dns {
            timing.dns = milliseconds(dns.start, dns.end)
            started(dns.start)
        }
        if isFirst, let connect {
            timing.connect = milliseconds(connect.start, connect.end)
            started(connect.start)
        }
        if isFirst, let tls {
            let start = connect.map { min($0.end, tls.start) } ?? tls.start
            timing.ssl = milliseconds(start, tls.end)
            started(start)
        }
        /// From the packet carrying the message's first byte to the last packet carrying the exchange's
        /// bytes in that direction (a retransmission filling a hole can be it), unless that packet came
        /// after `limit`. Earlier packets the exchange owns (a TLS handshake is the first exchange's
        /// setup) do not start the message.
        func span(_ message: HTTPMessage?, _ direction: FlowDirection, until limit: Timestamp? = nil) -> ClosedRange<Timestamp>? {
            guard let message else { return nil }
            let first = message.firstOrigin.timestamp
            var last = message.lastOrigin.timestamp
            if let owned = payloadTimes[direction.rawValue]?.upperBound, owned <= limit ?? owned { last = max(last, owned) }
            // A close-delimited response is complete when the server's FIN says so.
            if direction == .down, message.flags.contains(.closeDelimited), let serverFIN { last = max(last, serverFIN) }
            return first...max(first, last)
        }
        let responseSpan = span(response, .down)
        // The request ends before the response has ended: a later packet the exchange owns upstream
        // (the client's TLS close_notify after the last response) is not part of sending it.
        let requestSpan = span(request, .up, until: responseSpan?.upperBound)
        let lastOwnedUp = request == nil ? nil : payloadTimes[FlowDirection.up.rawValue]?.upperBound
        timing.requestSpan = requestSpan
        timing.responseSpan = responseSpan
        if let requestSpan {
            timing.send = milliseconds(requestSpan.lowerBound, requestSpan.upperBound)
            started(requestSpan.lowerBound)
        }
        if let requestSpan, let responseSpan {
            timing.wait = max(0, milliseconds(requestSpan.upperBound, responseSpan.lowerBound))
        }
        if let responseSpan {
            timing.receive = milliseconds(responseSpan.lowerBound, responseSpan.upperBound)
            started(responseSpan.lowerBound)
        }
        timing.start = earliest
        // The exchange's last payload packet: normally its last response packet (a TLS close_notify
        // or a late request retransmission owned by the exchange can come after it).
        let end = latest(latest(responseSpan?.upperBound, requestSpan?.upperBound), lastOwnedUp)
        if let start = timing.start, let end { timing.total = milliseconds(start, end) }
        return timing
    }

    /// The later of two times, either missing.
    private static func latest(_ a: Timestamp?, _ b: Timestamp?) -> Timestamp? {
        guard let a else { return b }
        guard let b else { return a }
        return max(a, b)
    }

    static func milliseconds(_ start: Timestamp, _ end: Timestamp) -> Double {
        Double(end.nanoseconds - start.nanoseconds) / 1_000_000
    }
}

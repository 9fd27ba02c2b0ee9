/// Timing phases of one exchange as seen on the wire, in milliseconds; -1 where a phase did not happen
/// (or cannot be seen on the wire, like `blocked`).
///
/// - `dns`: the DNS query for the request's host to the lookup's last answer (a resolver's A and AAAA
///   queries from one socket are one lookup; the client connects after both), preceding the SYN;
/// - `connect`: SYN to the ACK completing the TCP handshake (-1 on a reused connection);
/// - `ssl`: the end of `connect` to the client's Finished (-1 without TLS): it starts when the TCP
///   connection is up, as curl's `appconnect − connect` and URLSessionTaskMetrics'
///   `secureConnectionStartDate` do, so `connect` and `ssl` tile (the client's time to build its
///   ClientHello is part of `ssl`); without a seen handshake it starts at the ClientHello. The wire-only
///   ClientHello → Finished span is the connection's `tls.handshake_ms`. QUIC (one handshake for
///   transport and TLS), as curl cuts HTTP/3: `connect` is the client's first Initial to the server's
///   first answer, `ssl` from there to the client's Finished;
/// - `send`: first to last packet of the request (a TLS close_notify sent after the response is not
///   part of it); `wait`: last request packet to first response packet;
/// - `receive`: first to last response packet; a close-delimited response ends with the server's FIN
///   (it is complete only then);
/// - `total`: from the start of the first phase that happened to the exchange's last packet carrying
///   payload (normally its last response packet).
package struct ExchangeTiming: Hashable, Sendable {
    package var blocked: Double = -1
    package var dns: Double = -1
    package var connect: Double = -1
    package var ssl: Double = -1
    package var send: Double = -1
    package var wait: Double = -1
    package var receive: Double = -1
    package var total: Double = -1
    /// When the first phase that happened started (for HAR's `startedDateTime`).
    package var start: Timestamp?
    /// First to last packet carrying request bytes, and response bytes (for formats that need phases
    /// that do not overlap, like HAR).
    package var requestSpan: ClosedRange<Timestamp>?
    package var responseSpan: ClosedRange<Timestamp>?

    package init() {}
}

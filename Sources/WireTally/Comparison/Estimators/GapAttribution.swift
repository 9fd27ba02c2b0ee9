/// Why an estimate differs from the wire: (wire − estimated) of one exchange split into causes that add
/// up exactly, signed (negative when the estimator counted more than was there).
///
/// Per direction d at level L, with T = the exchange's ledger tally (`ExchangeConnection.wire` of exchange i):
///
///     wire_d = T.setup[L] + T.teardown[L]                     → setup_teardown
///            + T.ack[L]                                       → pure_acks
///            + T.retransmission[L] + dup                      → retransmissions
///            + (T.payload[L] − T.payload.payload_bytes)       → tcp_ip_headers (link headers too at frame level; 0 at payload level)
///            + (stream − http − share)                        → tls_overhead on TLS connections, else other
///            + http + share
///     http + share − estimated_d = hidden_headers + cookies + chunk_framing (HTTP/2: http2_framing, with
///                                  share) + compression_estimate + body_length + other (HTTP/2: hpack
///                                  for the headers)
///
/// The head's share of that is split the same way for every source (estimator or app log,
/// `MessageEstimate`): what the source could not see is `hidden_headers`, uncounted cookies `cookies`,
/// and the rest of head on the stream − head counted is `hpack` on HTTP/2 (the HPACK block against the
/// header text the source counted) and `other` on HTTP/1.x (start-line rebuild, formatting) — or
/// `other` whatever the version when the source gave one unsplit total for the message. The version is
/// the message's (`MessageEstimate.isHTTP2`: the HTTP/1.1 request an h2c upgrade began with is
/// HTTP/1.x, its response HTTP/2). A pushed exchange is compared in down only (`PushedExchange.swift`).
///
/// where dup = payload bytes inside `payload` packets that had been seen before (partial overlaps:
/// `retransmittedPayloadBytes` minus the payload of retransmission/setup/teardown packets),
/// stream = T.payload.payload_bytes − dup (the exchange's new stream bytes), http = the messages' bytes
/// on the stream (request `bytes.total`; response `bytes.total` + interim 1xx; encrypted: the plaintext
/// estimates `bytes.body`), share = HTTP/2's connection-level frame bytes given to the exchange (0 for
/// HTTP/1.x). At IP level the DNS lookup before the exchange's connection is wire too:
/// its queries count in up, its answer in down (cause `dns`).
///
/// Causes (JSON names):
/// - `hidden_headers`: header bytes the estimator cannot see — naive: the whole start line and header
///   block except cookies (HTTP/2: the whole HPACK block); rebuilt: the request headers the stack adds
///   (Host, Connection, Accept*, User-Agent, Content-Length, as rebuilt text) and interim 1xx responses;
///   metrics: interim 1xx responses; every estimator but `http`: a pushed request's PUSH_PROMISE block;
///   an HTTP/1.x app log: its head on the stream minus the head bytes it logged.
/// - `cookies`: Cookie / Set-Cookie header lines (`name: value\r\n`) the estimator did not count.
/// - `compression_estimate`: the body as sent minus the body size the estimator counted for it
///   (decoded size, or the re-encoded size; includes the approximation when the body was not retained).
/// - `body_length`: body bytes the estimator's length source misses (naive down: no `Content-Length`).
/// - `chunk_framing`: chunk-size lines, chunk CRLFs, last chunk and trailers not counted.
/// - `hpack` (HTTP/2): the header block as HPACK sent it minus the headers the source counted (beyond
///   `hidden_headers` and `cookies`) — negative when header compression made the wire smaller than the
///   rebuilt text (what it saved), positive when the source counted fewer bytes than the block (an app
///   log that logs no header bytes: the whole block). For an app log: HPACK block − its header count.
/// - `http2_framing` (HTTP/2): frame headers, padding, the stream's WINDOW_UPDATE/RST_STREAM/PRIORITY
///   frames, and the connection-level frames the exchange was given (`http2.connection_share`), less
///   whatever of these the source counted.
/// - `qpack` (HTTP/3): as `hpack`, for the QPACK field sections.
/// - `http3_framing` (HTTP/3): HTTP/3 frame type and length fields and unknown frames of the stream,
///   less whatever of these the source counted.
/// - `tls_overhead`: TLS record headers, AEAD/MAC overhead, handshake (owned by the first exchange),
///   alerts, session tickets — stream bytes that are not HTTP plaintext.
/// - `quic_overhead` (QUIC connections): the UDP payload bytes of the exchange's datagrams that are not
///   its HTTP/3 stream bytes — QUIC packet headers and AEAD tags, STREAM frame headers, its share of
///   ACK, PADDING and connection-level frames, the control and QPACK streams, the handshake (first
///   exchange); `tcp_ip_headers` is then the UDP and IP headers.
/// - `tcp_ip_headers`: TCP and IP (and, at frame level, link) headers of the packets carrying the
///   exchange's new payload.
/// - `pure_acks`: whole pure-ACK packets attributed to the exchange.
/// - `setup_teardown`: SYN/SYN-ACK/handshake ACK (first exchange) and FIN/RST/closing ACKs (last).
/// - `retransmissions`: whole retransmitted packets and re-sent bytes inside partly new packets.
/// - `dns`: IP bytes of the DNS lookup that preceded the connection (IP level only).
/// - `after_cancel`: of an exchange the client cancelled (`HTTPExchange.cancelledAt`), its packets after
///   the cancel — the response data already on its way, the resets and acknowledgments it drew, the
///   teardown — which an in-app counter never sees: the app had already dropped the task. They come
///   out of the causes they would otherwise fall under (their setup/teardown, ACK, retransmission and
///   header bytes; their new payload bytes out of the body's cause: body the app never read — when the
///   messages are parsed (clear or decrypted HTTP/1.x and HTTP/2, decrypted HTTP/3) only the body bytes
///   read after the cancel: the rest of the message bytes read after it (chunk framing, HTTP/2 or
///   HTTP/3 frame headers) out of `chunk_framing`, `http2_framing` or `http3_framing`, and the rest of
///   the payload (TLS record headers and tags, QUIC packet overhead) out of `tls_overhead` or
///   `quic_overhead` (`other` on clear TCP); a TLS record counts once it is complete, so the plaintext
///   of one straddling the cancel moves whole while only its bytes after the cancel are in the packets:
///   `tls_overhead` gets back its bytes before the cancel. Estimated exchanges (TLS without keys): the
///   whole new payload out of the body's cause. The
///   `metrics` estimator, a counter of what the app received, does not count it either
///   (`HTTPExchange.unreadResponseBytes`): its body cause is then 0; `http` counts the response as the
///   server sent it (nginx's `$bytes_sent` counts it too), so its body cause is minus those bytes).
/// - `other`: the rest, so the sum is exact — request/status-line rebuild differences, header
///   formatting (`name:value`, folded lines, bare LF vs the rebuilt `name: value\r\n`), and stream bytes
///   of the exchange that are not part of its parsed messages (upgraded protocols, gaps, unparsed bytes,
///   and payload a sender kept sending after its peer had reset the connection: on the wire, never
///   delivered — the recorded `resets` capture's 64 KB POST to `return 444`, 21,720 bytes).
package struct GapAttribution: Sendable {
    /// Cause names in output order.
    package static let causes = [
        "hidden_headers", "cookies", "compression_estimate", "body_length", "chunk_framing", "hpack", "http2_framing",
        "qpack", "http3_framing", "tls_overhead", "quic_overhead", "tcp_ip_headers", "pure_acks", "setup_teardown", "retransmissions", "dns",
        "after_cancel", "other",
    ]

    /// A cause: its index in `causes`.
    package enum Cause: Int, CaseIterable, Sendable {
        case hiddenHeaders, cookies, compressionEstimate, bodyLength, chunkFraming, hpack, http2Framing, qpack,
            http3Framing, tlsOverhead, quicOverhead, tcpIPHeaders, pureAcks, setupTeardown, retransmissions, dns,
            afterCancel, other
    }

    /// Bytes per cause, indexed by `Cause` (an array, not a dictionary by name: the comparison attributes
    /// every exchange for every estimator).
    package struct Tally: Sendable, Equatable {
        package private(set) var bytes = [Int](repeating: 0, count: Cause.allCases.count)

        package init() {}

        package subscript(cause: Cause) -> Int {
            get { bytes[cause.rawValue] }
            set { bytes[cause.rawValue] = newValue }
        }

        /// Adds `other`'s bytes cause by cause.
        package mutating func add(_ other: Tally) {
            for index in bytes.indices { bytes[index] += other.bytes[index] }
        }

        /// `[name: bytes]` for every name of `causes`.
        package var byName: [String: Int] { Dictionary(uniqueKeysWithValues: zip(GapAttribution.causes, bytes)) }

        /// `{CAUSE: bytes,…}` in `causes` order.
        package var json: JSONValue { .object(zip(GapAttribution.causes, bytes).map { ($0, .integer($1)) }) }
    }

    package var level: WireLevel
    package var estimate: TrafficEstimate
    /// Wire truth per direction (the exchange's packets, plus at IP level the DNS lookup's queries up
    /// and answer down) and the DNS lookup's bytes alone.
    package var wireUp: Int
    package var wireDown: Int
    package var dns: Int
    /// Bytes per cause.
    package private(set) var tally: Tally
    /// Bytes per cause name (every name of `causes` present).
    package var byCause: [String: Int] { tally.byName }

    /// wire up + wire down (the DNS lookup included at IP level).
    package var wire: Int { wireUp + wireDown }
    /// estimated up + down.
    package var estimated: Int { estimate.up + estimate.down }
    /// wire − estimated: what `byCause` adds up to.
    package var gap: Int { wire - estimated }
    /// Sum of the causes (equal to `gap` by construction).
    package var causeTotal: Int { tally.bytes.reduce(0, +) }

    /// Attributes the gap of `breakdown` (from `Estimator.breakdown(exchange)`) against the exchange's wire.
    package init(exchange: HTTPExchange, connection: ExchangeConnection, breakdown: EstimateBreakdown, level: WireLevel) {
        self.level = level
        estimate = breakdown.estimate
        let wire = connection.wire
        let isTLS = connection.tlsSession != nil || breakdown.encrypted
        let isQUIC = connection.transport == .quic
        let streamOverhead: Cause = isQUIC ? .quicOverhead : isTLS ? .tlsOverhead : .other
        let isHTTP2 = exchange.request?.http2 != nil || exchange.response?.http2 != nil
        var causes = Tally()
        var wires = [0, 0]
        for direction in FlowDirection.allCases {
            let tally = wire.tally(direction)
            let message = direction == .up ? breakdown.up : breakdown.down
            wires[direction.rawValue] = level.value(tally.total)
            causes[.setupTeardown] += level.value(tally.setup) + level.value(tally.teardown)
            causes[.pureAcks] += level.value(tally.ack)
            let dup = tally.duplicateBytesInPayloadPackets
            causes[.retransmissions] += level.value(tally.retransmission) + dup
            causes[.tcpIPHeaders] += level.value(tally.payload) - tally.payload.payloadBytes
            let stream = tally.payload.payloadBytes - dup
            let connectionShare = isHTTP2 ? exchange.connectionShareBytes[direction.rawValue] : 0
            causes[streamOverhead] += stream - message.wire - connectionShare
            // HTTP bytes − estimate.
            causes[.hiddenHeaders] += message.hiddenHeaders
            causes[.cookies] += message.cookies
            let headCause: Cause = message.isUnsplit ? .other : message.isHTTP2 ? .hpack : message.isHTTP3 ? .qpack : .other
            causes[headCause] += message.wireHead - message.head - message.hiddenHeaders - message.cookies
            let framingCause: Cause = message.isHTTP2 ? .http2Framing : message.isHTTP3 ? .http3Framing : .chunkFraming
            causes[framingCause] += message.wireFraming - message.framing
            causes[.http2Framing] += connectionShare
            let bodyCause: Cause = message.bodyCause == .compression ? .compressionEstimate : .bodyLength
            causes[bodyCause] += message.wireBody - message.body
            if exchange.cancelledAt != nil {
                // parsed messages: their bytes after the cancel are known (estimated TLS exchanges: not)
                let afterStream = isQUIC || exchange.readAtCancel != nil
                    ? StreamAfterCancel(exchange, direction, framing: framingCause, overhead: streamOverhead) : nil
                Self.moveAfterCancel(wire.afterClientClose[direction.rawValue], level: level, bodyCause: bodyCause,
                                     stream: afterStream, in: &causes)
            }
        }
        dns = level == .ip ? exchange.dnsIPBytes : 0
        wireUp = wires[0] + (level == .ip ? exchange.dnsQueryIPBytes : 0)
        wireDown = wires[1] + (level == .ip ? exchange.dnsAnswerIPBytes : 0)
        causes[.dns] += dns
        tally = causes
    }

    /// Of a cancelled exchange whose messages are parsed, one direction: its new stream bytes after the
    /// cancel (`HTTPExchange.afterCancelStreamBytes`), the body bytes among them (at most those), and
    /// the causes the rest falls under — the framing (chunk framing, HTTP/2 or HTTP/3 frame headers) and
    /// what carries the stream (TLS records, QUIC packets; else `other`).
    private struct StreamAfterCancel {
        var stream: Int
        var body: Int
        var framing: Cause
        var overhead: Cause

        init(_ exchange: HTTPExchange, _ direction: FlowDirection, framing: Cause, overhead: Cause) {
            stream = exchange.afterCancelStreamBytes[direction.rawValue]
            body = min(exchange.afterCancelBodyBytes[direction.rawValue], stream)
            self.framing = framing
            self.overhead = overhead
        }
    }

    /// Moves the packets after a cancel (`after`, one direction) out of the causes they were counted
    /// under into `after_cancel`; the sum is unchanged. Their new payload leaves the body's cause — when
    /// the messages are parsed (`stream`) only the body bytes in it: the rest of the message bytes
    /// leave the framing's cause (`chunk_framing`, `http2_framing`, `http3_framing`), the rest of the
    /// payload the carrier's (`tls_overhead`: record headers and tags; `quic_overhead`: packet headers,
    /// AEAD tags, QUIC frame headers, ACK and other frames; `other` on clear TCP).
    private static func moveAfterCancel(
        _ after: DirectionTally, level: WireLevel, bodyCause: Cause, stream: StreamAfterCancel?, in causes: inout Tally
    ) {
        let total = level.value(after.total)
        guard total != 0 else { return }
        causes[.afterCancel] += total
        let dup = after.duplicateBytesInPayloadPackets
        causes[.setupTeardown] -= level.value(after.setup) + level.value(after.teardown)
        causes[.pureAcks] -= level.value(after.ack)
        causes[.retransmissions] -= level.value(after.retransmission) + dup
        causes[.tcpIPHeaders] -= level.value(after.payload) - after.payload.payloadBytes
        let newPayload = after.payload.payloadBytes - dup
        guard let stream else {
            causes[bodyCause] -= newPayload
            return
        }
        causes[bodyCause] -= stream.body
        causes[stream.framing] -= stream.stream - stream.body
        causes[stream.overhead] -= newPayload - stream.stream
    }

    /// Convenience: the estimator's breakdown and its gap; nil when the estimator skips the exchange.
    package init?(exchange: HTTPExchange, connection: ExchangeConnection, estimator: Estimator, level: WireLevel = .ip) {
        guard let breakdown = estimator.breakdown(exchange) else { return nil }
        self.init(exchange: exchange, connection: connection, breakdown: breakdown, level: level)
    }

    /// `{CAUSE: bytes,…}` in `causes` order.
    package var json: JSONValue { tally.json }
}

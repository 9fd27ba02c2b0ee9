/// One HTTP exchange: a request and its response, as parsed from the connection's streams.
package struct HTTPExchange: Sendable {
    /// Position on the connection, from 0.
    package var index: Int
    /// Nil when the capture started after the request (response without request).
    package var request: HTTPMessage?
    /// Nil when no response was seen (capture ended, connection reset).
    package var response: HTTPMessage?
    /// True when the exchange switched the connection to another protocol (Upgrade, CONNECT).
    package var upgraded = false
    /// Timing phases, filled in when the exchange is reported.
    package var timing = ExchangeTiming()
    /// When the client gave up on the exchange — it closed or reset the connection mid-response: while
    /// the exchange was in flight, its response begun and never completed (filled in when reported);
    /// HTTP/2: it reset the exchange's stream while the response was not complete (set when the
    /// RST_STREAM is read); HTTP/3: its STOP_SENDING or RESET_STREAM on the request stream while the
    /// response was not complete (set when the frame is read) — nil otherwise.
    package var cancelledAt: Timestamp?
    /// Of a cancelled exchange: the response's bytes that arrived after the cancel, which the app never
    /// read (0 otherwise): the response body read after the cancel, `afterCancelBodyBytes.down` — over
    /// TCP when its messages are parsed (`readAtCancel`); estimated exchanges (TLS without keys): the
    /// new payload of its packets after the cancel, filled in when reported.
    package var unreadResponseBytes = 0
    /// Of a cancelled exchange, per direction: the new bytes of its stream after the cancel, and the
    /// message body bytes among them; 0 otherwise. HTTP/3 (decrypted QUIC): the new stream bytes in the
    /// datagrams after the cancel (HTTP/3 frame headers included); TCP (`readAtCancel`): the message
    /// bytes read after the cancel (chunk framing, HTTP/2 frame headers and control frames included; a
    /// TLS record counts once it is complete), filled in when reported. `GapAttribution` splits the
    /// exchange's `after_cancel` payload with them.
    package var afterCancelStreamBytes = DirectionPair(0, 0)
    package var afterCancelBodyBytes = DirectionPair(0, 0)
    /// TCP, an exchange whose messages are parsed (clear, or decrypted TLS): per direction, how much of
    /// its message had been read when the client cancelled — closed or reset the connection while it was
    /// in flight (`StreamAttribution.noteClientClose`), or reset its HTTP/2 stream (HTTP/2: its
    /// `connectionShareBytes` then counted in `stream`); nil otherwise.
    package var readAtCancel: DirectionPair<HTTPMessageRead>?
    /// The server's name when the request has no Host header (TLS without keys): the SNI, else the
    /// DNS answer that gave the address the client connected to. Filled in when reported.
    package var serverName: String?
    /// IP bytes of the DNS lookup that preceded the connection — the client's queries and the server's
    /// answer — on the connection's first exchange (the first that used the answer); 0 otherwise.
    /// On a decrypted TLS connection, per direction: the records the exchange owns and what they cost
    /// beyond its plaintext (headers, protection, handshake, alerts). Filled in when reported.
    package var tlsRecords: DirectionPair<TLSExchangeRecordBytes>?
    package var dnsQueryIPBytes = 0
    package var dnsAnswerIPBytes = 0

    /// All IP bytes of the DNS lookup this exchange carries.
    package var dnsIPBytes: Int { dnsQueryIPBytes + dnsAnswerIPBytes }
    /// HTTP/2: connection-level frame bytes (preface, SETTINGS, PING, stream-0 WINDOW_UPDATE, GOAWAY…)
    /// the exchange was given per direction, by the rule of `HTTP2ConnectionAnalysis`; 0 for HTTP/1.x.
    package var connectionShareBytes = DirectionPair(0, 0)
    /// True until the final response is complete (HTTP/2: until the stream is over).
    var isInFlight = true
    /// HTTP/2: per direction, from the first byte the exchange owns to the end of the last one read.
    var streamSpans = DirectionPair<Range<Int64>?>(nil, nil)
}

extension HTTPExchange {
    /// Of a cancelled exchange, the body `message` (sent in `direction`) got after the cancel, when
    /// `bodyAtCancel` of it had been read: `afterCancelBodyBytes`, and for the response also
    /// `unreadResponseBytes`.
    package mutating func noteBodyAfterCancel(of message: HTTPMessage, _ direction: FlowDirection, bodyAtCancel: Int) {
        let body = max(0, message.bytes.body - bodyAtCancel)
        afterCancelBodyBytes[direction.rawValue] = body
        if direction == .down { unreadResponseBytes = body }
    }

    /// Of a cancelled TCP exchange whose messages are parsed (`readAtCancel`): the stream and body bytes
    /// each message got after the cancel (`afterCancelStreamBytes` — HTTP/2: with the connection-level
    /// frames it was given after it —, `afterCancelBodyBytes`, `unreadResponseBytes`); false when nothing
    /// was read at the cancel (estimated exchanges).
    package mutating func settleAfterCancel() -> Bool {
        guard let readAtCancel else { return false }
        for direction in FlowDirection.allCases {
            guard let message = direction == .up ? request : response else { continue }
            let atCancel = readAtCancel[direction.rawValue]
            let stream = HTTPMessageRead(message).stream + connectionShareBytes[direction.rawValue]
            afterCancelStreamBytes[direction.rawValue] = max(0, stream - atCancel.stream)
            noteBodyAfterCancel(of: message, direction, bodyAtCancel: atCancel.body)
        }
        return true
    }
}

/// How much of a message had been read: its bytes on the stream (interim 1xx responses, head, body,
/// chunk framing or HTTP/2 frame headers and control frames) and its body bytes among them.
package struct HTTPMessageRead: Sendable, Equatable {
    package var stream = 0
    package var body = 0

    package init() {}

    /// A message's counts so far (`bytes` with `interimBytes` before it).
    package init(bytes: HTTPByteCounts, interimBytes: Int) {
        stream = interimBytes + bytes.total
        body = bytes.body
    }

    /// A whole message's.
    package init(_ message: HTTPMessage) { self.init(bytes: message.bytes, interimBytes: message.interimBytes) }
}

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
    /// read (0 otherwise). TCP: the new payload of its packets after the cancel, filled in when
    /// reported; HTTP/3: the response body (DATA payload) read after the cancel, `afterCancelBodyBytes.down`.
    package var unreadResponseBytes = 0
    /// HTTP/3 (decrypted QUIC), of a cancelled exchange, per direction: the new bytes of its stream in
    /// the datagrams after the cancel (HTTP/3 frame headers included), and the message body bytes read
    /// after the cancel; 0 otherwise. `GapAttribution` splits the exchange's `after_cancel` UDP payload
    /// with them.
    package var afterCancelStreamBytes = DirectionPair(0, 0)
    package var afterCancelBodyBytes = DirectionPair(0, 0)
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

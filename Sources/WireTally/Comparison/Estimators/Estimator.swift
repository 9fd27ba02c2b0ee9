/// The built-in estimators: what common in-app monitors would have reported for one exchange, computed
/// from the parsed HTTP messages. Formulas (R = request, P = response, `fmt(h)` = `name: value\r\n`,
/// i.e. `name.utf8 + 2 + value.utf8 + 2` bytes):
///
/// - `naive` — a byte counter on the app's own objects:
///   up = R's body length as the app handed it over (decoded: `decodedBodyBytes ?? bytes.body`);
///   down = P's `Content-Length` value (0 when absent, e.g. chunked or close-delimited).
/// - `rebuilt` — the common NSURLProtocol rebuild:
///   up = `"{host} {method} {path} HTTP/1.1 {query}\n"` (path = target before `?`, query after it, ""
///   when none) + Σ fmt(h) over R's headers except those the network stack adds itself (Host,
///   Connection, Accept-Encoding, Accept, Accept-Language, User-Agent, Content-Length) and except
///   Cookie, + 2 (`\r\n`), + Σ fmt(Cookie headers), + the body: enc(decoded body) when R has a
///   `Content-Encoding`, else the decoded length;
///   down = `"{version} {status} {reason}"` (the status line without CRLF) + Σ fmt(h) over all of P's
///   headers + 2, + enc(decoded body) when P was encoded, else the decoded length ("simulate
///   compression"). enc re-applies the message's own codings in order (`BodyReencoder`):
///   gzip with zlib's default level 6, br with quality 6 (what servers encoding on the fly use; 11 is
///   for files compressed ahead of time), zstd with the library's default level 3; a body with a
///   deflate or unknown coding counts its decoded length.
///   enc(x) needs the decoded body: `HTTPMessage.retainedBody` (run with `EstimatorRun.requiredHTTPLimits`).
///   When it was not retained completely the size is approximated: enc(retained prefix) scaled by
///   decoded size / prefix size; with nothing retained, the body size as sent. Such exchanges are
///   counted as `approximated`; whatever the approximation misses lands in `compression_estimate`.
/// - `metrics` — `URLSessionTaskMetrics` (iOS 13+):
///   up = `countOfRequestHeaderBytesSent` (R's start line + header block as sent) +
///   `countOfRequestBodyBytesSent` (R's body as sent, chunk framing included);
///   down = `countOfResponseHeaderBytesReceived` (P's status line + header block, interim 1xx excluded) +
///   `countOfResponseBodyBytesReceived` (P's body as received before decoding, without chunk framing;
///   of a cancelled exchange, less the body that arrived after the cancel: `unreadResponseBytes`).
/// - `http` — the HTTP messages exactly as on the stream: start line, headers, body and framing (up = R
///   `bytes.total`, down = P `bytes.total` + interim 1xx bytes: nginx's `$request_length` / `$bytes_sent`
///   for HTTP/1.x); for HTTP/2, header block, body and frame framing — the stream's control frames and
///   its connection share are `http2_framing` in the gap.
///
/// HTTP/2 server push (`HTTPExchange.isPushed`): the app never sent a pushed request, so every estimator
/// counts nothing up and the PUSH_PROMISE is compared in down, where it travelled — counted by `http`,
/// unseen (`hidden_headers`, `http2_framing`) by the others (see `PushedExchange.swift`).
///
/// Encrypted exchanges (TLS without keys, method nil) only have a plaintext size: `http` and `metrics`
/// give the estimated plaintext (`bytes.body`; for `metrics` chunk framing cannot be told apart), while
/// `naive` and `rebuilt` need headers and give nil (the exchange is skipped).
package enum Estimator: String, CaseIterable, Sendable {
    case naive
    case rebuilt
    case metrics
    case http

    /// Whether field `position` of `fields` is a request header the network stack adds itself, which an
    /// NSURLProtocol rebuild cannot see (ASCII case-insensitive, compared on the bytes).
    static func isStackHeader(_ fields: HTTPHeaderFields, at position: Int) -> Bool {
        fields.nameEquals(at: position, "host") || fields.nameEquals(at: position, "connection")
            || fields.nameEquals(at: position, "accept-encoding") || fields.nameEquals(at: position, "accept")
            || fields.nameEquals(at: position, "accept-language") || fields.nameEquals(at: position, "user-agent")
            || fields.nameEquals(at: position, "content-length")
    }

    /// The estimate for `exchange`, or nil when this estimator cannot say anything about it.
    package func estimate(_ exchange: HTTPExchange) -> TrafficEstimate? {
        guard let breakdown = breakdown(exchange) else { return nil }
        return breakdown.estimate
    }

    /// The estimate with its per-message accounting (what it counted and what it could not see).
    package func breakdown(_ exchange: HTTPExchange) -> EstimateBreakdown? {
        let encrypted = EstimateBreakdown.isEncrypted(exchange)
        if encrypted && (self == .naive || self == .rebuilt) { return nil }
        var result = EstimateBreakdown(estimator: self, encrypted: encrypted)
        if let request = exchange.request {
            result.up = encrypted ? .plaintext(request) : message(request, exchange: exchange)
        }
        if let response = exchange.response {
            result.down = encrypted ? .plaintext(response) : message(response, exchange: exchange)
        }
        if let request = exchange.request {
            result.movePushPromiseDown(self == .http ? result.up : .unseen(request), of: exchange)
        }
        return result
    }

    private func message(_ m: HTTPMessage, exchange: HTTPExchange) -> MessageEstimate {
        let isRequest = m.kind == .request
        let fields = m.headerFields  // read on the bytes: no strings made
        var cookieBytes = 0
        for position in fields.indices where fields.nameEquals(at: position, isRequest ? "cookie" : "set-cookie") {
            cookieBytes += Self.fmt(fields, at: position)
        }
        let decoded = m.decodedBodyBytes ?? m.bytes.body
        var e = MessageEstimate.onStream(m)
        let wireHead = e.wireHead
        // a counter of what the app received never sees the body that arrived after it cancelled
        let unread = isRequest ? 0 : min(exchange.unreadResponseBytes, m.bytes.body)
        switch self {
        case .naive:
            e.hiddenHeaders = wireHead - cookieBytes
            e.cookies = cookieBytes
            if isRequest {
                e.body = decoded
                e.bodyCause = .compression
            } else {
                e.body = m.header("Content-Length").flatMap { Int($0.trimmingHTTPWhitespace()) } ?? 0
                e.bodyCause = .bodyLength
            }
        case .rebuilt:
            if isRequest {
                let target = m.target ?? ""
                let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
                let query = target.contains("?") ? String(target[target.index(after: target.firstIndex(of: "?")!)...]) : ""
                let host = m.header("Host") ?? ""
                let line = "\(host) \(m.method ?? "") \(path) HTTP/1.1 \(query)\n".utf8.count
                var visible = 0, stack = 0
                for position in fields.indices {
                    if Self.isStackHeader(fields, at: position) {
                        stack += Self.fmt(fields, at: position)
                    } else if !fields.nameEquals(at: position, "cookie") {
                        visible += Self.fmt(fields, at: position)
                    }
                }
                e.head = line + visible + 2 + cookieBytes
                e.hiddenHeaders = stack
            } else {
                let line = "\(m.version) \(m.status.map(String.init) ?? "") \(m.reason ?? "")".utf8.count
                e.head = line + fields.indices.reduce(0) { $0 + Self.fmt(fields, at: $1) } + 2
                e.hiddenHeaders = m.interimBytes
            }
            e.cookies = 0  // counted as sent (formatted like every other header)
            let (size, approximated) = Self.rebuiltBody(m, decoded: decoded)
            e.body = size
            e.approximated = approximated
            e.bodyCause = .compression
        case .metrics:
            e.head = m.bytes.startLine + m.bytes.headers
            e.hiddenHeaders = isRequest ? 0 : m.interimBytes
            e.body = m.bytes.body - unread
            e.framing = isRequest ? m.bytes.framing : 0
        case .http:
            e.head = wireHead
            e.body = m.bytes.body
            e.framing = m.bytes.framing
        }
        return e
    }

    /// `name: value\r\n` of field `position`, its name and value as the header strings read them
    /// (invalid UTF-8 repaired: a replaced byte counts as the replacement character's three).
    static func fmt(_ fields: HTTPHeaderFields, at position: Int) -> Int {
        fields.withName(at: position, Self.textLength) + 2 + fields.withValue(at: position, Self.textLength) + 2
    }

    /// UTF-8 length of `bytes` decoded as a string (`String(decoding:as:)`): the byte count when they
    /// are ASCII.
    private static func textLength(_ bytes: UnsafeRawBufferPointer) -> Int {
        bytes.isASCII ? bytes.count : String(decoding: bytes, as: UTF8.self).utf8.count
    }

    /// The rebuild's body size: re-encoded with the message's codings, else the decoded length; and
    /// whether it had to be approximated (body not retained completely).
    static func rebuiltBody(_ m: HTTPMessage, decoded: Int) -> (Int, Bool) {
        guard ContentCoding.reencoded(m.contentEncoding) != nil, m.bytes.body > 0 else { return (decoded, false) }
        var measured = m
        if measured.reencoded == nil { measureReencodedBody(&measured, with: BodyReencoder()) }
        guard let reencoded = measured.reencoded, m.decodedBodyBytes != nil else { return (m.bytes.body, true) }
        if reencoded.decodedBytes == decoded { return (reencoded.encodedSize, false) }
        guard reencoded.decodedBytes > 0 else { return (m.bytes.body, true) }
        let scaled = Double(reencoded.encodedSize) * Double(decoded) / Double(reencoded.decodedBytes)
        return (Int(scaled.rounded()), true)
    }

    /// Re-encodes an encoded message's retained body with its own codings, keeps the figures in
    /// `reencoded` and drops the body (the analysis calls this as each message completes when
    /// `measureReencodedBodies` is on, with the analysis's `reencoder`).
    package static func measureReencodedBody(_ m: inout HTTPMessage, with reencoder: BodyReencoder) {
        guard let retained = m.retainedBody else { return }
        if !retained.isEmpty, let codings = ContentCoding.reencoded(m.contentEncoding),
            let size = reencoder.reencodedSize(retained, codings)
        {
            m.reencoded = (retained.count, size)
        }
        m.retainedBody = nil
    }
}

/// Where the body difference of a message goes.
package enum BodyCause: Sendable {
    /// Content coding: the body as sent vs the (re-)encoded or decoded size counted.
    case compression
    /// The length source did not report the body (naive's missing `Content-Length`).
    case bodyLength
}

/// One message as an estimator counted it, next to what was on the stream.
package struct MessageEstimate: Sendable {
    /// On the stream: start line + header block (+ interim 1xx for a response), body as sent, chunk framing.
    package var wireHead = 0
    package var wireBody = 0
    package var wireFraming = 0
    /// What the estimator counted for the head, the body and the framing.
    package var head = 0
    package var body = 0
    package var framing = 0
    /// Header bytes on the stream the estimator could not see, and cookie header bytes it did not count.
    package var hiddenHeaders = 0
    package var cookies = 0
    package var bodyCause = BodyCause.compression
    /// The re-encoded size was approximated (body not retained completely).
    package var approximated = false
    /// Encrypted: `wireBody` is the plaintext estimate; nothing else is known.
    package var isPlaintext = false
    /// The source gave one total for the message that cannot be split into head and body (an app log
    /// without its own split): `head` is that total against the whole message in `wireHead`, and the
    /// difference is `other`, never a named cause.
    package var isUnsplit = false
    /// The message went as HTTP/2 (`HTTPMessage.http2`): its head is an HPACK block (the rest of the
    /// head difference is `hpack`) and its framing is frames (`http2_framing`).
    package var isHTTP2 = false
    /// The message went as HTTP/3 (`HTTPMessage.http3`): its head is a QPACK field section (`qpack`)
    /// and its framing is HTTP/3 frame headers (`http3_framing`).
    package var isHTTP3 = false
    /// HTTP/2 or HTTP/3: the head is a compressed header block, not header text.
    package var hasCompressedHead: Bool { isHTTP2 || isHTTP3 }

    package init(wireHead: Int = 0, wireBody: Int = 0, wireFraming: Int = 0) {
        self.wireHead = wireHead
        self.wireBody = wireBody
        self.wireFraming = wireFraming
    }

    /// A message as it was on the stream (head with interim 1xx responses, body as sent, chunk
    /// framing — HTTP/2: frame headers, padding and the stream's control frames), nothing counted yet.
    static func onStream(_ m: HTTPMessage) -> MessageEstimate {
        var e = MessageEstimate(
            wireHead: m.bytes.startLine + m.bytes.headers + (m.kind == .request ? 0 : m.interimBytes),
            wireBody: m.bytes.body, wireFraming: m.bytes.framing + m.bytes.control)
        e.isHTTP2 = m.http2 != nil
        e.isHTTP3 = m.http3 != nil
        return e
    }

    /// The estimate of an encrypted message: its plaintext size.
    static func plaintext(_ m: HTTPMessage) -> MessageEstimate {
        var e = MessageEstimate(wireBody: m.bytes.body)
        e.body = m.bytes.body
        e.isPlaintext = true
        return e
    }

    /// Bytes the estimator reports.
    package var estimated: Int { head + body + framing }
    /// The HTTP bytes on the stream (plaintext estimate when encrypted).
    package var wire: Int { wireHead + wireBody + wireFraming }
}

/// An estimator's view of one exchange: the two messages (zero when missing).
package struct EstimateBreakdown: Sendable {
    /// The built-in estimator, nil for an app log's own figures.
    package var estimator: Estimator?
    package var encrypted: Bool
    package var up = MessageEstimate()
    package var down = MessageEstimate()

    package var estimate: TrafficEstimate {
        TrafficEstimate(up: up.estimated, down: down.estimated, upHeaders: up.head, upBody: up.body + up.framing,
                        downHeaders: down.head, downBody: down.body + down.framing)
    }

    package var approximated: Bool { up.approximated || down.approximated }

    /// An exchange estimated from TLS record bursts (no parsed HTTP: method and status nil).
    static func isEncrypted(_ exchange: HTTPExchange) -> Bool {
        let messages = [exchange.request, exchange.response].compactMap { $0 }
        return !messages.isEmpty && messages.allSatisfy { $0.method == nil && $0.status == nil && $0.bytes.startLine == 0 }
    }
}

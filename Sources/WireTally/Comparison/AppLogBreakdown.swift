extension EstimateBreakdown {
    /// An app log entry's own figures for one exchange, set against the stream, so its gap is explained
    /// with the same causes as the built-in estimators' (`GapAttribution`).
    ///
    /// Per message, with the log's header/body split (HAR `headersSize`/`bodySize`, curl's
    /// `size_request`/`size_upload`, our JSONL's header and body counts; a part the log does not give
    /// counts 0, as in the entry's totals, when the other is given): the head difference is
    /// `hidden_headers` on HTTP/1.x (headers the stack added, that the app did not see) and `hpack` on
    /// HTTP/2 (the HPACK block minus the app's header count: what compression saved, or what the app's
    /// rebuilt header text over- or under-counts); the body difference `compression_estimate` (an app
    /// logging decoded or re-compressed sizes); chunk framing `chunk_framing` and HTTP/2 frame bytes and
    /// connection share `http2_framing` (none when the log's body count is the body with its framing).
    /// With only a total (or a split that does not add up to it, or neither part, or an encrypted
    /// exchange whose head and body cannot be told apart), the whole HTTP-level difference is `other`.
    /// A pushed exchange is compared in down only: an entry that counts no request bytes never saw the
    /// PUSH_PROMISE (`PushedExchange.swift`).
    package init(appLog estimate: TrafficEstimate, exchange: HTTPExchange) {
        self.init(estimator: nil, encrypted: Self.isEncrypted(exchange))
        up = .appLog(total: estimate.up, head: estimate.upHeaders, body: estimate.upBody,
                     message: exchange.request, encrypted: encrypted)
        down = .appLog(total: estimate.down, head: estimate.downHeaders, body: estimate.downBody,
                       message: exchange.response, encrypted: encrypted)
        if let request = exchange.request {
            movePushPromiseDown(estimate.up == 0 ? .unseen(request) : up, of: exchange)
        }
    }
}

extension MessageEstimate {
    /// One message as an app log counted it (see `EstimateBreakdown.init(appLog:exchange:)`).
    static func appLog(total: Int, head: Int?, body: Int?, message: HTTPMessage?, encrypted: Bool) -> MessageEstimate {
        var e = MessageEstimate()
        if let message {
            e = encrypted ? .plaintext(message) : .onStream(message)
            e.body = 0
        }
        if message != nil, !encrypted, head != nil || body != nil, (head ?? 0) + (body ?? 0) == total {
            let head = head ?? 0, body = body ?? 0
            e.head = head
            // HTTP/2 and HTTP/3: the rest of the head difference is `hpack` / `qpack` (GapAttribution).
            if !e.hasCompressedHead { e.hiddenHeaders = e.wireHead - head }
            if body == e.wireBody + e.wireFraming {
                // A body count with the chunk framing (HAR's bodySize, curl's size_upload).
                e.body = e.wireBody
                e.framing = e.wireFraming
            } else {
                e.body = body
            }
            return e
        }
        e.wireHead += e.wireBody + e.wireFraming
        e.wireBody = 0
        e.wireFraming = 0
        e.head = total
        e.isUnsplit = true
        return e
    }
}

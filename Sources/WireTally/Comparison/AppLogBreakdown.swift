extension EstimateBreakdown {
    /// An app log entry's own figures for one exchange, set against the stream, so its gap is explained
    /// with the same causes as the built-in estimators'.
    ///
    /// With the log's header/body split (HAR `headersSize`/`bodySize`, our JSONL's header and body
    /// counts): the head difference is `hidden_headers` (headers the stack added, that the app did not
    /// see), the body difference `compression_estimate` (an app logging decoded or re-compressed sizes),
    /// chunk framing `chunk_framing` (none when the log's body count is the body with its framing). With only a total (or a split that does not add up to it, or an
    /// encrypted exchange whose head and body cannot be told apart), the whole HTTP-level difference is
    /// `other`.
    public init(appLog estimate: TrafficEstimate, exchange: HTTPExchange) {
        self.init(estimator: nil, encrypted: Self.isEncrypted(exchange))
        up = .appLog(total: estimate.up, head: estimate.upHeaders, body: estimate.upBody,
                     message: exchange.request, encrypted: encrypted)
        down = .appLog(total: estimate.down, head: estimate.downHeaders, body: estimate.downBody,
                       message: exchange.response, encrypted: encrypted)
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
        if let head, let body, head + body == total, !encrypted, message != nil {
            e.head = head
            e.hiddenHeaders = e.wireHead - head
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
        return e
    }
}

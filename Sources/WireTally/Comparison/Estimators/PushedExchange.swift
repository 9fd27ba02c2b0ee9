/// HTTP/2 server push in the comparison: a pushed exchange's request is the server's PUSH_PROMISE, so its
/// bytes travel down (the push side), on the associated stream, and the app never sent it.
///
/// Every source — built-in estimator or app log — compares a pushed exchange in one direction: `up`
/// counts nothing (nothing was sent; the client's own frames on a pushed stream are connection-level
/// bytes, its `connection_share`), and `down` sets the response together with the promise against the
/// down wire. What the source counts for the promise:
/// - the `http` estimator counts it, as on the stream (nginx's `$bytes_sent` of the associated stream
///   counts the PUSH_PROMISE too);
/// - the other estimators count nothing of it: an app does not see a push its stack received, so its
///   header block is `hidden_headers` and its frame bytes `http2_framing`;
/// - an app log lists a push only when the client used it (nghttp's HAR: accepted pushes, method `""`);
///   an entry that counts no request bytes did not see the promise either (as for the estimators), one
///   that does has that count set against the promise, in `down`.
extension HTTPExchange {
    /// The exchange is an HTTP/2 server push (its request came in a PUSH_PROMISE).
    package var isPushed: Bool { request?.http2?.pushedBy != nil }
}

extension EstimateBreakdown {
    /// For a pushed exchange: `up` is emptied and `promise` — what the source counted of the
    /// PUSH_PROMISE, next to its wire bytes — joins `down`. Unchanged for any other exchange.
    mutating func movePushPromiseDown(_ promise: MessageEstimate, of exchange: HTTPExchange) {
        guard exchange.isPushed else { return }
        down.add(promise)
        up = MessageEstimate()
    }
}

extension MessageEstimate {
    /// A message the app never saw (a pushed request): on the stream as it was, nothing counted, its
    /// whole head hidden.
    static func unseen(_ m: HTTPMessage) -> MessageEstimate {
        var e = onStream(m)
        e.hiddenHeaders = e.wireHead
        return e
    }

    /// Adds `other`'s wire bytes and counts to these (one direction made of two messages).
    mutating func add(_ other: MessageEstimate) {
        wireHead += other.wireHead
        wireBody += other.wireBody
        wireFraming += other.wireFraming
        head += other.head
        body += other.body
        framing += other.framing
        hiddenHeaders += other.hiddenHeaders
        cookies += other.cookies
        approximated = approximated || other.approximated
        isUnsplit = isUnsplit || other.isUnsplit
        isHTTP2 = isHTTP2 || other.isHTTP2
        isHTTP3 = isHTTP3 || other.isHTTP3
    }
}

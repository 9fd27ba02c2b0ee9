/// One HTTP/2 stream given an exchange: its two messages and how it ended.
final class HTTP2Stream {
    let id: UInt32
    let exchangeIndex: Int
    /// The client's frames on the stream carry its request (false for a pushed stream, whose request is
    /// the PUSH_PROMISE in the server's direction, and for the h2c-upgraded stream 1, whose request was
    /// HTTP/1.1).
    let clientSendsRequest: Bool
    /// Opened by a frame other than the client's HEADERS or a PUSH_PROMISE after history was lost.
    let joined: Bool
    var request: HTTP2MessageBuilder?
    var response: HTTP2MessageBuilder?
    var refused = false
    /// The stream is over but a frame or header block of it is still being read: its messages are
    /// reported once that is complete, and frames that begin meanwhile belong to no exchange.
    var closing = false
    /// The client reset the stream of its own request while the response was not complete (not a
    /// pushed stream: the client did not ask for it): the server's frames still in
    /// flight are the exchange's (`HTTP2ByteOwner.cancelledStream`).
    var cancelledByClient = false

    init(id: UInt32, exchangeIndex: Int, clientSendsRequest: Bool, joined: Bool) {
        self.id = id
        self.exchangeIndex = exchangeIndex
        self.clientSendsRequest = clientSendsRequest
        self.joined = joined
    }

    /// The message that frames of `direction` on this stream belong to, made when the first comes; nil
    /// when the direction's frames belong to no message of this stream (the client's on a pushed or
    /// upgraded stream).
    func message(for direction: FlowDirection) -> HTTP2MessageBuilder? {
        if direction == .down {
            if response == nil {
                response = HTTP2MessageBuilder(kind: .response, direction: .down, exchangeIndex: exchangeIndex, streamID: id)
            }
            return response
        }
        guard clientSendsRequest else { return nil }
        if request == nil {
            request = HTTP2MessageBuilder(kind: .request, direction: .up, exchangeIndex: exchangeIndex, streamID: id)
        }
        return request
    }

    /// Whether `message` is one of this stream's.
    func owns(_ message: HTTP2MessageBuilder?) -> Bool {
        guard let message else { return false }
        return message === request || message === response
    }

    /// The message `direction` is sending, if it began.
    func existingMessage(for direction: FlowDirection) -> HTTP2MessageBuilder? {
        direction == .down ? response : (clientSendsRequest ? request : nil)
    }

    /// Whether the stream is over: both sides ended (END_STREAM, or their direction ended), it was
    /// reset, or refused by a GOAWAY.
    func isClosed(downEnded: Bool) -> Bool {
        if closing || refused || response?.info.resetBy != nil || request?.info.resetBy != nil { return true }
        let requestDone = request?.isDone ?? true
        let responseDone = response?.isDone ?? downEnded
        return requestDone && responseDone
    }
}

/// The streams of a connection: the open ones, the ids used, and the recently closed ones (a frame on
/// one of those is late, not a stream to open, even after history was lost).
struct HTTP2StreamTable {
    private(set) var open: [UInt32: HTTP2Stream] = [:]
    /// The highest stream id the client and the server initiated.
    private(set) var highestClientID: UInt32 = 0
    private(set) var highestServerID: UInt32 = 0
    /// The 64 streams closed last: id, exchange index, whether the client's frames carried its request,
    /// and whether the client cancelled it.
    private var recentlyClosed = [(id: UInt32, exchangeIndex: Int, clientSendsRequest: Bool, cancelledByClient: Bool)](
        repeating: (0, 0, false, false), count: 64)
    private var recentlyClosedNext = 0
    private(set) var nextExchange: Int

    init(firstExchange: Int) { nextExchange = firstExchange }

    var highestID: UInt32 { max(highestClientID, highestServerID) }

    subscript(id: UInt32) -> HTTP2Stream? { open[id] }

    func wasRecentlyClosed(_ id: UInt32) -> Bool { endedStream(id) != nil }

    /// Stream `id` if it is one of the streams closed last: its exchange index, and whether the
    /// client's frames carried its request.
    func endedStream(_ id: UInt32) -> (exchangeIndex: Int, clientSendsRequest: Bool)? {
        guard id != 0, let entry = recentlyClosed.first(where: { $0.id == id }) else { return nil }
        return (entry.exchangeIndex, entry.clientSendsRequest)
    }

    /// The exchange index of stream `id` if the client cancelled it and it is closing or one of the
    /// streams closed last.
    func cancelledStream(_ id: UInt32) -> Int? {
        if let stream = open[id] { return stream.cancelledByClient ? stream.exchangeIndex : nil }
        guard id != 0, let entry = recentlyClosed.first(where: { $0.id == id }), entry.cancelledByClient else { return nil }
        return entry.exchangeIndex
    }

    /// Whether `id` is above every id its initiator used (idle, RFC 9113 §5.1.1).
    func isIdle(_ id: UInt32) -> Bool { id % 2 == 1 ? id > highestClientID : id > highestServerID }

    /// Opens stream `id` with the next exchange index (or `exchangeIndex`).
    @discardableResult
    mutating func open(_ id: UInt32, clientSendsRequest: Bool, joined: Bool, exchangeIndex: Int? = nil) -> HTTP2Stream {
        let index = exchangeIndex ?? nextExchange
        if exchangeIndex == nil { nextExchange += 1 }
        let stream = HTTP2Stream(id: id, exchangeIndex: index, clientSendsRequest: clientSendsRequest, joined: joined)
        open[id] = stream
        if id % 2 == 1 { highestClientID = max(highestClientID, id) } else { highestServerID = max(highestServerID, id) }
        return stream
    }

    mutating func close(_ stream: HTTP2Stream) {
        open[stream.id] = nil
        recentlyClosed[recentlyClosedNext] = (stream.id, stream.exchangeIndex, stream.clientSendsRequest, stream.cancelledByClient)
        recentlyClosedNext = (recentlyClosedNext + 1) % recentlyClosed.count
    }

    /// The open streams in exchange order (dictionary order is not stable).
    var openInOrder: [HTTP2Stream] { open.values.sorted { $0.exchangeIndex < $1.exchangeIndex } }
}

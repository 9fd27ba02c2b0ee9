/// Who owns a run of HTTP/2 bytes of one direction.
package enum HTTP2ByteOwner: Hashable, Sendable {
    /// A frame of a stream (HEADERS, CONTINUATION, DATA, RST_STREAM, PRIORITY, WINDOW_UPDATE on the stream,
    /// PUSH_PROMISE → the promised stream's exchange) — the exchange index the parser gave that stream.
    case exchange(Int)
    /// Connection-level bytes: the client preface, SETTINGS (and ACKs), PING, GOAWAY, stream-0 WINDOW_UPDATE,
    /// frames of unknown type, frames on streams never opened.
    case connection(HTTP2ConnectionByteKind)
    /// A WINDOW_UPDATE, RST_STREAM or PRIORITY frame on one of the 64 streams closed last, sent after the
    /// stream was over (curl resets each finished stream with STREAM_CLOSED) in a direction that had a
    /// message on it: the exchange index of that stream. The frame is reported once read
    /// (`HTTP2ParserDelegate.http2ControlFrameAfterEnd`): the stream's `control` while its exchange is
    /// held, else connection-level.
    case endedStream(Int)
    /// A frame the server sent on a stream the client had cancelled (its RST_STREAM while the response
    /// was not complete) — DATA, HEADERS, CONTINUATION still in flight when the reset was sent: the
    /// exchange index of that stream. The frame is reported once read
    /// (`HTTP2ParserDelegate.http2ControlFrameAfterEnd`).
    case cancelledStream(Int)
    /// Bytes the parser could not frame (lost sync after a gap until a frame header validates again).
    case unparsed
}

extension HTTP2ByteOwner {
    /// True for owners decided frame by frame (reported at every such frame, also after one alike):
    /// connection-level frames and the preface, and frames on streams already over.
    package var isDecidedPerFrame: Bool {
        switch self {
        case .connection, .endedStream, .cancelledStream: return true
        case .exchange, .unparsed: return false
        }
    }
}

/// A WINDOW_UPDATE, RST_STREAM or PRIORITY frame read on a stream that was already over
/// (`HTTP2ByteOwner.endedStream`), or a frame the server sent on a stream the client had cancelled
/// (`HTTP2ByteOwner.cancelledStream`).
package struct HTTP2ControlFrameAfterEnd: Hashable, Sendable {
    /// The stream's exchange index.
    package var exchange: Int
    package var direction: FlowDirection
    /// The frame type (RFC 9113 §6: 2 PRIORITY, 3 RST_STREAM, 8 WINDOW_UPDATE; after a cancel also
    /// 0 DATA, 1 HEADERS, 9 CONTINUATION).
    package var type: UInt8
    /// The whole frame: 9-byte header + payload.
    package var bytes: Int
    /// RST_STREAM's error code (nil for the other types, or when its field was lost).
    package var resetErrorCode: UInt32?
}

/// What connection-level HTTP/2 bytes are.
package enum HTTP2ConnectionByteKind: Hashable, Sendable {
    /// The client connection preface `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n` (24 bytes).
    case preface
    /// SETTINGS frames, acknowledgements included.
    case settings
    /// PING frames and their acknowledgements.
    case ping
    /// GOAWAY frames.
    case goaway
    /// WINDOW_UPDATE frames on stream 0 (the connection's flow-control window).
    case windowUpdate
    /// Frames of a type RFC 9113 does not define (extensions; ignored as the RFC requires), on any stream.
    case unknown
    /// Frames that belong to no exchange: on a stream never opened (a PRIORITY for an idle stream), on a
    /// stream already closed and not `endedStream` or `cancelledStream` (DATA still in flight after the
    /// server's reset, a frame on a
    /// stream closed before the last 64), the client's frames on a pushed stream or on the h2c-upgraded stream 1 (their request is
    /// not a message of the client's direction), frames of streams past the open-stream cap, and stream
    /// frames on stream 0 or connection frames on a stream (protocol errors).
    case other
}

/// Receives what an `HTTP2ConnectionParser` finds, in stream order per direction.
package protocol HTTP2ParserDelegate: AnyObject {
    /// From `offset` on, `direction`'s bytes belong to `owner`, until the next call for that direction.
    /// Called in stream order per direction, at every frame boundary where the owner changes and at every
    /// connection-level frame, also after one of the same kind (a frame's 9-byte header belongs to the
    /// frame's owner).
    func http2Bytes(direction: FlowDirection, from offset: Int64, owner: HTTP2ByteOwner)
    /// A message is complete (END_STREAM, or the stream reset/refused, or the connection ended → flagged
    /// `.incomplete`). Requests: the client's HEADERS(+CONTINUATION)+DATA of the stream; for a pushed stream
    /// the request is the PUSH_PROMISE's header block (direction .down, the push side). Responses: the
    /// server's HEADERS (1xx interim counted in interimCount/interimBytes like HTTP/1), DATA, trailers.
    func http2MessageFinished(_ message: consuming HTTPMessage, direction: FlowDirection)
    /// A frame reported as `.endedStream` or `.cancelledStream` was read to its end.
    func http2ControlFrameAfterEnd(_ frame: HTTP2ControlFrameAfterEnd)
    /// The client reset exchange `exchange`'s stream (RST_STREAM) at `time`, while its response was not
    /// complete: the exchange is cancelled (called when the frame is read, before the stream's messages
    /// are finished).
    func http2StreamCancelled(exchange: Int, at time: Timestamp)
}

/// h2c by `Upgrade: h2c` (RFC 9113 §3.2 / RFC 7540 §3.2): the HTTP/1.1 request that upgraded is stream 1,
/// already sent (half-closed local); its response comes as HTTP/2 on stream 1. The client preface follows the 101.
package struct HTTP2UpgradedStream: Sendable {
    /// The exchange index the HTTP/1.1 request got; stream 1 keeps it, later streams count on from it.
    package var exchangeIndex: Int
    package init(exchangeIndex: Int) { self.exchangeIndex = exchangeIndex }
}

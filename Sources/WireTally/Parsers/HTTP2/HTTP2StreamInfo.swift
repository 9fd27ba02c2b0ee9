/// What an HTTP/2 message's stream carried and what happened to it (`HTTPMessage.http2`).
///
/// The message's `HTTPByteCounts` for HTTP/2: `startLine` 0; `headers` the HPACK-encoded header block
/// fragments (HEADERS + CONTINUATION, trailers included; for a pushed stream's request the PUSH_PROMISE
/// fragment without its promised stream id); `body` the DATA payloads without pad length and padding;
/// `framing` the 9-byte frame headers, pad length bytes, padding, HEADERS priority fields (5 bytes) and
/// PUSH_PROMISE's promised stream id (4 bytes); `control` whole WINDOW_UPDATE, RST_STREAM and PRIORITY
/// frames of the stream; `total` every byte of every frame of the stream in the message's direction.
/// Interim (1xx) HEADERS blocks, with their CONTINUATIONs, go to `interimBytes`/`interimCount` instead.
package struct HTTP2StreamInfo: Hashable, Sendable {
    package var streamID: UInt32
    /// The header list as HTTP/1.1 text, what a monitor that rebuilds headers would count. Request:
    /// `METHOD SP path SP "HTTP/1.1" CRLF`, then `Host: authority CRLF` when `:authority` is present,
    /// then `name: value CRLF` for each regular field as decoded (lower-case names; a `host` field only
    /// when there is no `:authority`), then CRLF. Response: `"HTTP/1.1" SP status SP CRLF`, the
    /// regular fields, CRLF. Pseudo-headers other than these, interim responses and trailers are not
    /// counted. 0 when the header block was not decoded.
    package var headersDecodedBytes: Int
    /// The request's `:scheme` (`https`, `http`), nil for a response or when not decoded.
    package var scheme: String?
    /// The stream whose PUSH_PROMISE created this one (server push), nil otherwise.
    package var pushedBy: UInt32?
    /// RST_STREAM ended the stream: its error code and which side sent it.
    package var resetErrorCode: UInt32?
    package var resetBy: FlowDirection?
    /// The RST_STREAM came after the stream was over both ways (curl's STREAM_CLOSED after a finished
    /// transfer): nothing was cancelled.
    package var resetAfterEnd = false
    /// The stream's id is above the last stream id of a GOAWAY from the side that was to process it
    /// (the peer of its initiator): it was refused, never processed.
    package var refused: Bool
    /// A header block of this message failed to decode (HPACK error with intact state).
    package var hpackError: Bool
    /// PRIORITY frames of the stream in this direction and their bytes (included in `control`), and the
    /// bytes of HEADERS priority fields (included in `framing`).
    package var priorityFrames: Int
    package var priorityBytes: Int
    package var headersPriorityBytes: Int
    /// WINDOW_UPDATE frames of the stream in this direction (their bytes are in `control`).
    package var windowUpdateFrames: Int
    /// Frames of the stream in this direction (interim HEADERS and their CONTINUATIONs included).
    package var frames: Int
    /// Header blocks: the HEADERS/PUSH_PROMISE blocks of the message (interim and trailers included).
    package var headerBlocks: Int
    /// Padding bytes (with their pad length bytes) in DATA, HEADERS and PUSH_PROMISE frames.
    package var paddingBytes: Int

    /// Counts a PRIORITY or WINDOW_UPDATE frame of `bytes` (header included) by its kind (the caller
    /// counts its bytes as `control`).
    mutating func countControlFrame(type: UInt8, bytes: Int) {
        if type == HTTP2FrameType.priority {
            priorityFrames += 1
            priorityBytes += bytes
        } else if type == HTTP2FrameType.windowUpdate {
            windowUpdateFrames += 1
        }
    }

    package init(
        streamID: UInt32, headersDecodedBytes: Int = 0, pushedBy: UInt32? = nil, resetErrorCode: UInt32? = nil,
        resetBy: FlowDirection? = nil, refused: Bool = false, hpackError: Bool = false, priorityFrames: Int = 0,
        priorityBytes: Int = 0, headersPriorityBytes: Int = 0, windowUpdateFrames: Int = 0, frames: Int = 0,
        headerBlocks: Int = 0, paddingBytes: Int = 0
    ) {
        self.streamID = streamID
        self.headersDecodedBytes = headersDecodedBytes
        self.pushedBy = pushedBy
        self.resetErrorCode = resetErrorCode
        self.resetBy = resetBy
        self.refused = refused
        self.hpackError = hpackError
        self.priorityFrames = priorityFrames
        self.priorityBytes = priorityBytes
        self.headersPriorityBytes = headersPriorityBytes
        self.windowUpdateFrames = windowUpdateFrames
        self.frames = frames
        self.headerBlocks = headerBlocks
        self.paddingBytes = paddingBytes
    }
}

extension HTTP2StreamInfo {
    /// Counts a WINDOW_UPDATE, RST_STREAM or PRIORITY frame sent on the stream after it was over (its
    /// bytes are counted as the message's `control` as they are read; a RST_STREAM gives its code and
    /// `resetAfterEnd`).
    mutating func countControlFrameAfterEnd(_ frame: HTTP2ControlFrameAfterEnd) {
        frames += 1
        countControlFrame(type: frame.type, bytes: frame.bytes)
        guard let code = frame.resetErrorCode, resetErrorCode == nil else { return }
        resetErrorCode = code
        resetBy = frame.direction
        resetAfterEnd = true
    }
}

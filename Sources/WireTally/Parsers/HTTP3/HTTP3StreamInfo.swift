/// What an HTTP/3 message's QUIC stream carried and what happened to it (`HTTPMessage.http3`).
///
/// The message's `HTTPByteCounts` for HTTP/3: `startLine` 0; `headers` the QPACK-encoded field
/// sections (HEADERS payloads, trailers included; PUSH_PROMISE field sections too); `body` the DATA
/// payloads, plus the bytes that could not be framed after lost sync (`unframedBytes`); `framing` the
/// type and length varints of every frame, whole frames of unknown, reserved or unexpected types, and
/// PUSH_PROMISE's push id; `control` 0. `total` is every byte of the stream in the message's direction
/// (its final size when all was delivered). Interim (1xx) HEADERS frames go to
/// `interimBytes`/`interimCount` instead.
package struct HTTP3StreamInfo: Hashable, Sendable {
    /// The QUIC stream id (a client-initiated bidirectional stream: a multiple of 4).
    package var streamID: UInt64
    /// The header list as HTTP/1.1 text, defined as `HTTP2StreamInfo.headersDecodedBytes`.
    package var headersDecodedBytes = 0
    /// The request's `:scheme`, nil for a response or when not decoded.
    package var scheme: String?
    /// Frames of the stream in this direction (interim HEADERS and unknown frames included).
    package var frames = 0
    /// HEADERS frames (field sections) of the message, interim and trailers included.
    package var headerBlocks = 0
    /// Frames of unknown or reserved types (skipped, their bytes in `framing`).
    package var unknownFrames = 0
    package var unknownFrameBytes = 0
    /// PUSH_PROMISE frames (server only; their field sections are counted, not decoded).
    package var pushPromises = 0
    /// RESET_STREAM ended this direction: its error code and which side sent it.
    package var resetErrorCode: UInt64?
    package var resetBy: FlowDirection?
    /// STOP_SENDING asked the sender of this direction to stop: its error code and which side sent it.
    package var stopSendingErrorCode: UInt64?
    package var stopSendingBy: FlowDirection?
    /// A field section of the message waited for encoder-stream inserts not received yet (decoded
    /// once they came, unless `qpackError`).
    package var qpackBlocked = false
    /// A field section could not be decoded: invalid QPACK, a reference to a dynamic table whose
    /// state was lost (a gap in or an invalid encoder stream), too many or too large blocked sections,
    /// or inserts that never came.
    package var qpackError = false
    /// Frames of types not allowed on a request stream (HTTP/2-only types, SETTINGS, GOAWAY…), frames
    /// out of order (DATA before HEADERS, anything after trailers): RFC 9114 errors, counted in `framing`.
    package var unexpectedFrames = 0
    /// Bytes read without frame sync (after a gap cut a frame header), counted in `body`.
    package var unframedBytes = 0

    package init(streamID: UInt64) { self.streamID = streamID }
}

extension HTTP3StreamInfo: HTTPStreamDetails {
    static var httpVersion: String { "HTTP/3" }
    func attach(to message: inout HTTPMessage) { message.http3 = self }
}

/// One HTTP/3 message being gathered from the frames of its stream in one direction.
typealias HTTP3MessageBuilder = HTTPMessageBuilder<HTTP3StreamInfo>

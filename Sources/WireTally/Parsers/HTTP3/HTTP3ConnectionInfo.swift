/// The SETTINGS one side sent on its control stream (RFC 9114 §7.2.4; nil: not sent, the default holds).
package struct HTTP3PeerSettings: Hashable, Sendable {
    /// SETTINGS_QPACK_MAX_TABLE_CAPACITY: the largest dynamic table the side's decoder accepts.
    package var qpackMaxTableCapacity: UInt64?
    /// SETTINGS_QPACK_BLOCKED_STREAMS: how many streams may wait for inserts at its decoder.
    package var qpackBlockedStreams: UInt64?
    /// SETTINGS_MAX_FIELD_SECTION_SIZE.
    package var maxFieldSectionSize: UInt64?
    /// Every other setting by id (reserved "grease" ids included), at most `maxOtherSettings` kept.
    package var others: [UInt64: UInt64] = [:]
    /// SETTINGS frames received (a second one is a connection error; its values are still taken).
    package var frames = 0

    static let maxOtherSettings = 32
    package init() {}
}

/// Bytes of each kind of unidirectional stream (RFC 9114 §6.2), stream type varints included.
package struct HTTP3UnidirectionalBytes: Hashable, Sendable {
    package var control: Int64 = 0
    package var qpackEncoder: Int64 = 0
    package var qpackDecoder: Int64 = 0
    package var push: Int64 = 0
    /// Streams of reserved or unknown types (ignored as RFC 9114 §6.2 requires), and bytes of
    /// unidirectional streams whose type was lost in a gap.
    package var unknown: Int64 = 0
    package init() {}

    /// Every byte of the side's unidirectional streams.
    package var total: Int64 { control + qpackEncoder + qpackDecoder + push + unknown }
}

/// Connection-level facts an `HTTP3ConnectionParser` found, per direction of the sender (`.up` =
/// sent by the client).
package struct HTTP3ConnectionInfo: Hashable, Sendable {
    /// What each side announced in SETTINGS.
    package var settings = DirectionPair(HTTP3PeerSettings(), HTTP3PeerSettings())
    /// The id of the last GOAWAY each side sent (a stream id from the server, a push id from the client).
    package var goawayID = DirectionPair<UInt64?>(nil, nil)
    /// Bytes of the unidirectional streams each side opened, by stream type.
    package var unidirectionalBytes = DirectionPair(HTTP3UnidirectionalBytes(), HTTP3UnidirectionalBytes())
    /// Reserved or unknown unidirectional streams each side opened.
    package var unknownStreams = DirectionPair(0, 0)
    /// MAX_PUSH_ID and CANCEL_PUSH frames on the control streams.
    package var maxPushIDFrames = DirectionPair(0, 0)
    package var cancelPushFrames = DirectionPair(0, 0)
    /// Encoder-stream instructions of each side's QPACK encoder: inserts (Duplicate included) and
    /// Set Dynamic Table Capacity.
    package var qpackInserts = DirectionPair(0, 0)
    package var qpackCapacityChanges = DirectionPair(0, 0)
    /// Field sections each side encoded that had to wait for its inserts.
    package var qpackBlockedSections = DirectionPair(0, 0)
    /// Decoder-stream instructions each side sent about the peer's sections.
    package var qpackSectionAcknowledgments = DirectionPair(0, 0)
    package var qpackStreamCancellations = DirectionPair(0, 0)
    package var qpackInsertCountIncrements = DirectionPair(0, 0)
    /// The side's encoder stream lost bytes (a gap): its dynamic table is unknown from there.
    package var qpackEncoderStreamLost = DirectionPair(false, false)
    /// The side's encoder or decoder stream carried an invalid instruction (QPACK_ENCODER_STREAM_ERROR /
    /// QPACK_DECODER_STREAM_ERROR): its instructions are not read from there.
    package var qpackEncoderStreamError = DirectionPair(false, false)
    package var qpackDecoderStreamError = DirectionPair(false, false)
    /// Field sections that failed to decode (any reason; per message: `HTTP3StreamInfo.qpackError`).
    package var qpackSectionErrors = DirectionPair(0, 0)
    /// Blocked sections not kept because the side's peer allows fewer blocked streams
    /// (`SETTINGS_QPACK_BLOCKED_STREAMS`, at most `HTTP3ConnectionParser.maxBlockedSections`) or because
    /// the blocked sections would hold more than `HTTP3ConnectionParser.maxBlockedBytes`.
    package var qpackBlockedOverCap = DirectionPair(0, 0)
    /// Frames on control streams that RFC 9114 forbids there, or a first frame other than SETTINGS, or
    /// HTTP/2-only frame types: connection errors an endpoint would close on (the parser goes on).
    package var controlStreamErrors = DirectionPair(0, 0)
    /// Control-stream frames larger than `HTTP3ConnectionParser.maxControlFrameBytes` (skipped).
    package var oversizedControlFrames = DirectionPair(0, 0)
    /// Request streams given an exchange index.
    package var requestStreams = 0
    /// Request streams not followed because `HTTPLimits.maxOpenRequests` were open; their bytes.
    package var streamsOverCap = 0
    package var bytesOverCap: Int64 = 0
    /// Bytes on server-initiated bidirectional streams (HTTP/3 uses none: H3_STREAM_CREATION_ERROR) or
    /// sent by the wrong side of a unidirectional stream.
    package var unexpectedStreamBytes: Int64 = 0
    /// Bytes of request streams delivered after their message was over (past a RESET_STREAM's final
    /// size, after the stream's messages were reported).
    package var bytesAfterEnd: Int64 = 0
    /// A second control stream, encoder or decoder stream from one side (H3_STREAM_CREATION_ERROR): read as unknown.
    package var duplicateCriticalStreams = DirectionPair(0, 0)

    package init() {}
}

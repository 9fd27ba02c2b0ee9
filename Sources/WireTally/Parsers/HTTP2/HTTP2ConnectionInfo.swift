/// The SETTINGS one side advertised (the last value of each parameter; nil: never sent, the default holds).
package struct HTTP2PeerSettings: Hashable, Sendable {
    package var headerTableSize: UInt32?
    package var enablePush: UInt32?
    package var maxConcurrentStreams: UInt32?
    package var initialWindowSize: UInt32?
    package var maxFrameSize: UInt32?
    package var maxHeaderListSize: UInt32?
    /// SETTINGS frames sent (acknowledgements not included).
    package var frames = 0
    package init() {}
}

/// Connection-level facts an `HTTP2ConnectionParser` found, per direction of the sender.
package struct HTTP2ConnectionInfo: Hashable, Sendable {
    /// The client sent the connection preface at the start of its direction (false: the capture began
    /// mid-connection, or the preface was lost).
    package var sawPreface = false
    /// A header block failed to decode with intact HPACK state: header decoding stopped for the direction.
    package var hpackError = DirectionPair(false, false)
    /// A header block (or a decoded header list) exceeded `HTTPLimits.maxHeaderBytes`: header decoding
    /// stopped for the direction.
    package var headersTooLarge = DirectionPair(false, false)
    /// Times the direction lost frame sync (a gap across a frame header, invalid framing) and found a frame again.
    package var resynchronizations = DirectionPair(0, 0)
    /// Bytes that could not be framed (owner `.unparsed`), gaps included.
    package var unparsedBytes = DirectionPair<Int64>(0, 0)
    /// Frames longer than the receiver's SETTINGS_MAX_FRAME_SIZE (framing errors: sync was dropped there).
    package var oversizedFrames = DirectionPair(0, 0)
    /// Frames whose content breaks RFC 9113 but could be framed (a wrong fixed length, padding longer than
    /// the payload, a stream frame on stream 0, a header block interrupted by another frame…).
    package var malformedFrames = DirectionPair(0, 0)
    /// Frames of types RFC 9113 does not define.
    package var unknownFrames = DirectionPair(0, 0)
    /// Frames on streams already closed or never opened (owner `.connection(.other)`).
    package var framesOutsideStreams = DirectionPair(0, 0)
    /// The last stream id and error code of the last GOAWAY each side sent.
    package var goawayLastStreamID = DirectionPair<UInt32?>(nil, nil)
    package var goawayErrorCode = DirectionPair<UInt32?>(nil, nil)
    /// What each side advertised in its SETTINGS.
    package var settings = DirectionPair(HTTP2PeerSettings(), HTTP2PeerSettings())
    /// Streams given an exchange index.
    package var streams = 0
    /// Streams not followed because `HTTPLimits.maxOpenRequests` streams were open (their frames are
    /// `.connection(.other)`).
    package var streamsOverCap = 0

    package init() {}
}

/// The SETTINGS one side advertised (the last value of each parameter; nil: never sent, the default holds).
public struct HTTP2PeerSettings: Hashable, Sendable {
    public var headerTableSize: UInt32?
    public var enablePush: UInt32?
    public var maxConcurrentStreams: UInt32?
    public var initialWindowSize: UInt32?
    public var maxFrameSize: UInt32?
    public var maxHeaderListSize: UInt32?
    /// SETTINGS frames sent (acknowledgements not included).
    public var frames = 0
    public init() {}
}

/// Connection-level facts an `HTTP2ConnectionParser` found, per direction of the sender.
public struct HTTP2ConnectionInfo: Hashable, Sendable {
    /// The client sent the connection preface at the start of its direction (false: the capture began
    /// mid-connection, or the preface was lost).
    public var sawPreface = false
    /// A header block failed to decode with intact HPACK state: header decoding stopped for the direction.
    public var hpackError = DirectionPair(false, false)
    /// A header block (or a decoded header list) exceeded `HTTPLimits.maxHeaderBytes`: header decoding
    /// stopped for the direction.
    public var headersTooLarge = DirectionPair(false, false)
    /// Times the direction lost frame sync (a gap across a frame header, invalid framing) and found a frame again.
    public var resynchronizations = DirectionPair(0, 0)
    /// Bytes that could not be framed (owner `.unparsed`), gaps included.
    public var unparsedBytes = DirectionPair<Int64>(0, 0)
    /// Frames longer than the receiver's SETTINGS_MAX_FRAME_SIZE (framing errors: sync was dropped there).
    public var oversizedFrames = DirectionPair(0, 0)
    /// Frames whose content breaks RFC 9113 but could be framed (a wrong fixed length, padding longer than
    /// the payload, a stream frame on stream 0, a header block interrupted by another frame…).
    public var malformedFrames = DirectionPair(0, 0)
    /// Frames of types RFC 9113 does not define.
    public var unknownFrames = DirectionPair(0, 0)
    /// Frames on streams already closed or never opened (owner `.connection(.other)`).
    public var framesOutsideStreams = DirectionPair(0, 0)
    /// The last stream id and error code of the last GOAWAY each side sent.
    public var goawayLastStreamID = DirectionPair<UInt32?>(nil, nil)
    public var goawayErrorCode = DirectionPair<UInt32?>(nil, nil)
    /// What each side advertised in its SETTINGS.
    public var settings = DirectionPair(HTTP2PeerSettings(), HTTP2PeerSettings())
    /// Streams given an exchange index.
    public var streams = 0
    /// Streams not followed because `HTTPLimits.maxOpenRequests` streams were open (their frames are
    /// `.connection(.other)`).
    public var streamsOverCap = 0

    public init() {}
}

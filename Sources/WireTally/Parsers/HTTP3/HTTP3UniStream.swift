/// A unidirectional stream (RFC 9114 §6.2): its type, then what that type carries.
final class HTTP3UniStream {
    enum Kind: Equatable {
        /// The stream type varint is not complete yet.
        case pending
        case control
        case qpackEncoder
        case qpackDecoder
        /// A push stream: its push id, then frames (counted, not parsed).
        case push
        /// Reserved, unknown, or a second critical stream of its type: ignored.
        case ignored
    }

    let id: UInt64
    let sender: FlowDirection
    var kind = Kind.pending
    var typeReader = HTTP3VarIntReader()
    /// Bytes of the stream type read so far (counted once the type is known).
    var typeBytes = 0
    /// The stream offset of the next byte (gaps included).
    var position: Int64 = 0
    /// A gap made the rest unreadable: bytes are counted only.
    var lostSync = false
    /// Control stream: the frame being read, its payload gathered (when small enough to read), whether
    /// the first frame was read.
    var frames = HTTP3FrameReader()
    var payload: [UInt8] = []
    var payloadOversized = false
    var sawFirstFrame = false

    init(id: UInt64, sender: FlowDirection) {
        self.id = id
        self.sender = sender
    }
}

/// A field section (HEADERS payload) read but not applied yet: it waits for encoder-stream inserts,
/// or for an earlier section of its message that does.
struct HTTP3HeldSection {
    var bytes: [UInt8]
    /// The bytes of its frame's type and length varints (for interim responses).
    var frameHeaderBytes: Int
}

/// One direction of a request stream: its message and the frame being read.
final class HTTP3RequestSide {
    let builder: HTTP3MessageBuilder
    var reader = HTTP3FrameReader()
    /// The stream offset of the next byte (gaps included).
    var position: Int64 = 0
    /// A gap cut a frame header: the rest of the direction cannot be framed (`unframedBytes`).
    var lostSync = false
    /// The stream offset where the frame being read began.
    var frameStart: Int64 = 0
    /// The field section (HEADERS, PUSH_PROMISE after its push id) being gathered.
    var section: [UInt8] = []
    /// The section being gathered is not decoded: over the cap or cut by a gap.
    var sectionDropped = false
    /// PUSH_PROMISE: its push id varint being read.
    var pushID = HTTP3VarIntReader()
    var pushIDDone = false
    /// Sections waiting, in order; DATA that came after a waiting head, kept to replay (at most
    /// `HTTP3ConnectionParser.maxHeldBodyBytes`), and how many further DATA bytes were not kept.
    var held: [HTTP3HeldSection] = []
    var heldBody: [UInt8] = []
    var heldBodyNotKept = 0
    var heldGapBytes = 0
    /// What the sender's frames were so far (order checks): HEADERS, DATA, HEADERS after DATA (trailers).
    var sawHeaders = false
    var sawData = false
    var sawTrailers = false
    /// What the frame being read is for, where it began, which packet brought its first byte, and
    /// the bytes of its type and length varints.
    var role = HTTP3FrameRole.skipped(unknown: true)
    var frameOrigin: PacketOrigin?
    var frameHeaderBytes = 0
    /// The stream's size in this direction, from FIN or RESET_STREAM.
    var finalSize: Int64?
    /// FIN ended the direction (not a reset).
    var finished = false
    /// The message was handed to the delegate.
    var delivered = false

    init(builder: HTTP3MessageBuilder) { self.builder = builder }

    /// Whether the head's section waits: DATA is held until it is applied.
    var headPending: Bool { !builder.hasHead && !held.isEmpty }

    /// Whether every byte of the direction was read (FIN or RESET_STREAM's final size reached).
    var reachedEnd: Bool { finalSize.map { position >= $0 } ?? false }

    /// Replays the DATA held while the head waited, then counts what could not be kept.
    func releaseHeldBody(retainLimit: Int) {
        if !heldBody.isEmpty {
            heldBody.withUnsafeBytes { builder.body($0, count: $0.count, retainLimit: retainLimit) }
            heldBody = []
        }
        if heldBodyNotKept > 0 {
            builder.bodyNotInspected(count: heldBodyNotKept)
            heldBodyNotKept = 0
        }
        if heldGapBytes > 0 {
            builder.body(nil, count: heldGapBytes, retainLimit: retainLimit)
            heldGapBytes = 0
        }
    }
}

/// What the payload of the frame being read on a request stream is counted as.
enum HTTP3FrameRole: Equatable {
    case data
    case headers
    /// PUSH_PROMISE from the server: a push id (framing), then a field section (headers, not decoded).
    case pushPromise
    /// A whole frame counted as framing: unknown or reserved (`unknown`), or not allowed here.
    case skipped(unknown: Bool)
}

/// Up to 16 bytes kept inline (a frame header being gathered, a frame's fixed fields, the bytes that
/// may start a frame while resynchronising): no allocation.
struct HTTP2ByteScratch {
    static let capacity = 16
    private var storage: (UInt64, UInt64) = (0, 0)
    private(set) var count = 0

    mutating func append(_ byte: UInt8) {
        guard count < Self.capacity else { return }
        withUnsafeMutableBytes(of: &storage) { $0[count] = byte }
        count += 1
    }

    mutating func removeAll() { count = 0 }

    /// Drops the first `n` bytes.
    mutating func removeFirst(_ n: Int) {
        let n = min(n, count)
        withUnsafeMutableBytes(of: &storage) { raw in
            for index in 0..<(count - n) { raw[index] = raw[index + n] }
        }
        count -= n
    }

    subscript(index: Int) -> UInt8 {
        withUnsafeBytes(of: storage) { index >= 0 && index < count ? $0[index] : 0 }
    }

    /// Big-endian number of `length` bytes (≤ 4) from `index`; 0 where bytes are missing.
    func uint32(at index: Int, length: Int = 4) -> UInt32 {
        var value: UInt32 = 0
        for position in index..<(index + length) { value = value << 8 | UInt32(self[position]) }
        return value
    }

    func withBytes<Result>(_ body: (UnsafePointer<UInt8>, Int) -> Result) -> Result {
        var copy = storage
        return withUnsafeBytes(of: &copy) { body($0.baseAddress!.assumingMemoryBound(to: UInt8.self), count) }
    }
}

/// How the bytes of the frame being read count.
enum HTTP2FrameRole {
    /// DATA of a message: content is body.
    case data
    /// HEADERS, PUSH_PROMISE or CONTINUATION: content is header block fragment.
    case headerBlock
    /// RST_STREAM, PRIORITY or WINDOW_UPDATE of a message: every byte is control.
    case control
    /// A connection-level frame, or a frame that belongs to no message.
    case connection
}

/// The frame being read in one direction.
struct HTTP2FrameProgress {
    var header: HTTP2FrameHeader
    /// Offset and packet of the header's first byte.
    var start: Int64
    var origin: PacketOrigin
    var role: HTTP2FrameRole
    /// The message the frame's bytes count for (nil: none).
    var message: HTTP2MessageBuilder?
    /// Payload bytes read (or lost in a gap).
    var consumed = 0
    /// Pad length byte and fixed fields before the content (PRIORITY, RST_STREAM… are all fields).
    var fieldsLength: Int
    var fields = HTTP2ByteScratch()
    var fieldsLost = false
    /// Where the padding begins in the payload (the payload's length until the pad length is known).
    var contentEnd: Int
    /// PUSH_PROMISE: the owner is the promised stream's, known once its id is read.
    var ownerPending = false
    /// A control frame on a stream already over (`HTTP2ByteOwner.endedStream`): that stream's exchange.
    var endedStreamExchange: Int?
    /// SETTINGS: the entry being read.
    var entry = HTTP2ByteScratch()

    init(header: HTTP2FrameHeader, start: Int64, origin: PacketOrigin, role: HTTP2FrameRole, message: HTTP2MessageBuilder?) {
        self.header = header
        self.start = start
        self.origin = origin
        self.role = role
        self.message = message
        let padded = header.has(HTTP2Flags.padded) ? 1 : 0
        switch header.type {
        case HTTP2FrameType.data: fieldsLength = padded
        case HTTP2FrameType.headers: fieldsLength = padded + (header.has(HTTP2Flags.priority) ? 5 : 0)
        case HTTP2FrameType.pushPromise: fieldsLength = padded + 4
        case HTTP2FrameType.priority: fieldsLength = 5
        case HTTP2FrameType.rstStream, HTTP2FrameType.windowUpdate: fieldsLength = 4
        case HTTP2FrameType.goaway: fieldsLength = 8
        default: fieldsLength = 0
        }
        contentEnd = header.length
    }

    var isComplete: Bool { consumed >= header.length }
    var end: Int64 { start + Int64(header.frameSize) }
    var fieldsComplete: Bool { consumed >= fieldsLength && !fieldsLost }
    var padded: Bool {
        header.has(HTTP2Flags.padded)
            && (header.type == HTTP2FrameType.data || header.type == HTTP2FrameType.headers
                || header.type == HTTP2FrameType.pushPromise)
    }
}

/// A header block awaiting its CONTINUATION frames.
struct HTTP2PendingBlock {
    /// The stream the CONTINUATIONs must be on (the HEADERS or PUSH_PROMISE frame's).
    var streamID: UInt32
    var owner: HTTP2ByteOwner
    var message: HTTP2MessageBuilder?
    /// The HEADERS frame carried END_STREAM (it takes effect once the block is complete).
    var endStream: Bool
    /// The block's bytes counted so far in the message's `headers` and `framing`.
    var headerBytes = 0
    var framingBytes = 0
}

/// How a direction is being read.
enum HTTP2ReadPhase {
    /// The client preface, `matched` bytes of it seen.
    case preface(matched: Int)
    /// A frame header (in `scratch` while it is gathered).
    case frameHeader
    /// The payload of `frame`.
    case payload
    /// Sync lost: looking for a frame header (`scratch` holds bytes that may begin one).
    case seeking
    /// The direction ended.
    case ended
}

/// One direction of an HTTP/2 connection as the parser reads it.
final class HTTP2DirectionState {
    let direction: FlowDirection
    var phase: HTTP2ReadPhase
    /// Nothing fed yet (the first byte fed starts the direction, whatever its offset).
    var started = false
    /// The next offset expected.
    var position: Int64 = 0
    /// Bytes gathered for a frame header (or a possible one while seeking), from `scratchStart`.
    var scratch = HTTP2ByteScratch()
    var scratchStart: Int64 = 0
    var scratchOrigin = PacketOrigin(frameNumber: 0, timestamp: Timestamp(nanoseconds: 0))
    var frame: HTTP2FrameProgress?
    var pendingBlock: HTTP2PendingBlock?
    var hpack: HTTP2HeaderBlockDecoder
    /// The owner last reported (nil before the first).
    var owner: HTTP2ByteOwner?
    /// Seeking: the first unparsed byte (reported as `.unparsed` unless a frame starts right there).
    var unparsedStart: Int64 = 0
    var unparsedReported = false
    /// Seeking at the start of the direction (no preface): the first byte may start a frame.
    var seekingAtStart = false
    /// The largest frame this direction may send: the receiver's SETTINGS_MAX_FRAME_SIZE.
    var maxFrameSize = HTTP2FrameHeader.defaultMaxFrameSize
    var totals = HTTP2FrameTotals()
    /// No frame header was read yet (the server's first frame must be SETTINGS).
    var beforeFirstFrame = true

    init(direction: FlowDirection, maxHeaderBytes: Int) {
        self.direction = direction
        phase = direction == .up ? .preface(matched: 0) : .seeking
        seekingAtStart = direction == .down
        hpack = HTTP2HeaderBlockDecoder(maxHeaderBytes: maxHeaderBytes, intact: true)
    }

    /// Where the bytes whose owner is not decided yet begin, nil when every byte fed has its owner.
    var undecidedOffset: Int64? {
        switch phase {
        case .preface(let matched): return matched > 0 ? position - Int64(matched) : nil
        case .frameHeader, .seeking: return scratch.count > 0 ? scratchStart : nil
        case .payload: return frame?.ownerPending == true ? frame?.start : nil
        case .ended: return nil
        }
    }
}

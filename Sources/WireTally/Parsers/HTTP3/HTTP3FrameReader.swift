/// Frames one direction of an HTTP/3 stream incrementally (RFC 9114 §7.1: type varint, length varint,
/// payload), however the bytes are split. Pull-based: `next` returns one event at a time; payload
/// bytes are handed out in place, never kept.
struct HTTP3FrameReader {
    enum Event {
        /// A frame begins: its type, payload length and the bytes of the two varints.
        case header(type: UInt64, length: UInt64, headerBytes: Int)
        /// Payload bytes of the current frame, in place.
        case payload(UnsafeRawBufferPointer)
        /// The current frame's payload is complete.
        case end
        /// Every byte given was read: more are needed (`bytesNeeded` at least).
        case needMore
    }

    private enum Phase {
        case type
        case length
        case payload
    }

    private var phase = Phase.type
    private var varint = HTTP3VarIntReader()
    /// The current frame (valid from its header on).
    private(set) var type: UInt64 = 0
    private(set) var length: UInt64 = 0
    private var headerBytes = 0
    /// Payload bytes of the current frame not read yet.
    private(set) var remaining: UInt64 = 0

    /// Bytes of the frame header begun but not complete.
    var partialHeaderBytes: Int { phase == .payload ? 0 : headerBytes }

    /// Whether a frame's payload is being read (its header is complete).
    var inPayload: Bool { phase == .payload }

    /// Whether the reader stands between frames (no byte of a frame header read).
    var atFrameBoundary: Bool { phase == .type && varint.count == 0 }

    /// Bytes still needed before the next event: the rest of a varint, or of the payload.
    var bytesNeeded: Int {
        phase == .payload ? Int(clamping: remaining) : varint.bytesNeeded
    }

    /// The next event from `p[i...]`, advancing `i` past the bytes it covers.
    mutating func next(_ p: UnsafeRawBufferPointer, _ i: inout Int) -> Event {
        if phase == .payload {
            if remaining == 0 {
                phase = .type
                return .end
            }
            guard i < p.count else { return .needMore }
            let take = Int(min(remaining, UInt64(p.count - i)))
            remaining -= UInt64(take)
            defer { i += take }
            return .payload(UnsafeRawBufferPointer(rebasing: p[i..<i + take]))
        }
        while i < p.count {
            let byte = p[i]
            i += 1
            headerBytes += 1
            guard let value = varint.feed(byte) else { continue }
            if phase == .type {
                type = value
                phase = .length
                continue
            }
            length = value
            remaining = value
            phase = .payload
            defer { headerBytes = 0 }
            return .header(type: type, length: length, headerBytes: headerBytes)
        }
        return .needMore
    }

    /// `count` bytes of the current payload were lost (at most `remaining`).
    mutating func skipPayload(_ count: Int) {
        remaining -= UInt64(min(max(count, 0), Int(clamping: remaining)))
    }
}

/// Where a message's texts — its start line's method, target, reason phrase and version, and its
/// `Content-Encoding` — lie in a run of UTF-8 bytes holding them back to back.
///
/// A message keeps the bytes in its own allocation, after its header fields (`HTTPMessage`), instead of
/// a `String` apiece: the parser makes no `String` per message (the target's was an allocation and a
/// UTF-8 check), and freeing the message releases none. A text becomes a `String` only when read.
/// The bytes are valid UTF-8 (the parser stores what is not as `String(decoding:as:)` repairs it), so a
/// text read as bytes is the UTF-8 of the `String` read.
struct HTTPMessageTexts: Sendable {
    /// The texts a message has.
    enum Slot: CaseIterable {
        case method, target, reason, version, contentEncoding
    }

    /// The texts as `String`s (nil: none), one per slot.
    struct Strings {
        var method, target, reason, version, contentEncoding: String?

        subscript(slot: Slot) -> String? {
            get {
                switch slot {
                case .method: method
                case .target: target
                case .reason: reason
                case .version: version
                case .contentEncoding: contentEncoding
                }
            }
            set {
                switch slot {
                case .method: method = newValue
                case .target: target = newValue
                case .reason: reason = newValue
                case .version: version = newValue
                case .contentEncoding: contentEncoding = newValue
                }
            }
        }
    }

    /// Where a text's bytes start and how many there are; a count of -1: no text (nil).
    private struct Span {
        var start: Int32 = 0
        var count: Int32 = -1
    }

    private var method = Span(), target = Span(), reason = Span(), version = Span(), contentEncoding = Span()

    /// Bytes of all the texts together.
    private(set) var byteCount = 0

    /// No texts.
    init() {}

    private subscript(slot: Slot) -> Span {
        get {
            switch slot {
            case .method: method
            case .target: target
            case .reason: reason
            case .version: version
            case .contentEncoding: contentEncoding
            }
        }
        set {
            switch slot {
            case .method: method = newValue
            case .target: target = newValue
            case .reason: reason = newValue
            case .version: version = newValue
            case .contentEncoding: contentEncoding = newValue
            }
        }
    }

    /// Counts `count` bytes more after the ones described so far (where texts will be found).
    mutating func appendBytes(count: Int) {
        byteCount &+= count
    }

    /// Makes the `count` bytes from `start` (counted already) the text of `slot`, replacing what it had
    /// (those bytes stay, unread).
    mutating func setText(_ slot: Slot, start: Int, count: Int) {
        self[slot] = Span(start: Int32(truncatingIfNeeded: start), count: Int32(truncatingIfNeeded: count))
    }

    /// Makes the `count` bytes after the ones described so far the text of `slot`.
    mutating func appendText(_ slot: Slot, count: Int) {
        setText(slot, start: byteCount, count: count)
        appendBytes(count: count)
    }

    /// Where `strings` lie once `write(_:to:)` has written them.
    init(_ strings: Strings) {
        for slot in Slot.allCases {
            if let text = strings[slot] { appendText(slot, count: text.utf8.count) }
        }
    }

    /// Writes `strings` (this value's `init(_:)` argument) at `target`, `byteCount` bytes.
    func write(_ strings: Strings, to target: UnsafeMutableRawPointer) {
        for slot in Slot.allCases {
            guard var text = strings[slot] else { continue }
            let start = Int(self[slot].start)
            text.withUTF8 { if let bytes = $0.baseAddress { (target + start).copyMemory(from: bytes, byteCount: $0.count) } }
        }
    }

    /// The bytes of `slot`'s text among `bytes` (the `byteCount` bytes this value describes), nil when
    /// the message has none.
    func bytes(_ slot: Slot, in bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        let span = self[slot]
        guard span.count >= 0 else { return nil }
        return UnsafeRawBufferPointer(rebasing: bytes[Int(span.start)..<Int(span.start) &+ Int(span.count)])
    }

    /// `slot`'s text among `bytes` (the `byteCount` bytes this value describes) as a `String`: the
    /// common tokens are the literals they equal (`HTTP1Syntax.token`).
    func string(_ slot: Slot, in bytes: UnsafeRawBufferPointer) -> String? {
        self.bytes(slot, in: bytes).map { HTTP1Syntax.token($0, 0..<$0.count) }
    }

    /// Whether every byte is below 0x80 (eight at a time): such a text is stored as it is.
    static func isASCII(_ text: UnsafeRawBufferPointer) -> Bool {
        guard let start = text.baseAddress else { return true }
        var index = 0, high: UInt64 = 0
        while index &+ 8 <= text.count {
            high |= start.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index &+= 8
        }
        while index < text.count {
            high |= UInt64(start.load(fromByteOffset: index, as: UInt8.self))
            index &+= 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }
}

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
    enum Slot: Int, CaseIterable {
        case method, target, reason, version, contentEncoding
    }

    /// The texts as `String`s (nil: none), at their slots' raw values (an array: an `InlineArray` of
    /// optional strings was destroyed once too often in debug builds, Swift 6.3.1).
    typealias Strings = [String?]

    /// Per slot (at its raw value), where its bytes start (the low 32 bits) and how many there are (the
    /// high 32 bits; all ones: no text, nil). Plain integers: the message's fields stay trivial to copy.
    private var spans: (UInt64, UInt64, UInt64, UInt64, UInt64) = (Self.none, Self.none, Self.none, Self.none, Self.none)

    private static var none: UInt64 { UInt64(UInt32.max) << 32 }

    /// The span of `slot`: where its bytes start, and how many (-1: none). Inlined, so a slot known where
    /// it is read is one load.
    @inline(__always)
    private func span(_ slot: Slot) -> (start: Int, count: Int) {
        let span = withUnsafeBytes(of: spans) { $0.load(fromByteOffset: slot.rawValue &* 8, as: UInt64.self) }
        return (Int(UInt32(truncatingIfNeeded: span)), Int(Int32(truncatingIfNeeded: span >> 32)))
    }

    /// Bytes of all the texts together.
    private(set) var byteCount = 0

    /// No texts.
    init() {}

    /// Counts `count` bytes more after the ones described so far (where texts will be found).
    mutating func appendBytes(count: Int) {
        byteCount &+= count
    }

    /// Makes the `count` bytes from `start` (counted already) the text of `slot`, replacing what it had
    /// (those bytes stay, unread).
    mutating func setText(_ slot: Slot, start: Int, count: Int) {
        let span = UInt64(UInt32(truncatingIfNeeded: start)) | UInt64(UInt32(truncatingIfNeeded: count)) << 32
        withUnsafeMutableBytes(of: &spans) { $0.storeBytes(of: span, toByteOffset: slot.rawValue &* 8, as: UInt64.self) }
    }

    /// Makes the `count` bytes after the ones described so far the text of `slot`.
    mutating func appendText(_ slot: Slot, count: Int) {
        setText(slot, start: byteCount, count: count)
        appendBytes(count: count)
    }

    /// Where `strings` lie once `write(_:to:)` has written them.
    init(_ strings: Strings) {
        for slot in Slot.allCases {
            if let text = strings[slot.rawValue] { appendText(slot, count: text.utf8.count) }
        }
    }

    /// Writes `strings` (this value's `init(_:)` argument) at `target`, `byteCount` bytes.
    func write(_ strings: Strings, to target: UnsafeMutableRawPointer) {
        for slot in Slot.allCases {
            guard var text = strings[slot.rawValue] else { continue }
            let start = span(slot).start
            text.withUTF8 { if let bytes = $0.baseAddress { (target + start).copyMemory(from: bytes, byteCount: $0.count) } }
        }
    }

    /// The bytes of `slot`'s text among `bytes` (the `byteCount` bytes this value describes), nil when
    /// the message has none.
    @inline(__always)
    func bytes(_ slot: Slot, in bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        let span = span(slot)
        guard span.count >= 0 else { return nil }
        return UnsafeRawBufferPointer(rebasing: bytes[span.start..<span.start &+ span.count])
    }

    /// `slot`'s text among `bytes` (the `byteCount` bytes this value describes) as a `String`: the
    /// common tokens are the literals they equal (`HTTP1Syntax.token`).
    @inline(__always)
    func string(_ slot: Slot, in bytes: UnsafeRawBufferPointer) -> String? {
        self.bytes(slot, in: bytes).map { HTTP1Syntax.token($0, 0..<$0.count) }
    }
}

/// The header fields the parser acts on once a header block is complete (body framing, upgrades,
/// content codings), recognised from the raw bytes of each header line as it is parsed, so the block
/// need not be searched by name afterwards.
enum NotableHeader {
    case transferEncoding
    case contentLength
    case upgrade
    case contentEncoding

    /// The notable header a header name (raw bytes, any case) names; nil for any other name.
    init?(name: UnsafeRawBufferPointer) {
        switch name.count {
        case 17 where Self.matches(name, "transfer-encoding"): self = .transferEncoding
        case 14 where Self.matches(name, "content-length"): self = .contentLength
        case 7 where Self.matches(name, "upgrade"): self = .upgrade
        case 16 where Self.matches(name, "content-encoding"): self = .contentEncoding
        default: return nil
        }
    }

    /// Whether `name` equals `literal` — lower-case letters and `-` only, of `name`'s length, at least
    /// 4 bytes — with letters in any case, as `HTTP1Syntax.bytesEqual` decides it, a word at a time:
    /// each name word OR-ed with 0x20 in the literal's letter bytes must equal the literal's word. That
    /// is exact: only a letter's two cases give a lower-case letter when OR-ed with 0x20, and `-` is
    /// compared as it is.
    private static func matches(_ name: UnsafeRawBufferPointer, _ literal: StaticString) -> Bool {
        let count = name.count
        let bytes = name.baseAddress!, text = UnsafeRawPointer(literal.utf8Start)
        func same<Word: FixedWidthInteger>(_: Word.Type, at offset: Int) -> Bool {
            let expected = text.loadUnaligned(fromByteOffset: offset, as: Word.self)
            // 0x20 in the bytes whose literal byte has bit 0x40 (the letters; `-` is 0x2d)
            let letters = (expected & Word(truncatingIfNeeded: 0x4040_4040_4040_4040 as UInt64)) &>> 1
            return bytes.loadUnaligned(fromByteOffset: offset, as: Word.self) | letters == expected
        }
        guard count >= 8 else { return same(UInt32.self, at: 0) && same(UInt32.self, at: count - 4) }
        var offset = 0
        while offset + 8 < count {
            guard same(UInt64.self, at: offset) else { return false }
            offset += 8
        }
        return same(UInt64.self, at: count - 8)
    }
}

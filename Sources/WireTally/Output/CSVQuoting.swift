/// RFC 4180's rule for a CSV cell: one holding a comma, a quote, CR or LF is put in quotes. The one
/// place the rule is spelled: a test of eight bytes at a time (`quoteBits`), used for a whole cell
/// (`needsQuotes`) and for the two words of a small string (`CSVRowEncoder`).
enum CSVQuoting {
    /// Non-zero exactly when one of the eight bytes of `word` is `,` `"` LF or CR. They are all below
    /// `-`, so a word of digits, letters, `.`, `/`, `:` … is told apart by one test.
    @inline(__always)
    static func quoteBits(_ word: UInt64) -> UInt64 {
        guard word.bytesBelow(UInt8(ascii: "-")) != 0 else { return 0 }
        return bytesEqual(word, UInt8(ascii: ",")) | bytesEqual(word, UInt8(ascii: "\""))
            | bytesEqual(word, UInt8(ascii: "\n")) | bytesEqual(word, UInt8(ascii: "\r"))
    }

    /// Whether `cell` holds a byte to quote: eight bytes at a time, the last eight of a cell at least
    /// that long overlapping the ones before, a shorter one's bytes as one word with `-` after them.
    static func needsQuotes(_ cell: UnsafeRawBufferPointer) -> Bool {
        let count = cell.count
        guard count >= 8 else {
            var word = 0x0101_0101_0101_0101 &* UInt64(UInt8(ascii: "-"))
            for (index, byte) in cell.enumerated() {
                let shift = UInt64(truncatingIfNeeded: index) &* 8
                word = word & ~(0xFF << shift) | UInt64(byte) << shift
            }
            return quoteBits(word) != 0
        }
        var index = 0
        while index &+ 8 <= count {
            if quoteBits(cell.loadUnaligned(fromByteOffset: index, as: UInt64.self)) != 0 { return true }
            index &+= 8
        }
        return index < count && quoteBits(cell.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)) != 0
    }

    /// Non-zero exactly when one of the eight bytes of `word` is `byte`.
    @inline(__always)
    private static func bytesEqual(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        (word ^ 0x0101_0101_0101_0101 &* UInt64(byte)).bytesBelow(1)
    }
}

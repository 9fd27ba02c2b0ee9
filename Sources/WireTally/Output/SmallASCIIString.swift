/// The bytes of a `String` the standard library holds inline as a small ASCII string (at most 15
/// bytes: `GET`, `HTTP/1.1`, `Not Modified`, `gzip` — most texts a record has), read from the string
/// value itself as two words, so the text encoders copy them with two stores instead of asking for the
/// string's UTF-8 through a closure (which spills a small string to the stack first).
///
/// The standard library's string ABI on 64-bit little-endian platforms: a small string keeps its first
/// eight bytes in the value's first word and the next seven in the low bytes of the second, whose top
/// byte is the discriminator (`0xE` in its high four bits: immortal, ASCII, small) and the count, with
/// the unused bytes zero. No other form of string has that discriminator, so any other string (large,
/// not ASCII, bridged) gives nil and is read the ordinary way.
struct SmallASCIIString {
    /// The first eight bytes, in memory order (zero past `count`).
    let low: UInt64
    /// Bytes 8 to 14, in memory order, and a zero top byte (zero past `count`).
    let high: UInt64
    /// How many bytes (0...15).
    let count: Int

    /// The most bytes a small string has.
    static var maximumCount: Int { 15 }

    /// `string`'s bytes when it is a small ASCII string; nil for any other.
    @inline(__always)
    init?(_ string: String) {
        #if _endian(little) && (arch(x86_64) || arch(arm64))
        let words = unsafeBitCast(string, to: (UInt64, UInt64).self)
        let discriminator = words.1 >> 56
        guard discriminator >> 4 == 0xE else { return nil }
        low = words.0
        high = words.1 & 0x00FF_FFFF_FFFF_FFFF
        count = Int(discriminator & 0x0F)
        #else
        return nil
        #endif
    }

    /// Stores the 16 bytes of the two words at `destination` (room for 16): the string, then zeros.
    @inline(__always)
    func store(to destination: UnsafeMutablePointer<UInt8>) {
        let to = UnsafeMutableRawPointer(destination)
        to.storeBytes(of: low.littleEndian, as: UInt64.self)
        to.storeBytes(of: high.littleEndian, toByteOffset: 8, as: UInt64.self)
    }

    /// The two words with every byte past `count` made `filler` (for word-wise tests of the string's
    /// bytes alone).
    @inline(__always)
    func words(fillingWith filler: UInt8) -> (low: UInt64, high: UInt64) {
        let bits = UInt64(truncatingIfNeeded: count) &* 8
        // (smart shifts: 1 << 64 and more is 0, so a full word's mask is all ones)
        let lowMask: UInt64 = (1 << bits) &- 1
        let highMask: UInt64 = count > 8 ? (1 << (bits &- 64)) &- 1 : 0
        let fill = 0x0101_0101_0101_0101 &* UInt64(filler)
        return (low & lowMask | fill & ~lowMask, high & highMask | fill & ~highMask)
    }
}

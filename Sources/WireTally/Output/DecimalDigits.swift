/// Decimal digits stored straight into memory, two at a time, for the formatters that write
/// byte-wise (`JSONTextEncoder`, `CSVRowEncoder`, `Timestamp`), without building `String`s.
///
/// Callers make room first (`ByteBuffer.freeSpace(atLeast:)`); nothing here checks bounds.
enum DecimalDigits {
    /// The most bytes `write(_:to:)` stores: a minus sign and 19 digits (`Int.min`).
    static let maximumIntegerCount = 20

    /// Stores `value` in decimal (with `-` when negative) at `destination`; returns how many bytes
    /// it stored (at most `maximumIntegerCount`; the 4 bytes at `destination` may be written for a
    /// shorter number).
    @inline(__always)
    static func write(_ value: Int, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        if UInt(bitPattern: value) < 10 {  // the most frequent integers: counts of nothing or a few
            destination.pointee = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value)
            return 1
        }
        if UInt(bitPattern: value) < 10_000 {  // most byte counts of small exchanges
            return writeOneToFourDigits(UInt32(truncatingIfNeeded: value), to: destination)
        }
        if UInt(bitPattern: value) < 100_000_000 {  // byte counts of exchanges of 10 kB and more
            let low8 = UInt32(truncatingIfNeeded: value)
            let high = low8 / 10_000
            let leading = writeOneToFourDigits(high, to: destination)
            writeFourDigits(low8 &- high &* 10_000, to: destination + leading)
            return leading &+ 4
        }
        let magnitude = UInt64(value.magnitude)
        destination.pointee = UInt8(ascii: "-")
        let sign = value < 0 ? 1 : 0
        let digits = count(of: magnitude)
        writePadded(magnitude, width: digits, endingAt: destination + sign + digits)
        return sign + digits
    }

    /// The most bytes `writeMilliseconds(_:to:)` stores: a sign, the whole milliseconds, a point and
    /// three decimals.
    static let maximumMillisecondsCount = maximumIntegerCount + 4

    /// Stores `nanoseconds` as milliseconds with microsecond resolution (`12.345`, `-0.001`) at
    /// `destination`; returns how many bytes it stored (at most `maximumMillisecondsCount`).
    @inline(__always)
    static func writeMilliseconds(_ nanoseconds: Int64, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        let microseconds = nanoseconds / 1000
        destination.pointee = UInt8(ascii: "-")
        let sign = microseconds < 0 ? 1 : 0
        let magnitude = microseconds.magnitude
        let whole = sign + write(Int(magnitude / 1000), to: destination + sign)
        // the point and the three decimals in one 4-byte store
        let thousandths = UInt32(truncatingIfNeeded: magnitude % 1000)
        let text = UInt32(UInt8(ascii: ".")) | digitPair(thousandths / 10) &<< 8
            | (UInt32(UInt8(ascii: "0")) &+ thousandths % 10) &<< 24
        UnsafeMutableRawPointer(destination + whole).storeBytes(of: text.littleEndian, as: UInt32.self)
        return whole + 4
    }

    /// Stores a duration of `nanoseconds` as `writeMilliseconds` does, or `-1` for none (HAR's "does not
    /// apply"); returns how many bytes it stored (at most `maximumMillisecondsCount`).
    @inline(__always)
    static func writeDuration(_ nanoseconds: Int64?, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        guard let nanoseconds else {
            destination[0] = UInt8(ascii: "-")
            destination[1] = UInt8(ascii: "1")
            return 2
        }
        return writeMilliseconds(nanoseconds, to: destination)
    }

    /// Stores `value` (below 10^9: a second's nanoseconds) as exactly nine digits, with leading zeros, at
    /// `destination`: one digit, then four and four by one store each.
    @inline(__always)
    static func writeNineDigits(_ value: UInt32, to destination: UnsafeMutablePointer<UInt8>) {
        let first = value / 100_000_000
        let rest = value &- first &* 100_000_000
        let high = rest / 10_000
        destination.pointee = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: first)
        writeFourDigits(high, to: destination + 1)
        writeFourDigits(rest &- high &* 10_000, to: destination + 5)
    }

    /// Stores `value` (1...9999) at `destination` with one 4-byte store, whatever its length: its two
    /// digit pairs, the leading zero digits shifted out (what follows a shorter number is overwritten
    /// by what is written next); returns how many digits it has.
    @inline(__always)
    private static func writeOneToFourDigits(_ value: UInt32, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        let digits = value >= 1000 ? 4 : value >= 100 ? 3 : value >= 10 ? 2 : 1
        UnsafeMutableRawPointer(destination).storeBytes(
            of: (fourDigits(value) &>> (8 &* UInt32(truncatingIfNeeded: 4 &- digits))).littleEndian, as: UInt32.self)
        return digits
    }

    /// Stores `value` (below 10,000) as exactly four digits, with leading zeros, in one 4-byte store.
    @inline(__always)
    private static func writeFourDigits(_ value: UInt32, to destination: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(destination).storeBytes(of: fourDigits(value).littleEndian, as: UInt32.self)
    }

    /// The four digits of `value` (below 10,000), leading zeros included, as the word whose bytes hold
    /// them in memory order from the lowest: the high pair, then the low pair.
    @inline(__always)
    private static func fourDigits(_ value: UInt32) -> UInt32 {
        digitPair(value / 100) | digitPair(value % 100) &<< 16
    }

    /// The two digits of `value` (below 100) as the word whose two low bytes hold them in memory order.
    @inline(__always)
    private static func digitPair(_ value: UInt32) -> UInt32 {
        let pairs = UnsafeRawPointer(digitPairs.utf8Start)
        return UInt32(UInt16(littleEndian: pairs.loadUnaligned(fromByteOffset: 2 &* Int(value), as: UInt16.self)))
    }

    /// How many decimal digits `value` has (1 for zero).
    static func count(of value: UInt64) -> Int {
        var digits = 1
        var threshold: UInt64 = 10
        // 10^19 still fits a UInt64, and no UInt64 has more than 20 digits.
        while value >= threshold {
            digits += 1
            if digits == 20 { break }
            threshold *= 10
        }
        return digits
    }

    /// Stores `value` (below `10^width`) as exactly `width` decimal digits, with leading zeros, in the
    /// `width` bytes before `end`.
    @inline(__always)
    static func writePadded(_ value: UInt64, width: Int, endingAt end: UnsafeMutablePointer<UInt8>) {
        var value = value
        var end = end
        var remaining = width
        let pairs = UnsafeRawPointer(digitPairs.utf8Start)
        while remaining >= 2 {
            let pair = Int(truncatingIfNeeded: value % 100)
            value /= 100
            end -= 2
            UnsafeMutableRawPointer(end).storeBytes(
                of: pairs.loadUnaligned(fromByteOffset: 2 * pair, as: UInt16.self), as: UInt16.self
            )
            remaining -= 2
        }
        if remaining == 1 { (end - 1).pointee = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value) }
    }

    /// `00`, `01`, … `99`: the two digits of each number below 100.
    private static var digitPairs: StaticString {
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
    }
}

/// A capture timestamp: nanoseconds since the Unix epoch (UTC).
///
/// Every reader converts its file's resolution (micro, nano, or a pcapng `if_tsresol`) to nanoseconds;
/// `PacketSource.timestampDigits` says how many decimals the capture really has.
package struct Timestamp: Hashable, Comparable, Sendable, BitwiseCopyable {
    /// Nanoseconds since 1970-01-01T00:00:00Z.
    package var nanoseconds: Int64

    package init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    /// The range every capture reader keeps packet timestamps in: ±2^62 ns, about 146 years either
    /// side of 1970 (pcap's unsigned 32-bit seconds fit). The difference of two such timestamps, or
    /// one plus a timeout, never overflows `Int64`, so durations can be computed without trapping.
    package static let readableNanoseconds: ClosedRange<Int64> = -(1 << 62)...(1 << 62)

    /// This timestamp clamped into `readableNanoseconds`.
    package var clampedToReadable: Timestamp {
        Timestamp(nanoseconds: min(max(nanoseconds, Self.readableNanoseconds.lowerBound), Self.readableNanoseconds.upperBound))
    }

    package init(seconds: Int64, nanoseconds: Int64) {
        self.nanoseconds = seconds &* 1_000_000_000 &+ nanoseconds
    }

    package static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// Seconds since the epoch as a decimal string with `digits` decimals (0...9), e.g. `1700000000.123456`.
    package func formatted(digits: Int) -> String {
        let buffer = ByteBuffer(capacity: Self.maximumFormattedCount)
        buffer.commit(write(digits: digits, to: buffer.freeSpace(atLeast: Self.maximumFormattedCount)))
        return buffer.text
    }

    /// The most bytes `write(digits:to:)` stores: a sign, 10 digits of seconds, a point, 9 decimals.
    static let maximumFormattedCount = 21

    /// Stores `formatted(digits:)` as UTF-8 at `destination` (room for `maximumFormattedCount`
    /// bytes); returns how many bytes it stored.
    @inline(__always)
    func write(digits: Int, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        let digits = max(0, min(9, digits))
        let (whole, fraction) = secondAndFraction
        let wholeCount = DecimalDigits.write(Int(whole), to: destination)
        guard digits > 0 else { return wholeCount }
        destination[wholeCount] = UInt8(ascii: ".")
        // All nine decimals are stored; the first `digits` are kept (truncated, not rounded).
        DecimalDigits.writeNineDigits(UInt32(truncatingIfNeeded: fraction), to: destination + wholeCount + 1)
        return wholeCount + 1 + digits
    }

    /// The whole seconds since the epoch rounded toward the past (before the epoch too) and the
    /// nanoseconds after that second's start (0 ..< 1,000,000,000).
    @inline(__always)
    var secondAndFraction: (second: Int64, fraction: Int64) {
        let second = nanoseconds / 1_000_000_000
        let remainder = nanoseconds % 1_000_000_000
        return remainder < 0 ? (second &- 1, remainder &+ 1_000_000_000) : (second, remainder)
    }

    /// The time from `earlier` to `self`, in milliseconds.
    package func milliseconds(since earlier: Timestamp) -> Double {
        Double(nanoseconds - earlier.nanoseconds) / 1_000_000
    }
}

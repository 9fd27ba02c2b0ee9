/// A capture timestamp: nanoseconds since the Unix epoch (UTC).
///
/// Every reader converts its file's resolution (micro, nano, or a pcapng `if_tsresol`) to nanoseconds;
/// `PacketSource.timestampDigits` says how many decimals the capture really has.
public struct Timestamp: Hashable, Comparable, Sendable {
    /// Nanoseconds since 1970-01-01T00:00:00Z.
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    /// The range every capture reader keeps packet timestamps in: ±2^62 ns, about 146 years either
    /// side of 1970 (pcap's unsigned 32-bit seconds fit). The difference of two such timestamps, or
    /// one plus a timeout, never overflows `Int64`, so durations can be computed without trapping.
    public static let readableNanoseconds: ClosedRange<Int64> = -(1 << 62)...(1 << 62)

    /// This timestamp clamped into `readableNanoseconds`.
    public var clampedToReadable: Timestamp {
        Timestamp(nanoseconds: min(max(nanoseconds, Self.readableNanoseconds.lowerBound), Self.readableNanoseconds.upperBound))
    }

    public init(seconds: Int64, nanoseconds: Int64) {
        self.nanoseconds = seconds &* 1_000_000_000 &+ nanoseconds
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// Seconds since the epoch as a decimal string with `digits` decimals (0...9), e.g. `1700000000.123456`.
    public func formatted(digits: Int) -> String {
        var bytes: [UInt8] = []
        append(digits: digits, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `formatted(digits:)` appended as UTF-8 bytes, without building a `String`.
    func append(digits: Int, to bytes: inout [UInt8]) {
        let digits = max(0, min(9, digits))
        var whole = nanoseconds / 1_000_000_000
        var fraction = nanoseconds % 1_000_000_000
        if fraction < 0 { fraction += 1_000_000_000; whole -= 1 }
        bytes.appendDecimal(Int(whole))
        guard digits > 0 else { return }
        bytes.append(UInt8(ascii: "."))
        var place: Int64 = 100_000_000
        for _ in 0..<digits {
            bytes.append(UInt8(ascii: "0") + UInt8(fraction / place % 10))
            place /= 10
        }
    }

    /// The time from `earlier` to `self`, in milliseconds.
    public func milliseconds(since earlier: Timestamp) -> Double {
        Double(nanoseconds - earlier.nanoseconds) / 1_000_000
    }
}

/// Stores timestamps as `Timestamp.write(digits:to:)` does, keeping the text of the last one's whole
/// seconds and point: records come in time order, so most timestamps share their second with the one
/// written before, and only their decimals are formatted. Right for timestamps in any order (a
/// timestamp in another second is written whole and its second kept instead).
struct TimestampFormatter {
    /// The first nanosecond of the second whose text is kept.
    private var secondStart: Int64 = 0
    /// The kept text (`1795835416.`) in its first `prefixCount` bytes; 0: none kept.
    private var prefix = SIMD16<UInt8>()
    private var prefixCount = 0

    private static let nanosecondsPerSecond: Int64 = 1_000_000_000

    /// Stores `timestamp` with `digits` decimals (0...9) at `destination` (room for
    /// `Timestamp.maximumFormattedCount` bytes); returns how many bytes it stored.
    @inline(__always)
    mutating func write(_ timestamp: Timestamp, digits: Int, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        let fraction = UInt64(bitPattern: timestamp.nanoseconds &- secondStart)
        guard fraction < UInt64(Self.nanosecondsPerSecond), prefixCount > 0, digits > 0 else {
            return writeKeepingSecond(timestamp, digits: digits, to: destination)
        }
        // 16 bytes stored whatever the text's length: what follows it is overwritten by the decimals.
        UnsafeMutableRawPointer(destination).storeBytes(of: prefix, as: SIMD16<UInt8>.self)
        DecimalDigits.writeNineDigits(UInt32(truncatingIfNeeded: fraction), to: destination + prefixCount)
        return prefixCount + min(digits, 9)
    }

    /// `timestamp` written whole; its second's text kept when it has decimals.
    @inline(never)
    private mutating func writeKeepingSecond(
        _ timestamp: Timestamp, digits: Int, to destination: UnsafeMutablePointer<UInt8>
    ) -> Int {
        let count = timestamp.write(digits: digits, to: destination)
        let (start, overflow) = timestamp.nanoseconds.subtractingReportingOverflow(timestamp.secondAndFraction.fraction)
        let textCount = count - min(digits, 9)
        // (the 16 bytes loaded lie in the room `destination` has: `maximumFormattedCount` is more; a
        // second kept ends before `Int64.max`, so `write`'s wrapping difference cannot match a timestamp
        // of another second)
        guard digits > 0, !overflow, start <= Int64.max - Self.nanosecondsPerSecond,
            textCount <= MemoryLayout<SIMD16<UInt8>>.size
        else {
            prefixCount = 0
            return count
        }
        secondStart = start
        prefix = UnsafeRawPointer(destination).loadUnaligned(as: SIMD16<UInt8>.self)
        prefixCount = textCount
        return count
    }
}

import Testing
@testable import WireTally

/// Timestamps written by the encoders keep the text of the last one's second (`TimestampFormatter`):
/// whatever their order, each reads as `Timestamp.formatted(digits:)` writes it alone.
@Suite struct TimestampFormatterTests {
    /// In time order, backwards, across second boundaries, before the epoch and at the extremes.
    @Test func everyTimestampReadsAsFormattedAlone() {
        let second: Int64 = 1_000_000_000
        let base: Int64 = 1_795_835_416 * second
        var sequence: [Int64] = [
            base, base + 1, base + 557_854_000, base + second - 1, base + second, base + 2 * second + 5, base + second - 1,
            base, base - 1, 0, 1, second - 1, second, -1, -second, -second - 1, -second + 1, 5, 5 * second + 1_000,
            Int64.max, Int64.max - 1, Int64.max - second, Int64.min, Int64.min + 1, 1 << 62, (1 << 62) - 1, -(1 << 62),
            -(1 << 62) + second - 1, base,
        ]
        var generator = SeededGenerator(state: 19)
        var time = base
        for _ in 0..<2000 {
            time += Int64.random(in: -400_000_000...900_000_000, using: &generator)
            sequence.append(time)
        }
        for digits in [0, 1, 3, 6, 9] {
            for timestamps in [sequence, sequence.reversed()] {
                var encoder = JSONTextEncoder(capacity: 1 << 16)
                encoder.array { encoder in
                    for nanoseconds in timestamps { encoder.timestamp(Timestamp(nanoseconds: nanoseconds), digits: digits) }
                }
                let expected = "[" + timestamps.map { Timestamp(nanoseconds: $0).formatted(digits: digits) }.joined(separator: ",") + "]"
                #expect(encoder.buffer.text == expected, "\(digits)")
            }
        }
    }

    /// CSV cells of timestamps that share a second and that do not.
    @Test func csvCellsReadAsFormattedAlone() {
        let first = Timestamp(nanoseconds: 1_700_000_000_123_456_789)
        let timestamps = [first, Timestamp(nanoseconds: first.nanoseconds + 800_000_000), Timestamp(nanoseconds: first.nanoseconds - 1)]
        var row = CSVRowEncoder(columns: ["a", "b", "c"])
        row.object { encoder in
            encoder.field("a", timestamp: timestamps[0], digits: 6)
            encoder.field("b", timestamp: timestamps[1], digits: 6)
            encoder.field("c", timestamp: timestamps[2], digits: 6)
        }
        for (column, timestamp) in timestamps.enumerated() {
            #expect(String(decoding: row.cell(column), as: UTF8.self) == timestamp.formatted(digits: 6))
        }
    }
}

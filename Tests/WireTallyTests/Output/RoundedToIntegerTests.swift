import Testing
@testable import WireTally

/// `RecordEncoding.roundedToInteger` (the `timing` phases' nanoseconds) rounds as `Double.rounded()` does:
/// halves away from zero, just below and above a half, the largest double below a half (where adding a
/// half and truncating goes wrong), integers past 2^52 and 2^53, and random milliseconds scaled as the
/// phases are.
@Suite struct RoundedToIntegerTests {
    @Test func roundsAsTheStandardLibraryDoes() {
        var values: [Double] = [0, -0.0, 0.5, 1.5, 2.5, 0.49999999999999994, 1.4999999999999998, 0.5000000000000001,
                                4_503_599_627_370_495.5, 4_503_599_627_370_497, 9_007_199_254_740_994,
                                9.2233720368547748e18, 1e-300, 123_456.5, 123_456.499_999_999_99]
        var generator = SeededGenerator(state: 1_000_000)
        for _ in 0..<20_000 {
            let milliseconds = Double.random(in: 0..<100_000, using: &generator)
            values.append(milliseconds * 1_000_000)
            values.append((milliseconds * 1000).rounded(.down) / 1000 * 1_000_000)
            values.append(Double(Int.random(in: 0..<1_000_000, using: &generator)) + 0.5)
        }
        for value in values where value < 9.2233720368547758e18 {
            #expect(RecordEncoding.roundedToInteger(value) == Int64(value.rounded()), "\(value)")
        }
    }
}

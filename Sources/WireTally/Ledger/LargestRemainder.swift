/// Splits a whole number in proportion to weights so the parts add up exactly: each part is the floor
/// of its exact share, and the units left over go one each to the parts with the largest remainders
/// (ties to the earlier part) — the largest remainder (Hamilton) method. Deterministic, so the same
/// packet is always split the same way.
enum LargestRemainder {
    /// `total` split by `weights` (non-negative, not all zero: else everything goes to the first part).
    static func split(_ total: Int, by weights: [Int]) -> [Int] {
        guard weights.count > 1 else { return weights.isEmpty ? [] : [total] }
        let sum = weights.reduce(0, +)
        guard sum > 0, total != 0 else {
            var parts = [Int](repeating: 0, count: weights.count)
            parts[0] = total
            return parts
        }
        let magnitude = abs(total)
        let shares = weights.map { sum.dividingFullWidth($0.multipliedFullWidth(by: magnitude)) }
        var parts = shares.map(\.quotient)
        let remainders = shares.map(\.remainder)
        var left = magnitude - parts.reduce(0, +)
        for index in remainders.indices.sorted(by: { remainders[$0] > remainders[$1] || (remainders[$0] == remainders[$1] && $0 < $1) }) where left > 0 {
            parts[index] += 1
            left -= 1
        }
        return total < 0 ? parts.map { -$0 } : parts
    }
}

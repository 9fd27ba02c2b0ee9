/// A set of byte ranges kept sorted and merged: which parts of a datagram have arrived.
struct ByteRanges {
    private(set) var ranges: [Range<Int>] = []

    /// Adds `range`, merging it with the ranges it touches or overlaps.
    mutating func insert(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        var merged = range
        let index = ranges.firstIndex { $0.upperBound >= range.lowerBound } ?? ranges.endIndex
        while index < ranges.endIndex, ranges[index].lowerBound <= merged.upperBound {
            merged = min(merged.lowerBound, ranges[index].lowerBound)..<max(merged.upperBound, ranges[index].upperBound)
            ranges.remove(at: index)
        }
        ranges.insert(merged, at: index)
    }

    /// The parts of `range` not yet in the set, in order.
    func gaps(in range: Range<Int>) -> [Range<Int>] {
        var gaps: [Range<Int>] = []
        var cursor = range.lowerBound
        for existing in ranges where existing.upperBound > cursor {
            if existing.lowerBound >= range.upperBound { break }
            if existing.lowerBound > cursor { gaps.append(cursor..<existing.lowerBound) }
            cursor = max(cursor, existing.upperBound)
            if cursor >= range.upperBound { break }
        }
        if cursor < range.upperBound { gaps.append(cursor..<range.upperBound) }
        return gaps
    }

    /// How many bytes from offset 0 are covered without a hole.
    var contiguousPrefixLength: Int {
        guard let first = ranges.first, first.lowerBound == 0 else { return 0 }
        return first.upperBound
    }
}

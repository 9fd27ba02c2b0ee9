/// What reading a QPACK primitive (a prefixed integer, a string literal, an instruction) from the
/// bytes at hand gave: the value and the index just past it, how many bytes from the start of the
/// buffer are needed before it can be read (Suricata-style: the caller waits for that many), or
/// invalid input.
enum QPACKRead<Value> {
    case value(Value, end: Int)
    /// The buffer must hold at least this many bytes (counted from its start).
    case needs(Int)
    case invalid
}

/// Prefixed integers (RFC 9204 §4.1.1, the HPACK encoding of RFC 7541 §5.1).
enum QPACKInteger {
    /// The largest value accepted: no QPACK quantity needs more, and sums of two stay far from overflow.
    static let maxValue: UInt64 = 1 << 62

    /// Reads the integer whose first byte is `p[start]`, in that byte's low `prefixBits` bits.
    static func read(_ p: UnsafeRawBufferPointer, at start: Int, prefixBits: Int) -> QPACKRead<UInt64> {
        guard start < p.count else { return .needs(start + 1) }
        let mask = UInt64(1) << prefixBits - 1
        var value = UInt64(p[start]) & mask
        guard value == mask else { return .value(value, end: start + 1) }
        var shift: UInt64 = 0
        var i = start + 1
        while i < p.count {
            let byte = p[i]
            // 9 continuation bytes carry 63 bits: any more cannot fit under maxValue.
            guard shift <= 56 else { return .invalid }
            value += UInt64(byte & 0x7f) << shift
            guard value <= maxValue else { return .invalid }
            i += 1
            if byte & 0x80 == 0 { return .value(value, end: i) }
            shift += 7
        }
        return .needs(i + 1)
    }

    /// Reads an integer that must fit in `Int` and be at most `limit`.
    static func readCount(_ p: UnsafeRawBufferPointer, at start: Int, prefixBits: Int, limit: Int) -> QPACKRead<Int> {
        switch read(p, at: start, prefixBits: prefixBits) {
        case .value(let value, let end): value <= UInt64(limit) ? .value(Int(value), end: end) : .invalid
        case .needs(let count): .needs(count)
        case .invalid: .invalid
        }
    }
}

extension Array where Element == UInt8 {
    /// Appends `value` as decimal ASCII digits (with `-` when negative), without building a `String`.
    mutating func appendDecimal(_ value: Int) {
        if value < 0 { append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        if magnitude < 10 { return append(UInt8(ascii: "0") + UInt8(magnitude)) }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // up to 20 digits, written backwards
        let count = Swift.withUnsafeMutableBytes(of: &digits) { buffer -> Int in
            var end = buffer.count
            while magnitude > 0 {
                end -= 1
                buffer[end] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            return end
        }
        Swift.withUnsafeBytes(of: &digits) { append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[count...])) }
    }
}

/// A QUIC variable-length integer (RFC 9000 §16) read a byte at a time, so it may be cut anywhere
/// between deliveries: the two high bits of the first byte give its length (1, 2, 4 or 8 bytes).
struct HTTP3VarIntReader {
    private var value: UInt64 = 0
    private var length = 0
    /// Bytes of the integer read so far.
    private(set) var count = 0

    /// Adds the next byte; the value once it is complete (the reader is then ready for the next integer).
    @inline(__always)
    mutating func feed(_ byte: UInt8) -> UInt64? {
        if count == 0 {
            length = 1 << Int(byte >> 6)
            value = UInt64(byte & 0x3f)
        } else {
            value = value << 8 | UInt64(byte)
        }
        count += 1
        guard count == length else { return nil }
        defer { count = 0 }
        return value
    }

    /// Bytes still needed to complete the integer begun (1 when none is begun).
    var bytesNeeded: Int { count == 0 ? 1 : length - count }

    mutating func reset() { count = 0 }
}

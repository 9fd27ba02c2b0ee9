/// Bounds-checked reading of QUIC's big-endian integers and variable-length integers (RFC 9000 §16)
/// over borrowed bytes: every read returns nil past `end`, nothing traps on hostile input. Offsets are
/// absolute indexes into `bytes`, so views built from a reader can name ranges without copying.
struct QUICByteReader {
    let bytes: UnsafeRawBufferPointer
    private(set) var index: Int
    let end: Int

    init(_ bytes: UnsafeRawBufferPointer, from start: Int = 0, end: Int? = nil) {
        self.bytes = bytes
        self.end = max(0, min(end ?? bytes.count, bytes.count))
        index = max(0, min(start, self.end))
    }

    var remaining: Int { end - index }

    /// The next byte, not consumed.
    func peek() -> UInt8? { index < end ? bytes[index] : nil }

    mutating func u8() -> UInt8? {
        guard index < end else { return nil }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func u32() -> UInt32? {
        guard remaining >= 4, let value = bytes.uint32BigEndian(at: index) else { return nil }
        index += 4
        return value
    }

    /// A variable-length integer: the two high bits of the first byte give its length (1, 2, 4, 8).
    mutating func varint() -> UInt64? {
        guard index < end else { return nil }
        let length = 1 << Int(bytes[index] >> 6)
        guard remaining >= length else { return nil }
        var value = UInt64(bytes[index] & 0x3f)
        for offset in 1 ..< length { value = value << 8 | UInt64(bytes[index + offset]) }
        index += length
        return value
    }

    /// A varint that is a length or offset that must fit in `Int` (values ≥ 2^62 cannot occur).
    mutating func varintCount() -> Int? {
        varint().flatMap { $0 <= UInt64(Int.max) ? Int($0) : nil }
    }

    /// The range of the next `count` bytes (consumed).
    mutating func skip(_ count: Int) -> Range<Int>? {
        guard count >= 0, count <= remaining else { return nil }
        defer { index += count }
        return index ..< index + count
    }
}

extension QUICByteReader {
    /// Reads a varint from a byte array (test and transport-parameter convenience).
    static func varint(in bytes: [UInt8], at index: inout Int) -> UInt64? {
        bytes.withUnsafeBytes { raw in
            var reader = QUICByteReader(raw, from: index)
            defer { index = reader.index }
            return reader.varint()
        }
    }
}

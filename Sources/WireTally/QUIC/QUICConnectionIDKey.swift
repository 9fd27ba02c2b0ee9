/// A connection ID (at most 20 bytes in v1 and v2) as a fixed-size hashable value: building and
/// looking one up allocates nothing, so trying a datagram's possible IDs costs little.
struct QUICConnectionIDKey: Hashable {
    private var first: UInt64 = 0
    private var second: UInt64 = 0
    private var third: UInt32 = 0
    private var length: UInt8

    /// The ID made of `bytes`; nil beyond 20 bytes or for an empty ID (which identifies nothing).
    init?(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty, bytes.count <= 20 else { return nil }
        length = UInt8(bytes.count)
        for (index, byte) in bytes.enumerated() {
            let value = UInt64(byte)
            switch index {
            case 0 ..< 8: first |= value << (8 * index)
            case 8 ..< 16: second |= value << (8 * (index - 8))
            default: third |= UInt32(byte) << (8 * (index - 16))
            }
        }
    }

    /// The ID made of an array's bytes.
    init?(_ bytes: [UInt8]) {
        guard let key = bytes.withUnsafeBytes({ QUICConnectionIDKey($0) }) else { return nil }
        self = key
    }

    /// Bytes of the ID.
    var count: Int { Int(length) }
}

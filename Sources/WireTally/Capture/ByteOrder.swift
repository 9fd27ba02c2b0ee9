/// The byte order of a capture file's header and record fields.
package enum ByteOrder: Sendable {
    case littleEndian
    case bigEndian

    /// The order of the machine running this code.
    package static let host: ByteOrder = 1.littleEndian == 1 ? .littleEndian : .bigEndian
}

extension UnsafeRawPointer {
    /// The 16-bit field at `offset` bytes, read in `order`. The caller has checked the bounds.
    func load(uint16At offset: Int, _ order: ByteOrder) -> UInt16 {
        let raw = loadUnaligned(fromByteOffset: offset, as: UInt16.self)
        return order == .littleEndian ? UInt16(littleEndian: raw) : UInt16(bigEndian: raw)
    }

    /// The 32-bit field at `offset` bytes, read in `order`. The caller has checked the bounds.
    func load(uint32At offset: Int, _ order: ByteOrder) -> UInt32 {
        let raw = loadUnaligned(fromByteOffset: offset, as: UInt32.self)
        return order == .littleEndian ? UInt32(littleEndian: raw) : UInt32(bigEndian: raw)
    }

    /// The 64-bit field at `offset` bytes, read in `order`. The caller has checked the bounds.
    func load(uint64At offset: Int, _ order: ByteOrder) -> UInt64 {
        let raw = loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        return order == .littleEndian ? UInt64(littleEndian: raw) : UInt64(bigEndian: raw)
    }
}

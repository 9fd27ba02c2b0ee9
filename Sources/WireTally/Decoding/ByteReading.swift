/// Bounds-checked reads from captured bytes. Every accessor returns nil instead of trapping when the
/// requested bytes are not all inside the buffer.
extension UnsafeRawBufferPointer {
    @inline(__always)
    func byte(at offset: Int) -> UInt8? {
        offset >= 0 && offset < count ? self[offset] : nil
    }

    @inline(__always)
    func uint16BigEndian(at offset: Int) -> UInt16? {
        guard offset >= 0, offset <= count - 2 else { return nil }
        return UInt16(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }

    @inline(__always)
    func uint32BigEndian(at offset: Int) -> UInt32? {
        guard offset >= 0, offset <= count - 4 else { return nil }
        return UInt32(bigEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    @inline(__always)
    func uint16LittleEndian(at offset: Int) -> UInt16? {
        guard offset >= 0, offset <= count - 2 else { return nil }
        return UInt16(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }

    @inline(__always)
    func uint32LittleEndian(at offset: Int) -> UInt32? {
        guard offset >= 0, offset <= count - 4 else { return nil }
        return UInt32(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    /// The bytes in `lower..<upper`, clamped to the buffer (empty when the range lies outside it).
    @inline(__always)
    func clamped(from lower: Int, to upper: Int = .max) -> UnsafeRawBufferPointer {
        let start = Swift.min(Swift.max(lower, 0), count)
        let end = Swift.min(Swift.max(upper, start), count)
        return UnsafeRawBufferPointer(rebasing: self[start..<end])
    }
}

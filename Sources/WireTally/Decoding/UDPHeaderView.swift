/// A read-only view of a UDP header (RFC 768). Created only when its 8 bytes are present.
struct UDPHeaderView {
    let bytes: UnsafeRawBufferPointer

    init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 8 else { return nil }
        self.bytes = bytes
    }

    var sourcePort: UInt16 { word(0) }
    var destinationPort: UInt16 { word(2) }
    /// The length field: header and payload, in bytes.
    var length: Int { Int(word(4)) }
    var checksum: UInt16 { word(6) }

    private func word(_ offset: Int) -> UInt16 {
        UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }
}

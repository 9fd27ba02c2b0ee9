/// A read-only view of a TCP header (RFC 9293). Created only when the fixed 20 bytes are present.
struct TCPHeaderView {
    let bytes: UnsafeRawBufferPointer

    init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 20 else { return nil }
        self.bytes = bytes
    }

    var sourcePort: UInt16 { word(0) }
    var destinationPort: UInt16 { word(2) }
    var sequence: UInt32 { UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: 4, as: UInt32.self)) }
    var acknowledgment: UInt32 { UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self)) }
    /// Header length in bytes (data offset × 4).
    var headerLength: Int { Int(bytes[12] >> 4) * 4 }
    var flags: TCPFlags { TCPFlags(rawValue: word(12) & 0x01ff) }
    var window: UInt16 { word(14) }

    /// The option bytes after the fixed 20 bytes; the caller ensures `headerLength` bytes are present.
    /// Inlined: every TCP segment's decoding asks (a call of its own cost 23 instructions a segment).
    @inline(__always)
    var optionBytes: UnsafeRawBufferPointer { bytes.clamped(from: 20, to: headerLength) }

    private func word(_ offset: Int) -> UInt16 {
        UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }
}

extension TCPOptions {
    /// Reads MSS, window scale, SACK-permitted and timestamps from a header's option bytes. A malformed
    /// option ends the walk with what was read so far.
    init(parsing bytes: UnsafeRawBufferPointer) {
        self.init()
        var offset = 0
        let end = bytes.count
        while offset < end {
            let kind = bytes[offset]
            if kind == 0 { break }
            if kind == 1 { offset += 1; continue }
            guard let lengthByte = bytes.byte(at: offset + 1), lengthByte >= 2, offset + Int(lengthByte) <= end
            else { break }
            let length = Int(lengthByte)
            switch (kind, length) {
            case (2, 4): maximumSegmentSize = bytes.uint16BigEndian(at: offset + 2)
            case (3, 3): windowScale = bytes.byte(at: offset + 2)
            case (4, 2): sackPermitted = true
            case (8, 10):
                timestampValue = bytes.uint32BigEndian(at: offset + 2)
                timestampEchoReply = bytes.uint32BigEndian(at: offset + 6)
            default: break
            }
            offset += length
        }
    }
}

/// A read-only view of an IPv4 header (RFC 791). Created only when the fixed 20 bytes are present;
/// options are covered by `headerLength` and checked by the caller against the captured bytes.
struct IPv4HeaderView {
    let bytes: UnsafeRawBufferPointer

    init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 20 else { return nil }
        self.bytes = bytes
    }

    /// Header length in bytes, options included (IHL × 4).
    var headerLength: Int { Int(bytes[0] & 0x0f) * 4 }
    var totalLength: Int { Int(word(2)) }
    var identification: UInt16 { word(4) }
    var moreFragments: Bool { word(6) & 0x2000 != 0 }
    /// Fragment offset in bytes.
    var fragmentOffset: Int { Int(word(6) & 0x1fff) * 8 }
    var isFragment: Bool { moreFragments || fragmentOffset != 0 }
    var transportProtocol: UInt8 { bytes[9] }
    var source: IPAddress { IPAddress(ipv4: UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: 12, as: UInt32.self))) }
    var destination: IPAddress {
        IPAddress(ipv4: UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: 16, as: UInt32.self)))
    }

    /// True when the header checksum is right; the caller ensures `headerLength` bytes are present.
    /// A header without options (nearly all) is summed inline (`InternetChecksum.sumOfHeader`).
    @inline(__always)
    var hasValidChecksum: Bool {
        let headerLength = headerLength
        guard headerLength == 20, let base = bytes.baseAddress else {
            return InternetChecksum.sum(bytes.clamped(from: 0, to: headerLength)) == 0xffff
        }
        return InternetChecksum.sumOfHeader(base) == 0xffff
    }

    private func word(_ offset: Int) -> UInt16 {
        UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }
}

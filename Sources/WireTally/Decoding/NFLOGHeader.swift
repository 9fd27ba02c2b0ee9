extension LinkLayer {
    /// Linux NFLOG: a 4-byte header (address family, version, resource id), then TLVs whose 16-bit
    /// length (header included, padded to 4 bytes) and type are in the capturing host's byte order.
    /// The packet is the value of the `NFULA_PAYLOAD` TLV.
    static func nflog(_ frame: UnsafeRawBufferPointer, originalLength: Int) -> NetworkLayerLocation {
        guard originalLength > 4 else { return .failure(originalLength == 4 ? .nonIP : .truncated) }
        guard let family = frame.byte(at: 0), frame.count >= 4 else { return .failure(.truncated) }
        let version: UInt8? = family == 2 ? 4 : family == 10 ? 6 : nil
        // TLV types are small numbers, so the byte order whose type fits one byte is the host's.
        guard let firstType = frame.uint16LittleEndian(at: 6) else { return .failure(.truncated) }
        let littleEndian = firstType & 0xff00 == 0
        var offset = 4
        while offset < originalLength {
            guard let rawLength = littleEndian ? frame.uint16LittleEndian(at: offset) : frame.uint16BigEndian(at: offset),
                let rawType = littleEndian ? frame.uint16LittleEndian(at: offset + 2) : frame.uint16BigEndian(at: offset + 2)
            else { return .failure(.truncated) }
            let length = Int(rawLength)
            guard length >= 4 else { return .failure(.nonIP) }
            if rawType & nflogTypeMask == nflogPayloadType { return .ip(offset: offset + 4, version: version) }
            offset += (length + 3) & ~3
        }
        return .failure(.nonIP)
    }

    private static let nflogPayloadType: UInt16 = 9
    /// Strips the netlink NLA_F_NESTED and NLA_F_NET_BYTEORDER flag bits from a TLV type.
    private static let nflogTypeMask: UInt16 = 0x3fff
}

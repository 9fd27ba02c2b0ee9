extension LinkLayer {
    /// BSD NULL (address family in the capturing host's byte order) and OpenBSD LOOP (network order):
    /// a 4-byte address family, then IP. AF_INET is 2 everywhere; AF_INET6 is 24, 28 or 30 by OS.
    static func loopback(_ frame: UnsafeRawBufferPointer, networkByteOrderOnly: Bool) -> NetworkLayerLocation {
        guard let bigEndian = frame.uint32BigEndian(at: 0), let littleEndian = frame.uint32LittleEndian(at: 0)
        else { return .failure(.truncated) }
        let family = networkByteOrderOnly || bigEndian <= 0xffff ? bigEndian : littleEndian
        switch family {
        case 2: return .ip(offset: 4, version: 4)
        case 24, 28, 30: return .ip(offset: 4, version: 6)
        default: return .failure(.nonIP)
        }
    }
}

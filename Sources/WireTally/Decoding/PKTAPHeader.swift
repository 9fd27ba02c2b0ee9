extension LinkLayer {
    /// Apple PKTAP: a header whose first 4 bytes give its length and next 4 the inner link type (both
    /// in the capturing host's byte order, little-endian on Apple hardware), then the inner frame.
    static func pktap(_ frame: UnsafeRawBufferPointer, originalLength: Int) -> NetworkLayerLocation {
        guard let headerLength = frame.uint32LittleEndian(at: 0), let innerType = frame.uint32LittleEndian(at: 4)
        else { return .failure(.truncated) }
        let length = Int(headerLength)
        guard length >= 8 else { return .failure(.unknownLinkType) }
        guard length <= frame.count else { return .failure(.truncated) }
        let innerLinkType = LinkType(rawValue: innerType)
        guard innerLinkType != .pktap else { return .failure(.unknownLinkType) }
        return locateNetworkLayer(
            in: frame.clamped(from: length), linkType: innerLinkType, originalLength: originalLength - length
        ).shifted(by: length)
    }
}

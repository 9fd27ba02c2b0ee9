extension LinkLayer {
    /// Linux cooked capture v1: 16-byte header with the EtherType at offset 14.
    static func linuxCooked(_ frame: UnsafeRawBufferPointer) -> NetworkLayerLocation {
        guard frame.count >= 16, let type = frame.uint16BigEndian(at: 14) else { return .failure(.truncated) }
        return etherType(type, payloadOffset: 16, in: frame)
    }

    /// Linux cooked capture v2: 20-byte header with the EtherType at offset 0.
    static func linuxCookedV2(_ frame: UnsafeRawBufferPointer) -> NetworkLayerLocation {
        guard frame.count >= 20, let type = frame.uint16BigEndian(at: 0) else { return .failure(.truncated) }
        return etherType(type, payloadOffset: 20, in: frame)
    }
}

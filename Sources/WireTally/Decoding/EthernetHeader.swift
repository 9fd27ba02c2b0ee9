extension LinkLayer {
    /// Ethernet II, 802.3 with LLC/SNAP, and Ethernet-declared frames that start directly with IP
    /// (iOS `rvi` interfaces).
    static func ethernet(_ frame: UnsafeRawBufferPointer, originalLength: Int) -> NetworkLayerLocation {
        // The common frame first: Ethernet II carrying IP directly. (An EtherType of IP makes the frame
        // look like Ethernet, so the test of a frame starting with IP below would not take it either.)
        switch frame.uint16BigEndian(at: 12) {
        case .some(EtherType.ipv4): return .ip(offset: 14, version: 4)
        case .some(EtherType.ipv6): return .ip(offset: 14, version: 6)
        default: break
        }
        if let version = ipVersionOfHeaderFillingFrame(frame, originalLength: originalLength),
            !looksLikeEthernet(frame, originalLength: originalLength)
        {
            return .ip(offset: 0, version: version)
        }
        guard let type = frame.uint16BigEndian(at: 12) else { return .failure(.truncated) }
        guard type <= EtherType.maximumIEEE8023Length else {
            return etherType(type, payloadOffset: 14, in: frame)
        }
        // 802.3: a length field, then LLC. Only SNAP (AA AA 03, OUI, EtherType) can carry IP.
        guard let dsap = frame.byte(at: 14), let ssap = frame.byte(at: 15), let control = frame.byte(at: 16) else {
            return .failure(.truncated)
        }
        guard dsap == 0xaa, ssap == 0xaa, control == 0x03 else { return .failure(.nonIP) }
        guard let snapType = frame.uint16BigEndian(at: 20) else { return .failure(.truncated) }
        return etherType(snapType, payloadOffset: 22, in: frame)
    }

    /// 4 or 6 when the frame starts with an IP header whose length fields give exactly the frame's
    /// original length.
    static func ipVersionOfHeaderFillingFrame(_ frame: UnsafeRawBufferPointer, originalLength: Int) -> UInt8? {
        guard let first = frame.byte(at: 0) else { return nil }
        switch first >> 4 {
        case 4:
            guard first & 0x0f >= 5, let totalLength = frame.uint16BigEndian(at: 2) else { return nil }
            return Int(totalLength) == originalLength ? 4 : nil
        case 6:
            guard let payloadLength = frame.uint16BigEndian(at: 4) else { return nil }
            return 40 + Int(payloadLength) == originalLength ? 6 : nil
        default:
            return nil
        }
    }

    /// True when bytes 12–13 hold a common EtherType, or an 802.3 length matching the frame.
    static func looksLikeEthernet(_ frame: UnsafeRawBufferPointer, originalLength: Int) -> Bool {
        guard let type = frame.uint16BigEndian(at: 12) else { return false }
        switch type {
        case EtherType.ipv4, EtherType.ipv6, EtherType.vlan, EtherType.providerBridging, EtherType.legacyQinQ,
            EtherType.arp, EtherType.reverseARP, EtherType.lldp, EtherType.pppoeDiscovery,
            EtherType.pppoeSession, EtherType.eapol:
            return true
        default:
            // An 802.3 length must at least cover an LLC header (3 bytes).
            guard type >= 3, type <= EtherType.maximumIEEE8023Length else { return false }
            let minimumFrame = 60
            let framed = 14 + Int(type)
            return framed == originalLength || (originalLength <= minimumFrame && framed <= minimumFrame)
        }
    }
}

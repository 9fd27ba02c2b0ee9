/// Where a frame's IP header starts, as found by reading its link-layer header.
enum NetworkLayerLocation: Equatable {
    /// The IP header starts at `offset`. `version` is 4 or 6 when the link header says which, nil
    /// when only the IP version nibble can tell (raw IP, NFLOG of unknown family). `vlan` holds the
    /// VLAN tags stepped over.
    case ip(offset: Int, version: UInt8?, vlan: VLANTags = VLANTags())
    case failure(DecodeFailure)

    /// The same location seen from a buffer that starts `prefix` bytes earlier.
    func shifted(by prefix: Int) -> NetworkLayerLocation {
        guard case let .ip(offset, version, vlan) = self else { return self }
        return .ip(offset: offset + prefix, version: version, vlan: vlan)
    }
}

/// Link-layer header decoding: finds the IP header inside a frame of any supported link type.
enum LinkLayer {
    /// Finds the IP header in `frame` captured with `linkType`; `originalLength` is the frame's length
    /// on the wire.
    static func locateNetworkLayer(
        in frame: UnsafeRawBufferPointer, linkType: LinkType, originalLength: Int
    ) -> NetworkLayerLocation {
        switch linkType {
        case .ethernet: return ethernet(frame, originalLength: originalLength)
        case .linuxSLL: return linuxCooked(frame)
        case .linuxSLL2: return linuxCookedV2(frame)
        case .null: return loopback(frame, networkByteOrderOnly: false)
        case .loop: return loopback(frame, networkByteOrderOnly: true)
        case .raw, .rawDLT12, .rawDLT14: return .ip(offset: 0, version: nil)
        case .ipv4: return .ip(offset: 0, version: 4)
        case .ipv6: return .ip(offset: 0, version: 6)
        case .nflog: return nflog(frame, originalLength: originalLength)
        case .pktap: return pktap(frame, originalLength: originalLength)
        default: return .failure(.unknownLinkType)
        }
    }

    /// Resolves an EtherType whose payload starts at `payloadOffset`, stepping over 802.1Q, 802.1ad
    /// and 0x9100 VLAN tags (each 4 bytes: tag control, then the next EtherType).
    static func etherType(
        _ type: UInt16, payloadOffset: Int, in frame: UnsafeRawBufferPointer
    ) -> NetworkLayerLocation {
        var type = type
        var offset = payloadOffset
        var vlan = VLANTags()
        for _ in 0...maximumVLANTags {
            switch type {
            case EtherType.ipv4: return .ip(offset: offset, version: 4, vlan: vlan)
            case EtherType.ipv6: return .ip(offset: offset, version: 6, vlan: vlan)
            case EtherType.vlan, EtherType.providerBridging, EtherType.legacyQinQ:
                guard let control = frame.uint16BigEndian(at: offset), let inner = frame.uint16BigEndian(at: offset + 2)
                else { return .failure(.truncated) }
                vlan.append(id: control & 0x0fff)
                type = inner
                offset += 4
            default:
                return .failure(.nonIP)
            }
        }
        return .failure(.nonIP)
    }

    /// More stacked VLAN tags than this is treated as non-IP.
    static let maximumVLANTags = 8
}

/// EtherType values the decoder recognises.
enum EtherType {
    static let ipv4: UInt16 = 0x0800
    static let arp: UInt16 = 0x0806
    static let reverseARP: UInt16 = 0x8035
    static let vlan: UInt16 = 0x8100
    static let ipv6: UInt16 = 0x86dd
    static let pppoeDiscovery: UInt16 = 0x8863
    static let pppoeSession: UInt16 = 0x8864
    static let eapol: UInt16 = 0x888e
    static let providerBridging: UInt16 = 0x88a8
    static let lldp: UInt16 = 0x88cc
    static let legacyQinQ: UInt16 = 0x9100
    /// Values up to this one are 802.3 length fields, not EtherTypes.
    static let maximumIEEE8023Length: UInt16 = 1500
}

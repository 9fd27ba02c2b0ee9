/// A pcap/pcapng link-layer header type (`LINKTYPE_*` values from tcpdump.org/linktypes.html).
package struct LinkType: RawRepresentable, Hashable, Sendable, BitwiseCopyable, CustomStringConvertible {
    package var rawValue: UInt32
    package init(rawValue: UInt32) { self.rawValue = rawValue }

    /// BSD loopback: 4-byte address family in the capturing host's byte order.
    package static let null = LinkType(rawValue: 0)
    /// Ethernet II / 802.3 (also used by iOS rvi captures whose packets start directly with IP).
    package static let ethernet = LinkType(rawValue: 1)
    /// Raw IP as DLT_RAW is numbered on most systems.
    package static let rawDLT12 = LinkType(rawValue: 12)
    /// Raw IP as DLT_RAW is numbered on OpenBSD.
    package static let rawDLT14 = LinkType(rawValue: 14)
    /// Raw IPv4 or IPv6 (LINKTYPE_RAW).
    package static let raw = LinkType(rawValue: 101)
    /// OpenBSD loopback: 4-byte address family in network byte order.
    package static let loop = LinkType(rawValue: 108)
    /// Linux cooked capture v1.
    package static let linuxSLL = LinkType(rawValue: 113)
    /// Raw IPv4 only.
    package static let ipv4 = LinkType(rawValue: 228)
    /// Raw IPv6 only.
    package static let ipv6 = LinkType(rawValue: 229)
    /// Linux netfilter NFLOG.
    package static let nflog = LinkType(rawValue: 239)
    /// Apple PKTAP.
    package static let pktap = LinkType(rawValue: 258)
    /// Linux cooked capture v2 (`tcpdump -i any` on recent libpcap).
    package static let linuxSLL2 = LinkType(rawValue: 276)

    package var description: String {
        switch self {
        case .null: return "NULL"
        case .ethernet: return "ETHERNET"
        case .rawDLT12, .rawDLT14, .raw: return "RAW"
        case .loop: return "LOOP"
        case .linuxSLL: return "LINUX_SLL"
        case .ipv4: return "IPV4"
        case .ipv6: return "IPV6"
        case .nflog: return "NFLOG"
        case .pktap: return "PKTAP"
        case .linuxSLL2: return "LINUX_SLL2"
        default: return "LINKTYPE_\(rawValue)"
        }
    }
}

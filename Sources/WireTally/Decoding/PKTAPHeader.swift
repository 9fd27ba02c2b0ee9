/// Apple's PKTAP header (`DLT_PKTAP`, what `tcpdump -k`, `-i pktap` and `rvictl` capture), as
/// `struct pktap_header` in xnu's `bsd/net/pktap.h` (mirrored in Apple's libpcap `pcap/pktap.h`) lays
/// it out: all fields in the capturing host's byte order, little-endian on Apple hardware (Wireshark's
/// `packet-pktap.c` reads them so too).
///
///     0 pth_length  4 pth_type_next  8 pth_dlt  12 pth_ifname[24]  36 pth_flags
///     40 pth_protocol_family  44 pth_frame_pre_length  48 pth_frame_post_length
///     52 pth_pid  56 pth_comm[17]  76 pth_svc  80 pth_iftype  82 pth_ifunit
///     84 pth_epid  88 pth_ecomm[17]  108 (newer kernels append pth_flowid, pth_ipproto, …)
///
/// `pth_length` says where the packet starts, so longer headers are read too.
package struct PKTAPHeader: Equatable, Sendable {
    package var length: UInt32
    /// `pth_type_next`: 1 (`PTH_TYPE_PACKET`) for a packet, the only type decoded further.
    package var recordType: UInt32
    /// `pth_dlt`: the link type of the packet after the header.
    package var dlt: UInt32
    package var interfaceName: InlineName
    package var flags: UInt32
    package var protocolFamily: UInt32
    package var framePreLength: UInt32
    package var framePostLength: UInt32
    package var pid: Int32
    package var command: InlineName
    package var serviceClass: UInt32
    package var interfaceType: UInt16
    package var interfaceUnit: UInt16
    /// -1 when the socket is not delegated.
    package var effectivePID: Int32
    package var effectiveCommand: InlineName

    /// Bytes of a header up to and including `pth_ecomm` (Wireshark's `MIN_PKTAP_HDR_LEN`).
    package static let minimumLength = 108
    /// `PTH_TYPE_PACKET`.
    static let packetRecord: UInt32 = 1
    /// `PTH_FLAG_DIR_IN`, `PTH_FLAG_DIR_OUT`.
    static let inboundFlag: UInt32 = 0x1
    static let outboundFlag: UInt32 = 0x2

    /// The header at the start of `frame`; nil when the frame is shorter than `minimumLength` or than
    /// the header's own `pth_length`, or that length is below `minimumLength`.
    package init?(_ frame: UnsafeRawBufferPointer) {
        guard let length = frame.uint32LittleEndian(at: 0), length >= Self.minimumLength, length <= frame.count
        else { return nil }
        func word(_ offset: Int) -> UInt32 { frame.uint32LittleEndian(at: offset)! }
        func half(_ offset: Int) -> UInt16 { frame.uint16LittleEndian(at: offset)! }
        self.length = length
        recordType = word(4)
        dlt = word(8)
        interfaceName = InlineName(frame.clamped(from: 12, to: 36))
        flags = word(36)
        protocolFamily = word(40)
        framePreLength = word(44)
        framePostLength = word(48)
        pid = Int32(bitPattern: word(52))
        command = InlineName(frame.clamped(from: 56, to: 73))
        serviceClass = word(76)
        interfaceType = half(80)
        interfaceUnit = half(82)
        effectivePID = Int32(bitPattern: word(84))
        effectiveCommand = InlineName(frame.clamped(from: 88, to: 105))
    }

    /// The process the header names: nil when it names none (pid -1 or 0 with no command name).
    var owner: PacketOwner? {
        guard pid > 0 || !command.isEmpty else { return nil }
        let direction: PacketOwner.Direction =
            flags & Self.inboundFlag != 0 ? .inbound : flags & Self.outboundFlag != 0 ? .outbound : .unknown
        let delegated = effectivePID != -1 && (effectivePID != pid || effectiveCommand != command)
        return PacketOwner(
            kind: .process, id: pid, name: command, effectiveID: delegated ? effectivePID : nil,
            effectiveName: delegated ? effectiveCommand : InlineName(),
            serviceClass: serviceClass == UInt32.max ? nil : serviceClass, direction: direction)
    }
}

extension LinkLayer {
    /// Apple PKTAP: a header of `pth_length` bytes whose `pth_type_next` is 1 (a packet) and whose
    /// `pth_dlt` gives the inner link type, then the inner frame.
    static func pktap(_ frame: UnsafeRawBufferPointer, originalLength: Int) -> NetworkLayerLocation {
        guard let headerLength = frame.uint32LittleEndian(at: 0), let recordType = frame.uint32LittleEndian(at: 4),
              let innerType = frame.uint32LittleEndian(at: 8)
        else { return .failure(.truncated) }
        let length = Int(headerLength)
        guard length >= 12 else { return .failure(.unknownLinkType) }
        guard length <= frame.count else { return .failure(.truncated) }
        guard recordType == PKTAPHeader.packetRecord else { return .failure(.nonIP) }
        let innerLinkType = LinkType(rawValue: innerType)
        guard innerLinkType != .pktap else { return .failure(.unknownLinkType) }
        return locateNetworkLayer(
            in: frame.clamped(from: length), linkType: innerLinkType, originalLength: originalLength - length
        ).shifted(by: length)
    }
}

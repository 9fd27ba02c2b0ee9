import CPcap

/// A BPF filter expression (tcpdump syntax) matched against captured packets by libpcap.
///
/// The expression is compiled once per link type, the first time a packet of that link type is
/// matched (a pcapng file can mix link types). LINKTYPE_RAW (101) is compiled as DLT_RAW, the way
/// libpcap's own file readers report it.
public final class PacketFilter {
    /// The expression as given.
    public let expression: String

    /// A compiled program with the libpcap handle it was compiled for.
    private final class CompiledProgram {
        let handle: OpaquePointer
        let program = UnsafeMutablePointer<bpf_program>.allocate(capacity: 1)

        init(expression: String, linkType: LinkType) throws(CaptureError) {
            guard let handle = pcap_open_dead(Int32(bitPattern: linkType.libpcapDataLinkType), 262_144) else {
                program.deallocate()
                throw .badFilter(expression: expression, reason: "libpcap cannot handle link type \(linkType)")
            }
            self.handle = handle
            program.initialize(to: bpf_program())
            guard pcap_compile(handle, program, expression, 1, PCAP_NETMASK_UNKNOWN) == 0 else {
                let reason = String(cString: pcap_geterr(handle))
                program.deallocate()
                pcap_close(handle)
                throw .badFilter(expression: expression, reason: reason)
            }
        }

        deinit {
            pcap_freecode(program)
            program.deallocate()
            pcap_close(handle)
        }
    }

    private var programs: [LinkType: CompiledProgram] = [:]

    /// A filter for `expression`; nothing is compiled until the first `matches(_:)`.
    public init(expression: String) {
        self.expression = expression
    }

    /// True when the filter accepts `packet`. Throws `.badFilter` with libpcap's message when the
    /// expression does not compile for the packet's link type.
    public func matches(_ packet: CapturedPacket) throws(CaptureError) -> Bool {
        let compiled: CompiledProgram
        if let existing = programs[packet.linkType] {
            compiled = existing
        } else {
            compiled = try CompiledProgram(expression: expression, linkType: packet.linkType)
            programs[packet.linkType] = compiled
        }
        let seconds = packet.timestamp.nanoseconds / 1_000_000_000
        var header = pcap_pkthdr(
            ts: timeval(tv_sec: Int(seconds), tv_usec: Int(packet.timestamp.nanoseconds / 1000 - seconds * 1_000_000)),
            caplen: UInt32(clamping: packet.bytes.count),
            len: UInt32(clamping: packet.originalLength))
        let data = packet.bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        return pcap_offline_filter(compiled.program, &header, data) != 0
    }
}

extension LinkType {
    /// The DLT_ value libpcap uses for this link type.
    var libpcapDataLinkType: UInt32 {
        self == .raw ? UInt32(DLT_RAW) : rawValue
    }
}

import CPcap
import Glibc

/// A BPF filter expression (tcpdump syntax) matched against captured packets by libpcap.
///
/// The expression is compiled once per link type, the first time a packet of that link type is
/// matched (a pcapng file can mix link types). It is compiled the way `tcpdump -r` compiles it for a
/// capture file written in this machine's byte order: libpcap is handed an in-memory pcap header of
/// that link type. (`pcap_open_dead` would compile for a live capture instead, which differs for
/// BSD loopback files: libpcap then accepts only Linux's AF_INET6 value, not those of the BSDs.)
/// A consequence: BSD loopback packets whose address family is stored in the opposite byte order
/// do not match `ip` or `ip6`.
package final class PacketFilter {
    /// The expression as given.
    package let expression: String

    /// A compiled program with the libpcap handle it was compiled for.
    private final class CompiledProgram {
        private let handle: OpaquePointer
        private let fileHeader: UnsafeMutableRawPointer
        let program = UnsafeMutablePointer<bpf_program>.allocate(capacity: 1)

        init(expression: String, linkType: LinkType) throws(CaptureError) {
            guard let (handle, fileHeader) = Self.openHandle(linkType: linkType) else {
                program.deallocate()
                throw .badFilter(expression: expression, reason: "libpcap cannot handle link type \(linkType)")
            }
            self.handle = handle
            self.fileHeader = fileHeader
            program.initialize(to: bpf_program())
            // From here on a failure runs `deinit`, which frees the program, handle and header.
            guard pcap_compile(handle, program, expression, 1, PCAP_NETMASK_UNKNOWN) == 0 else {
                throw .badFilter(expression: expression, reason: String(cString: pcap_geterr(handle)))
            }
        }

        deinit {
            pcap_freecode(program)
            program.deallocate()
            pcap_close(handle)
            fileHeader.deallocate()
        }

        /// A libpcap handle reading a header-only pcap file of `linkType` from memory, and that
        /// memory (to free after the handle is closed).
        private static func openHandle(linkType: LinkType) -> (OpaquePointer, UnsafeMutableRawPointer)? {
            let headerLength = 24
            let header = UnsafeMutableRawPointer.allocate(byteCount: headerLength, alignment: 4)
            header.initializeMemory(as: UInt8.self, repeating: 0, count: headerLength)
            header.storeBytes(of: 0xa1b2_c3d4, toByteOffset: 0, as: UInt32.self)
            header.storeBytes(of: 2, toByteOffset: 4, as: UInt16.self)
            header.storeBytes(of: 4, toByteOffset: 6, as: UInt16.self)
            header.storeBytes(of: 262_144, toByteOffset: 16, as: UInt32.self)
            header.storeBytes(of: linkType.rawValue, toByteOffset: 20, as: UInt32.self)
            guard let file = fmemopen(header, headerLength, "rb") else {
                header.deallocate()
                return nil
            }
            var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
            guard let handle = pcap_fopen_offline(file, &errorBuffer) else {
                fclose(file)
                header.deallocate()
                return nil
            }
            return (handle, header)
        }
    }

    private var programs: [LinkType: Result<CompiledProgram, CaptureError>] = [:]

    /// A filter for `expression`; nothing is compiled until the first `matches(_:)`.
    package init(expression: String) {
        self.expression = expression
    }

    /// True when the filter accepts `packet`. Throws `.badFilter` with libpcap's message when the
    /// expression does not compile for the packet's link type (compiled once: a failure is remembered).
    package func matches(_ packet: CapturedPacket) throws(CaptureError) -> Bool {
        let compiled: CompiledProgram
        if let known = programs[packet.linkType] {
            compiled = try known.get()
        } else {
            let attempt = Result { () throws(CaptureError) in
                try CompiledProgram(expression: expression, linkType: packet.linkType)
            }
            programs[packet.linkType] = attempt
            compiled = try attempt.get()
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

@testable import WireTally

/// Builds real frames for tests: link header, IPv4/IPv6 (options, extension headers, fragments) and
/// TCP/UDP with correct checksums (or deliberately wrong ones).
///
///     let syn = FrameBuilder.tcp(from: "10.0.0.1:1234", to: "10.0.0.2:80", seq: 1, flags: [.syn])
///     let pieces = FrameBuilder.ipv4Fragments(
///         FrameBuilder.udpSegment(from: "10.0.0.1:53", to: "10.0.0.2:53", payload: bytes), fragmentSize: 64)
///     let file = FrameBuilder.pcap(frames: [syn] + pieces, link: .ethernet)
enum FrameBuilder {
    // MARK: Link layers

    /// An 802.1Q-style tag: the TPID announcing it (0x8100, 0x88a8, 0x9100) and the VLAN id.
    struct VLANTag {
        var tpid: UInt16 = 0x8100
        var id: UInt16
    }

    /// How IP packets are framed.
    enum Link {
        case ethernet
        /// Ethernet II with VLAN tags, outermost first (QinQ: `[.init(tpid: 0x88a8, id: 100), .init(id: 10)]`).
        case ethernetTagged([VLANTag])
        /// 802.3 length field + LLC/SNAP carrying the EtherType.
        case ethernetSNAP
        /// Ethernet-declared but starting directly with the IP header (iOS `rvi`).
        case ethernetStartingWithIP
        case sll
        case sll2
        /// BSD NULL with the address family in little-endian (host) order.
        case null
        /// OpenBSD LOOP (address family in network order).
        case loop
        case raw
        case nflog
        /// PKTAP wrapping Ethernet.
        case pktap

        var linkType: LinkType {
            switch self {
            case .ethernet, .ethernetTagged, .ethernetSNAP, .ethernetStartingWithIP: return .ethernet
            case .sll: return .linuxSLL
            case .sll2: return .linuxSLL2
            case .null: return .null
            case .loop: return .loop
            case .raw: return .raw
            case .nflog: return .nflog
            case .pktap: return .pktap
            }
        }
    }

    /// Wraps an IPv4 or IPv6 packet in `link`'s header.
    static func frame(_ ip: [UInt8], link: Link) -> [UInt8] {
        let isIPv6 = (ip.first ?? 0) >> 4 == 6
        let etherType: UInt16 = isIPv6 ? 0x86dd : 0x0800
        let macs: [UInt8] = [0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01]
        switch link {
        case .ethernet:
            return macs + be16(etherType) + ip
        case let .ethernetTagged(tags):
            var header = macs
            for tag in tags { header += be16(tag.tpid) + be16(tag.id & 0x0fff) }
            return header + be16(etherType) + ip
        case .ethernetSNAP:
            return macs + be16(UInt16(8 + ip.count)) + [0xaa, 0xaa, 0x03, 0, 0, 0] + be16(etherType) + ip
        case .ethernetStartingWithIP, .raw:
            return ip
        case .sll:
            return be16(0) + be16(1) + be16(6) + [0x02, 0, 0, 0, 0, 0x01, 0, 0] + be16(etherType) + ip
        case .sll2:
            return be16(etherType) + be16(0) + be32(2) + be16(1) + [0, 6] + [0x02, 0, 0, 0, 0, 0x01, 0, 0] + ip
        case .null:
            return le32(isIPv6 ? 30 : 2) + ip
        case .loop:
            return be32(isIPv6 ? 24 : 2) + ip
        case .nflog:
            let prefix: [UInt8] = [0x41, 0x42, 0x43, 0]  // NFULA_PREFIX "ABC"
            let prefixTLV = le16(UInt16(4 + prefix.count)) + le16(10) + prefix
            let payloadTLV = le16(UInt16(4 + ip.count)) + le16(9) + ip
            let padding = [UInt8](repeating: 0, count: (4 - ip.count % 4) % 4)
            return [isIPv6 ? 10 : 2, 0] + be16(0) + prefixTLV + payloadTLV + padding
        case .pktap:
            let headerLength = 108
            var header = le32(UInt32(headerLength)) + le32(1) + le32(1)  // length, PTH_TYPE_PACKET, DLT_EN10MB
            header += [UInt8](repeating: 0, count: headerLength - header.count)
            return header + frame(ip, link: .ethernet)
        }
    }

    // MARK: Endpoints

    /// Parses `10.0.0.1:80` or `[2001:db8::1]:80`.
    static func endpoint(_ text: String) -> (address: IPAddress, port: UInt16) {
        if text.hasPrefix("["), let close = text.lastIndex(of: "]") {
            let address = IPAddress(String(text[text.index(after: text.startIndex)..<close]))!
            return (address, UInt16(text[text.index(close, offsetBy: 2)...])!)
        }
        let colon = text.lastIndex(of: ":")!
        return (IPAddress(String(text[..<colon]))!, UInt16(text[text.index(after: colon)...])!)
    }

    // MARK: Whole frames

    /// A framed TCP segment over IPv4 or IPv6 (chosen by the endpoints' address family).
    static func tcp(
        from source: String, to destination: String, seq: UInt32 = 0, ack: UInt32 = 0, flags: TCPFlags = [.ack],
        window: UInt16 = 65535, options: [TCPOptionBytes] = [], payload: [UInt8] = [], badChecksum: Bool = false,
        link: Link = .ethernet
    ) -> [UInt8] {
        let (from, to) = (endpoint(source), endpoint(destination))
        let segment = tcpSegment(
            from: source, to: destination, seq: seq, ack: ack, flags: flags, window: window, options: options,
            payload: payload, badChecksum: badChecksum)
        return frame(ip(from.address, to.address, protocol: 6, payload: segment), link: link)
    }

    /// A framed UDP datagram over IPv4 or IPv6.
    static func udp(
        from source: String, to destination: String, payload: [UInt8] = [], badChecksum: Bool = false,
        link: Link = .ethernet
    ) -> [UInt8] {
        let (from, to) = (endpoint(source), endpoint(destination))
        let segment = udpSegment(from: source, to: destination, payload: payload, badChecksum: badChecksum)
        return frame(ip(from.address, to.address, protocol: 17, payload: segment), link: link)
    }

    private static func ip(_ source: IPAddress, _ destination: IPAddress, protocol: UInt8, payload: [UInt8]) -> [UInt8] {
        source.isIPv6
            ? ipv6(source: source, destination: destination, nextHeader: `protocol`, payload: payload)
            : ipv4(source: source, destination: destination, protocol: `protocol`, payload: payload)
    }

    // MARK: Transport segments (checksummed against the endpoints' addresses)

    /// A TCP option, encoded; the header pads the list with NOPs to a multiple of 4.
    struct TCPOptionBytes {
        var bytes: [UInt8]
        static func mss(_ value: UInt16) -> TCPOptionBytes { .init(bytes: [2, 4] + be16(value)) }
        static func windowScale(_ shift: UInt8) -> TCPOptionBytes { .init(bytes: [3, 3, shift]) }
        static let sackPermitted = TCPOptionBytes(bytes: [4, 2])
        static func timestamps(_ value: UInt32, _ echo: UInt32) -> TCPOptionBytes {
            .init(bytes: [8, 10] + be32(value) + be32(echo))
        }
    }

    static func tcpSegment(
        from source: String, to destination: String, seq: UInt32 = 0, ack: UInt32 = 0, flags: TCPFlags = [.ack],
        window: UInt16 = 65535, options: [TCPOptionBytes] = [], payload: [UInt8] = [], badChecksum: Bool = false
    ) -> [UInt8] {
        let (from, to) = (endpoint(source), endpoint(destination))
        var optionBytes = options.flatMap(\.bytes)
        while optionBytes.count % 4 != 0 { optionBytes.append(1) }
        let headerLength = 20 + optionBytes.count
        var segment = be16(from.port) + be16(to.port) + be32(seq) + be32(ack)
        segment += be16(UInt16(headerLength / 4) << 12 | flags.rawValue & 0x1ff) + be16(window) + [0, 0, 0, 0]
        segment += optionBytes + payload
        setChecksum(&segment, at: 16, source: from.address, destination: to.address, protocol: 6, wrong: badChecksum)
        return segment
    }

    static func udpSegment(
        from source: String, to destination: String, payload: [UInt8] = [], badChecksum: Bool = false
    ) -> [UInt8] {
        let (from, to) = (endpoint(source), endpoint(destination))
        var segment = be16(from.port) + be16(to.port) + be16(UInt16(8 + payload.count)) + [0, 0] + payload
        setChecksum(&segment, at: 6, source: from.address, destination: to.address, protocol: 17, wrong: badChecksum)
        return segment
    }

    // MARK: IP

    /// An IPv4 packet. `options` are padded to a multiple of 4; `totalLength` overrides the length field.
    static func ipv4(
        source: IPAddress, destination: IPAddress, protocol: UInt8, payload: [UInt8], identification: UInt16 = 1,
        options: [UInt8] = [], moreFragments: Bool = false, fragmentOffset: Int = 0, totalLength: UInt16? = nil,
        badChecksum: Bool = false
    ) -> [UInt8] {
        var paddedOptions = options
        while paddedOptions.count % 4 != 0 { paddedOptions.append(0) }
        let headerLength = 20 + paddedOptions.count
        let flagsAndOffset = (moreFragments ? 0x2000 : 0) | UInt16(fragmentOffset / 8)
        var header = [0x40 | UInt8(headerLength / 4), 0] + be16(totalLength ?? UInt16(headerLength + payload.count))
        header += be16(identification) + be16(flagsAndOffset) + [64, `protocol`, 0, 0]
        header += be32(UInt32(truncatingIfNeeded: source.low)) + be32(UInt32(truncatingIfNeeded: destination.low))
        header += paddedOptions
        var checksum = ~onesComplementSum(header)
        if badChecksum { checksum = checksum &+ 1 }
        header[10] = UInt8(checksum >> 8)
        header[11] = UInt8(checksum & 0xff)
        return header + payload
    }

    /// An IPv6 extension header (8 bytes of padding options, 8-byte routing, 12-byte AH).
    enum IPv6Extension {
        case hopByHop, routing, destinationOptions, authentication

        var number: UInt8 {
            switch self {
            case .hopByHop: return 0
            case .routing: return 43
            case .destinationOptions: return 60
            case .authentication: return 51
            }
        }

        func encoded(nextHeader: UInt8) -> [UInt8] {
            switch self {
            case .hopByHop, .destinationOptions: return [nextHeader, 0, 1, 4, 0, 0, 0, 0]
            case .routing: return [nextHeader, 0, 0, 0, 0, 0, 0, 0]
            case .authentication: return [nextHeader, 1, 0, 0] + be32(0x100) + be32(1)
            }
        }
    }

    /// An IPv6 packet whose `payload` follows `extensions` (in order) and has upper layer `nextHeader`.
    static func ipv6(
        source: IPAddress, destination: IPAddress, nextHeader: UInt8, payload: [UInt8],
        extensions: [IPv6Extension] = [], payloadLength: UInt16? = nil
    ) -> [UInt8] {
        var chain: [UInt8] = []
        var next = nextHeader
        for ext in extensions.reversed() {
            chain = ext.encoded(nextHeader: next) + chain
            next = ext.number
        }
        let body = chain + payload
        return [0x60, 0, 0, 0] + be16(payloadLength ?? UInt16(body.count)) + [next, 64]
            + address(source) + address(destination) + body
    }

    /// `transport` (a TCP/UDP segment) as IPv4 fragments of `fragmentSize` data bytes (a multiple of 8),
    /// framed for `link`, in order.
    static func ipv4Fragments(
        _ transport: [UInt8], from source: String, to destination: String, protocol: UInt8 = 6,
        fragmentSize: Int, identification: UInt16 = 7, link: Link = .ethernet
    ) -> [[UInt8]] {
        let (from, to) = (endpoint(source).address, endpoint(destination).address)
        return chunks(transport, size: fragmentSize).map { offset, data, isLast in
            frame(
                ipv4(
                    source: from, destination: to, protocol: `protocol`, payload: data,
                    identification: identification, moreFragments: !isLast, fragmentOffset: offset),
                link: link)
        }
    }

    /// `transport` as IPv6 fragments (Fragment header after `extensions`), framed for `link`, in order.
    static func ipv6Fragments(
        _ transport: [UInt8], from source: String, to destination: String, nextHeader: UInt8 = 6,
        fragmentSize: Int, identification: UInt32 = 0x1234_5678, extensions: [IPv6Extension] = [],
        link: Link = .raw
    ) -> [[UInt8]] {
        let (from, to) = (endpoint(source).address, endpoint(destination).address)
        return chunks(transport, size: fragmentSize).map { offset, data, isLast in
            let fragmentHeader = [nextHeader, 0] + be16(UInt16(offset) | (isLast ? 0 : 1)) + be32(identification)
            var chain: [UInt8] = []
            var next: UInt8 = 44
            for ext in extensions.reversed() {
                chain = ext.encoded(nextHeader: next) + chain
                next = ext.number
            }
            let body = chain + fragmentHeader + data
            return frame(
                [0x60, 0, 0, 0] + be16(UInt16(body.count)) + [next, 64] + address(from) + address(to) + body,
                link: link)
        }
    }

    // MARK: Capture files

    /// A little-endian microsecond pcap file holding `frames` (one second apart unless `timestamps`),
    /// each cut to `snaplen` bytes.
    static func pcap(frames: [[UInt8]], link: Link, timestamps: [Timestamp]? = nil, snaplen: Int = 262_144) -> [UInt8] {
        var file = le32(0xa1b2_c3d4) + le16(2) + le16(4) + le32(0) + le32(0) + le32(UInt32(snaplen))
        file += le32(link.linkType.rawValue)
        for (index, frame) in frames.enumerated() {
            let time = timestamps?[index] ?? Timestamp(seconds: 1_700_000_000 + Int64(index), nanoseconds: 0)
            file += le32(UInt32(time.nanoseconds / 1_000_000_000))
            file += le32(UInt32(time.nanoseconds % 1_000_000_000 / 1000))
            let captured = frame.prefix(snaplen)
            file += le32(UInt32(captured.count)) + le32(UInt32(frame.count)) + captured
        }
        return file
    }

    // MARK: Helpers

    static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xff)] }
    static func be32(_ value: UInt32) -> [UInt8] { be16(UInt16(value >> 16)) + be16(UInt16(value & 0xffff)) }
    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xff), UInt8(value >> 8)] }
    static func le32(_ value: UInt32) -> [UInt8] { le16(UInt16(value & 0xffff)) + le16(UInt16(value >> 16)) }

    private static func address(_ address: IPAddress) -> [UInt8] {
        address.isIPv6
            ? be32(UInt32(address.high >> 32)) + be32(UInt32(truncatingIfNeeded: address.high))
                + be32(UInt32(address.low >> 32)) + be32(UInt32(truncatingIfNeeded: address.low))
            : be32(UInt32(truncatingIfNeeded: address.low))
    }

    /// Splits `bytes` into (offset, data, isLast) pieces of `size` bytes.
    private static func chunks(_ bytes: [UInt8], size: Int) -> [(Int, [UInt8], Bool)] {
        stride(from: 0, to: max(bytes.count, 1), by: size).map { offset in
            let end = min(offset + size, bytes.count)
            return (offset, Array(bytes[offset..<end]), end == bytes.count)
        }
    }

    /// A straightforward byte-pair ones-complement sum, independent of the decoder's.
    static func onesComplementSum(_ bytes: [UInt8]) -> UInt16 {
        var sum: UInt64 = 0
        var index = 0
        while index < bytes.count {
            sum += UInt64(bytes[index]) << 8 | (index + 1 < bytes.count ? UInt64(bytes[index + 1]) : 0)
            index += 2
        }
        while sum > 0xffff { sum = (sum & 0xffff) + (sum >> 16) }
        return UInt16(sum)
    }

    private static func setChecksum(
        _ segment: inout [UInt8], at offset: Int, source: IPAddress, destination: IPAddress, protocol: UInt8,
        wrong: Bool
    ) {
        let pseudo = address(source) + address(destination) + be32(UInt32(segment.count)) + [0, 0, 0, `protocol`]
        var checksum = ~onesComplementSum(pseudo + segment)
        if `protocol` == 17 && checksum == 0 { checksum = 0xffff }
        if wrong { checksum = checksum == 0x1234 ? 0x4321 : 0x1234 }
        segment[offset] = UInt8(checksum >> 8)
        segment[offset + 1] = UInt8(checksum & 0xff)
    }
}

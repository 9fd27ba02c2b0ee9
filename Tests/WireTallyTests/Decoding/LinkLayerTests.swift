import Testing
@testable import WireTally

@Suite struct LinkLayerTests {
    static let allLinks: [FrameBuilder.Link] = [
        .ethernet, .ethernetTagged([.init(id: 10)]), .ethernetTagged([.init(tpid: 0x88a8, id: 100), .init(id: 10)]),
        .ethernetTagged([.init(tpid: 0x9100, id: 5), .init(tpid: 0x9100, id: 6), .init(id: 7)]), .ethernetSNAP,
        .ethernetStartingWithIP, .sll, .sll2, .null, .loop, .raw, .nflog, .pktap,
    ]

    @Test(arguments: allLinks)
    func tcpOverIPv4AndIPv6(link: FrameBuilder.Link) {
        for (from, to) in [("10.0.0.1:1234", "10.0.0.2:80"), ("[2001:db8::1]:1234", "[2001:db8::2]:80")] {
            let payload = Array("GET / HTTP/1.1\r\n\r\n".utf8)
            let frame = FrameBuilder.tcp(from: from, to: to, seq: 1, flags: [.ack, .psh], payload: payload, link: link)
            let summary = PacketDecoder().summary(of: frame, link: link)
            #expect(summary.kind == .tcp)
            #expect(summary.source == FrameBuilder.endpoint(from).address)
            #expect(summary.destination == FrameBuilder.endpoint(to).address)
            #expect(summary.sourcePort == 1234 && summary.destinationPort == 80)
            #expect(summary.payload == payload)
            #expect(summary.wire.frameBytes == frame.count)
            #expect(summary.wire.ipBytes == (from.hasPrefix("[") ? 40 : 20) + 20 + payload.count)
            #expect(!summary.badTransportChecksum && !summary.badIPChecksum)
        }
    }

    @Test func vlanIdsAreReported() {
        let tags: [FrameBuilder.VLANTag] = [.init(tpid: 0x88a8, id: 100), .init(id: 10), .init(id: 1)]
        let cases: [([FrameBuilder.VLANTag], VLANTags)] = [
            ([], VLANTags()), ([.init(id: 4095)], VLANTags(outer: 4095)),
            (tags, VLANTags(outer: 100, inner: 10)),
        ]
        for (frameTags, expected) in cases {
            let link = FrameBuilder.Link.ethernetTagged(frameTags)
            let frame = FrameBuilder.tcp(from: "10.0.0.1:1", to: "10.0.0.2:2", link: link)
            #expect(PacketDecoder().summary(of: frame, link: link).vlan == expected)
        }
    }

    @Test func nullAcceptsEitherByteOrderAndAllIPv6Families() {
        let ip = Array(FrameBuilder.udp(from: "[::1]:5", to: "[::1]:6", link: .raw))
        for family: UInt32 in [24, 28, 30] {
            for header in [FrameBuilder.le32(family), FrameBuilder.be32(family)] {
                #expect(PacketDecoder().summary(of: header + ip, linkType: .null).kind == .udp)
            }
        }
        #expect(PacketDecoder().summary(of: FrameBuilder.be32(2) + ip, linkType: .null).kind == .malformedIPKind)
        #expect(PacketDecoder().summary(of: FrameBuilder.le32(7) + ip, linkType: .null).kind == .undecoded(.nonIP))
    }

    @Test func nflogWithBigEndianTLVs() {
        let ip = FrameBuilder.udp(from: "10.0.0.1:5", to: "10.0.0.2:6", payload: [1, 2, 3], link: .raw)
        let frame = [2, 0, 0, 0] + FrameBuilder.be16(8) + FrameBuilder.be16(1) + [0, 0, 0, 0]
            + FrameBuilder.be16(UInt16(4 + ip.count)) + FrameBuilder.be16(9) + ip
        #expect(PacketDecoder().summary(of: frame, linkType: .nflog).payload == [1, 2, 3])
    }

    @Test func nonIPAndUnknownLinkTypes() {
        let arp = [UInt8](repeating: 0xff, count: 12) + [0x08, 0x06] + [UInt8](repeating: 0, count: 28)
        #expect(PacketDecoder().summary(of: arp, linkType: .ethernet).kind == .undecoded(.nonIP))
        let llc = [UInt8](repeating: 0x01, count: 12) + [0, 38, 0x42, 0x42, 0x03] + [UInt8](repeating: 0, count: 43)
        #expect(PacketDecoder().summary(of: llc, linkType: .ethernet).kind == .undecoded(.nonIP))
        let frame = FrameBuilder.tcp(from: "10.0.0.1:1", to: "10.0.0.2:2")
        let unknown = PacketDecoder().summary(of: frame, linkType: LinkType(rawValue: 147))
        #expect(unknown.kind == .undecoded(.unknownLinkType))
        #expect(unknown.wire == TrafficCounters(packets: 1, frameBytes: frame.count))
    }

    @Test func ethernetFrameStartingWithIPIsCounted() {
        let decoder = PacketDecoder()
        let frame = FrameBuilder.tcp(from: "10.0.0.1:1", to: "10.0.0.2:2", link: .ethernetStartingWithIP)
        #expect(decoder.summary(of: frame, link: .ethernetStartingWithIP).kind == .tcp)
        #expect(decoder.summary(of: FrameBuilder.tcp(from: "10.0.0.1:1", to: "10.0.0.2:2"), link: .ethernet).kind == .tcp)
        #expect(decoder.statistics.ethernetFramesStartingWithIP == 1)
    }
}

extension FrameSummary.Kind {
    static let malformedIPKind = FrameSummary.Kind.undecoded(.malformedIP)
}

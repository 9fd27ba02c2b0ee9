import Testing
@testable import WireTally

@Suite struct IPTests {
    let a = IPAddress("192.168.1.1")!
    let b = IPAddress("192.168.1.2")!
    let segment = FrameBuilder.tcpSegment(from: "192.168.1.1:40000", to: "192.168.1.2:80", payload: [9, 9, 9])

    @Test func ipv4OptionsAreSkipped() {
        let ip = FrameBuilder.ipv4(source: a, destination: b, protocol: 6, payload: segment, options: [0x94, 4, 0, 0, 1])
        let summary = PacketDecoder().summary(of: FrameBuilder.frame(ip, link: .ethernet), link: .ethernet)
        #expect(summary.kind == .tcp)
        #expect(summary.payload == [9, 9, 9])
        #expect(summary.wire.ipBytes == 28 + segment.count)
        #expect(!summary.badIPChecksum)
    }

    @Test func badHeaderChecksumIsCountedButDecoded() {
        let decoder = PacketDecoder()
        let ip = FrameBuilder.ipv4(source: a, destination: b, protocol: 6, payload: segment, badChecksum: true)
        let summary = decoder.summary(of: FrameBuilder.frame(ip, link: .raw), link: .raw)
        #expect(summary.kind == .tcp && summary.badIPChecksum)
        #expect(decoder.statistics.badIPv4HeaderChecksums == 1)
    }

    @Test func zeroTotalLengthUsesTheFrameSize() {
        let decoder = PacketDecoder()
        let ip = FrameBuilder.ipv4(source: a, destination: b, protocol: 6, payload: segment, totalLength: 0)
        let summary = decoder.summary(of: FrameBuilder.frame(ip, link: .ethernet), link: .ethernet)
        #expect(summary.kind == .tcp)
        #expect(summary.wire.ipBytes == ip.count)
        #expect(summary.payloadLength == 3)
        #expect(decoder.statistics.ipLengthFallbacks == 1)
    }

    @Test func totalLengthBeyondTheWireFrameFallsBack() {
        let ip = FrameBuilder.ipv4(source: a, destination: b, protocol: 6, payload: segment, totalLength: 9000)
        let summary = PacketDecoder().summary(of: FrameBuilder.frame(ip, link: .sll), link: .sll)
        #expect(summary.kind == .tcp && summary.wire.ipBytes == ip.count)
    }

    @Test func ethernetPaddingIsNotCounted() {
        let ip = FrameBuilder.ipv4(source: a, destination: b, protocol: 6, payload: FrameBuilder.tcpSegment(
            from: "192.168.1.1:1", to: "192.168.1.2:2"))
        let frame = FrameBuilder.frame(ip, link: .ethernet) + [UInt8](repeating: 0, count: 6)
        let summary = PacketDecoder().summary(of: frame, link: .ethernet)
        #expect(summary.kind == .tcp && summary.wire.ipBytes == 40 && summary.wire.frameBytes == 60)
        #expect(summary.payloadLength == 0 && !summary.badTransportChecksum)
    }

    @Test func totalLengthBelowHeaderLengthIsMalformed() {
        let ip = FrameBuilder.ipv4(source: a, destination: b, protocol: 6, payload: segment, totalLength: 12)
        let summary = PacketDecoder().summary(of: ip, link: .raw)
        #expect(summary.kind == .undecoded(.malformedIP))
    }

    @Test func ipv6ExtensionHeadersAreWalked() {
        let source = IPAddress("2001:db8::1")!, destination = IPAddress("2001:db8::2")!
        let udp = FrameBuilder.udpSegment(from: "[2001:db8::1]:53", to: "[2001:db8::2]:53", payload: [1, 2])
        let ip = FrameBuilder.ipv6(
            source: source, destination: destination, nextHeader: 17, payload: udp,
            extensions: [.hopByHop, .routing, .authentication, .destinationOptions])
        let summary = PacketDecoder().summary(of: ip, link: .raw)
        #expect(summary.kind == .udp && summary.payload == [1, 2] && !summary.badTransportChecksum)
        #expect(summary.wire.ipBytes == ip.count && summary.transportLength == udp.count)
    }

    @Test func espAndNoNextHeaderAreOtherIP() {
        let source = IPAddress("2001:db8::1")!, destination = IPAddress("2001:db8::2")!
        for next: UInt8 in [50, 59] {
            let ip = FrameBuilder.ipv6(source: source, destination: destination, nextHeader: next, payload: [1, 2, 3, 4])
            let summary = PacketDecoder().summary(of: ip, link: .raw)
            #expect(summary.kind == .otherIP && summary.transportProtocol == next && summary.transportLength == 4)
        }
    }

    @Test func extensionHeaderBeyondTheDeclaredLengthIsMalformed() {
        let ip = FrameBuilder.ipv6(
            source: IPAddress("::1")!, destination: IPAddress("::2")!, nextHeader: 6, payload: [],
            extensions: [.hopByHop], payloadLength: 4)
        #expect(PacketDecoder().summary(of: ip, link: .raw).kind == .undecoded(.malformedIP))
    }

    @Test func versionMismatchWithTheLinkHeaderIsMalformed() {
        let ip = FrameBuilder.ipv4(source: a, destination: b, protocol: 6, payload: segment)
        #expect(PacketDecoder().summary(of: ip, linkType: .ipv6).kind == .undecoded(.malformedIP))
        #expect(PacketDecoder().summary(of: ip, linkType: .ipv4).kind == .tcp)
    }
}

import Testing
@testable import WireTally

@Suite struct RobustnessTests {
    static let payload: [UInt8] = [0xa5, 0x5a, 0xc3, 0x3c, 0x99, 0x66, 0x0f, 0xf0, 0x81, 0x18]

    static func frames(link: FrameBuilder.Link) -> [[UInt8]] {
        let options: [FrameBuilder.TCPOptionBytes] = [.mss(1460), .timestamps(1, 2)]
        let v6 = FrameBuilder.ipv6(
            source: IPAddress("2001:db8::1")!, destination: IPAddress("2001:db8::2")!, nextHeader: 6,
            payload: FrameBuilder.tcpSegment(from: "[2001:db8::1]:1", to: "[2001:db8::2]:2", payload: payload),
            extensions: [.hopByHop, .destinationOptions])
        return [
            FrameBuilder.tcp(from: "10.0.0.1:1", to: "10.0.0.2:2", options: options, payload: payload, link: link),
            FrameBuilder.udp(from: "[2001:db8::1]:1", to: "[2001:db8::2]:2", payload: payload, link: link),
            FrameBuilder.frame(v6, link: link),
        ]
    }

    /// Cutting a frame anywhere before the payload gives `.truncated`; anywhere in it, the payload prefix.
    @Test(arguments: LinkLayerTests.allLinks)
    func truncatedAtEveryOffset(link: FrameBuilder.Link) throws {
        for frame in Self.frames(link: link) {
            let payloadStart = try #require(
                (0...(frame.count - Self.payload.count)).first { Array(frame[$0..<($0 + Self.payload.count)]) == Self.payload })
            for captured in 0...frame.count {
                let summary = PacketDecoder().summary(of: frame, link: link, captured: captured)
                if captured < payloadStart {
                    #expect(summary.kind == .undecoded(.truncated), "\(link) cut at \(captured)")
                } else {
                    #expect(summary.kind == .tcp || summary.kind == .udp, "\(link) cut at \(captured)")
                    #expect(summary.payload == Array(Self.payload.prefix(captured - payloadStart)))
                    #expect(summary.payloadLength == Self.payload.count)
                }
            }
        }
    }

    /// Random bytes, and valid frames with random bytes overwritten, never crash any link decoder.
    @Test func garbageNeverCrashes() {
        let linkTypes: [LinkType] = [
            .ethernet, .linuxSLL, .linuxSLL2, .null, .loop, .raw, .ipv4, .ipv6, .nflog, .pktap, LinkType(rawValue: 9999),
        ]
        var generator = SeededGenerator(state: 42)
        let decoder = PacketDecoder(maximumHeldFragmentBytes: 1 << 17, maximumHeldFragmentDatagrams: 16)
        let templates = LinkLayerTests.allLinks.flatMap { Self.frames(link: $0) }
            + FrameBuilder.ipv4Fragments(
                FrameBuilder.tcpSegment(from: "10.0.0.1:1", to: "10.0.0.2:2", payload: [UInt8](repeating: 1, count: 300)),
                from: "10.0.0.1:1", to: "10.0.0.2:2", fragmentSize: 64)
        for round in 0..<4000 {
            var frame: [UInt8]
            if round % 2 == 0 {
                frame = (0..<Int.random(in: 0..<120, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
                if let first = frame.indices.first, round % 4 == 0 { frame[first] = [0x45, 0x60, 0x4f][round % 3] }
            } else {
                frame = templates[Int.random(in: 0..<templates.count, using: &generator)]
                for _ in 0..<Int.random(in: 1...4, using: &generator) where !frame.isEmpty {
                    frame[Int.random(in: 0..<frame.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
            }
            let linkType = linkTypes[Int.random(in: 0..<linkTypes.count, using: &generator)]
            let captured = Int.random(in: 0...frame.count, using: &generator)
            _ = decoder.summary(of: frame, linkType: linkType, captured: captured, frameNumber: round)
        }
        _ = decoder.flushFragments()
        #expect(decoder.heldFragmentDatagrams == 0)
    }
}

import Testing
@testable import WireTally

@Suite struct FragmentTests {
    let payload = (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) }
    var segment: [UInt8] { FrameBuilder.tcpSegment(from: "10.0.0.1:1234", to: "10.0.0.2:80", seq: 5, payload: payload) }
    var fragments: [[UInt8]] {
        FrameBuilder.ipv4Fragments(segment, from: "10.0.0.1:1234", to: "10.0.0.2:80", fragmentSize: 256)
    }

    /// Decodes `frames` in order and returns the summaries.
    func decodeAll(_ frames: [[UInt8]], with decoder: PacketDecoder = PacketDecoder(), link: FrameBuilder.Link = .ethernet)
        -> [FrameSummary]
    {
        frames.enumerated().map { index, frame in
            decoder.summary(of: frame, link: link, frameNumber: index + 1,
                            timestamp: Timestamp(seconds: Int64(index), nanoseconds: 0))
        }
    }

    func expectReassembled(_ summary: FrameSummary?, frames: [[UInt8]]) {
        #expect(summary?.kind == .tcp)
        #expect(summary?.wasFragmented == true)
        #expect(summary?.payload == payload)
        #expect(summary?.badTransportChecksum == false)
        #expect(summary?.wire.packets == frames.count)
        #expect(summary?.wire.frameBytes == frames.reduce(0) { $0 + $1.count })
        #expect(summary?.wire.ipBytes == frames.reduce(0) { $0 + $1.count - 14 })
    }

    @Test func inOrder() {
        let decoder = PacketDecoder()
        let summaries = decodeAll(fragments, with: decoder)
        #expect(fragments.count == 4)
        #expect(summaries.dropLast().allSatisfy { $0.kind == .heldFragment })
        expectReassembled(summaries.last, frames: fragments)
        #expect(decoder.statistics.fragmentedDatagrams == 1 && decoder.statistics.fragments.fragments == 4)
        #expect(decoder.heldFragmentDatagrams == 0)
        #expect(decoder.flushFragments() == .zero)
    }

    /// The reader thread's decoding: fragments are left (false, nothing counted) to the decoder that
    /// reassembles; other frames decode as with `decode`.
    @Test func decodingUnlessFragmentLeavesFragmentsAndTheirCountsAlone() {
        let stateless = PacketDecoder()
        let whole = FrameBuilder.frame(
            FrameBuilder.ipv4(source: IPAddress("10.0.0.1")!, destination: IPAddress("10.0.0.2")!, protocol: 6, payload: segment),
            link: .ethernet)
        var corrupted = fragments[0]
        corrupted[14 + 10] ^= 0xff  // a bad header checksum: counted only by the decoder that reassembles
        for frame in [corrupted] + fragments.dropFirst() {
            var decoded = DecodedPacket.heldFragment
            let isDecoded = frame.withUnsafeBytes { bytes in
                stateless.decodeUnlessFragment(CapturedPacket(
                    frameNumber: 1, timestamp: Timestamp(nanoseconds: 0), linkType: .ethernet,
                    originalLength: bytes.count, bytes: bytes), into: &decoded)
            }
            #expect(!isDecoded)
        }
        #expect(stateless.statistics == DecoderStatistics())
        #expect(stateless.heldFragmentDatagrams == 0)
        let reference = decodeAll([whole]).first
        var decoded = DecodedPacket.heldFragment
        let isDecoded = whole.withUnsafeBytes { bytes in
            stateless.decodeUnlessFragment(CapturedPacket(
                frameNumber: 1, timestamp: Timestamp(seconds: 0, nanoseconds: 0), linkType: .ethernet,
                originalLength: bytes.count, bytes: bytes), into: &decoded)
        }
        guard isDecoded, case let .tcp(ip, tcp) = decoded else {
            Issue.record("not decoded as TCP: \(String(describing: decoded))")
            return
        }
        #expect(reference?.kind == .tcp && tcp.payloadLength == payload.count && ip.wire.ipBytes == whole.count - 14)
    }

    @Test func outOfOrder() {
        let shuffled = [fragments[2], fragments[3], fragments[0], fragments[1]]
        expectReassembled(decodeAll(shuffled).last, frames: shuffled)
    }

    @Test func duplicateAndOverlappingFragmentsKeepTheFirstCopy() {
        // A fragment overlapping [128, 384) with garbage, sent after the real ones: the first copy wins.
        let source = IPAddress("10.0.0.1")!, destination = IPAddress("10.0.0.2")!
        let garbage = FrameBuilder.frame(
            FrameBuilder.ipv4(
                source: source, destination: destination, protocol: 6, payload: [UInt8](repeating: 0xee, count: 256),
                identification: 7, moreFragments: true, fragmentOffset: 128),
            link: .ethernet)
        let frames = [fragments[0], fragments[1], fragments[1], garbage, fragments[2], fragments[3]]
        let decoder = PacketDecoder()
        expectReassembled(decodeAll(frames, with: decoder).last, frames: frames)
        #expect(decoder.statistics.fragments.overlaps == 2)
    }

    @Test func neverCompletedIsReportedByFlush() {
        let decoder = PacketDecoder()
        let partial = [fragments[0], fragments[1], fragments[3]]
        #expect(decodeAll(partial, with: decoder).allSatisfy { $0.kind == .heldFragment })
        let flushed = decoder.flushFragments()
        #expect(flushed.packets == 3)
        #expect(flushed.frameBytes == partial.reduce(0) { $0 + $1.count })
        #expect(flushed.ipBytes == partial.reduce(0) { $0 + $1.count - 14 })
        #expect(decoder.statistics.fragments.flushedDatagrams == 1)
        #expect(decoder.flushFragments() == .zero)
    }

    @Test func expiryDropsOnlyOlderDatagrams() {
        let decoder = PacketDecoder()
        let other = FrameBuilder.ipv4Fragments(
            segment, from: "10.0.0.1:1", to: "10.0.0.2:2", fragmentSize: 256, identification: 8)
        _ = decoder.summary(of: fragments[0], link: .ethernet, timestamp: Timestamp(seconds: 1, nanoseconds: 0))
        _ = decoder.summary(of: other[0], link: .ethernet, timestamp: Timestamp(seconds: 10, nanoseconds: 0))
        let expired = decoder.expireFragments(olderThan: Timestamp(seconds: 5, nanoseconds: 0))
        #expect(expired == TrafficCounters(packets: 1, ipBytes: fragments[0].count - 14, frameBytes: fragments[0].count))
        #expect(decoder.heldFragmentDatagrams == 1)
        #expect(decoder.statistics.fragments.expiredDatagrams == 1)
    }

    @Test func limitsEvictTheOldestDatagram() {
        let decoder = PacketDecoder(maximumHeldFragmentDatagrams: 2)
        for id: UInt16 in 1...3 {
            let first = FrameBuilder.ipv4Fragments(
                segment, from: "10.0.0.1:1", to: "10.0.0.2:2", fragmentSize: 256, identification: id)[0]
            _ = decoder.summary(of: first, link: .ethernet, timestamp: Timestamp(seconds: Int64(id), nanoseconds: 0))
        }
        #expect(decoder.heldFragmentDatagrams == 2)
        #expect(decoder.statistics.fragments.evictedDatagrams == 1)
        #expect(decoder.expireFragments(olderThan: Timestamp(nanoseconds: 0)).packets == 1)
    }

    @Test func oversizedDatagramIsDropped() {
        let decoder = PacketDecoder()
        let ip = FrameBuilder.ipv4(
            source: IPAddress("10.0.0.1")!, destination: IPAddress("10.0.0.2")!, protocol: 17,
            payload: [UInt8](repeating: 1, count: 200), moreFragments: true, fragmentOffset: 65400)
        #expect(decoder.summary(of: ip, link: .raw).kind == .undecoded(.malformedIP))
        #expect(decoder.statistics.fragments.oversizedDatagrams == 1)
    }

    @Test func snaplenCutFragmentCompletesWithTruncatedPayload() {
        let decoder = PacketDecoder()
        var last: FrameSummary?
        for (index, frame) in fragments.enumerated() {
            last = decoder.summary(of: frame, link: .ethernet, captured: index == 2 ? 100 : nil)
        }
        #expect(last?.kind == .tcp && last?.payloadLength == payload.count)
        #expect(last?.payload == Array(payload[0..<(512 + (100 - 34) - 20)]))
    }

    @Test func ipv6FragmentsWithExtensionHeaders() {
        let from = "[2001:db8::1]:443", to = "[2001:db8::2]:55555"
        let tcp = FrameBuilder.tcpSegment(from: from, to: to, payload: payload)
        let frames = FrameBuilder.ipv6Fragments(
            tcp, from: from, to: to, fragmentSize: 304, extensions: [.hopByHop, .routing], link: .sll2)
        let decoder = PacketDecoder()
        let summaries = decodeAll(frames.reversed(), with: decoder, link: .sll2)
        #expect(summaries.dropLast().allSatisfy { $0.kind == .heldFragment })
        let last = summaries.last
        #expect(last?.kind == .tcp && last?.payload == payload && last?.badTransportChecksum == false)
        #expect(last?.wire.ipBytes == frames.reduce(0) { $0 + $1.count - 20 })
        #expect(last?.wire.packets == frames.count && last?.wasFragmented == true)
    }

    @Test func ipv6FragmentsOfDifferentIdentificationsStaySeparate() {
        let from = "[2001:db8::1]:53", to = "[2001:db8::2]:53"
        let udp = FrameBuilder.udpSegment(from: from, to: to, payload: payload)
        let first = FrameBuilder.ipv6Fragments(udp, from: from, to: to, nextHeader: 17, fragmentSize: 512, identification: 1)
        let second = FrameBuilder.ipv6Fragments(udp, from: from, to: to, nextHeader: 17, fragmentSize: 512, identification: 2)
        let summaries = decodeAll([first[0], second[1], first[1], second[0]], link: .raw)
        #expect(summaries.map(\.kind) == [.heldFragment, .heldFragment, .udp, .udp])
        #expect(summaries[3].payload == payload)
    }
}

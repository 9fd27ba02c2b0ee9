import Testing
@testable import WireTally

@Suite struct TransportTests {
    @Test func tcpHeaderAndOptions() {
        let frame = FrameBuilder.tcp(
            from: "10.0.0.1:1234", to: "10.0.0.2:80", seq: 100, ack: 0, flags: [.syn],
            options: [.mss(1460), .sackPermitted, .timestamps(7, 0), .windowScale(7)])
        let summary = PacketDecoder().summary(of: frame, link: .ethernet)
        #expect(summary.tcpFlags == [.syn])
        #expect(summary.tcpOptions == TCPOptions(
            maximumSegmentSize: 1460, windowScale: 7, sackPermitted: true, timestampValue: 7, timestampEchoReply: 0))
        #expect(!summary.badTransportChecksum)
    }

    @Test func badChecksumsAreCountedButDecoded() {
        let decoder = PacketDecoder()
        for from in ["10.0.0.1:1", "[fe80::1]:1"] {
            let to = from.hasPrefix("[") ? "[fe80::2]:2" : "10.0.0.2:2"
            let tcp = decoder.summary(of: FrameBuilder.tcp(from: from, to: to, payload: [1], badChecksum: true), link: .ethernet)
            let udp = decoder.summary(of: FrameBuilder.udp(from: from, to: to, payload: [1], badChecksum: true), link: .ethernet)
            #expect(tcp.kind == .tcp && tcp.badTransportChecksum && tcp.payload == [1])
            #expect(udp.kind == .udp && udp.badTransportChecksum && udp.payload == [1])
        }
        #expect(decoder.statistics.badTCPChecksums == 2 && decoder.statistics.badUDPChecksums == 2)
        #expect(decoder.statistics.badTransportChecksums == 4)
    }

    @Test func checksumIsNotJudgedWhenTheSnaplenCutTheSegment() {
        let frame = FrameBuilder.tcp(from: "10.0.0.1:1", to: "10.0.0.2:2", payload: [UInt8](repeating: 7, count: 100), badChecksum: true)
        let summary = PacketDecoder().summary(of: frame, link: .ethernet, captured: frame.count - 10)
        #expect(summary.kind == .tcp && !summary.badTransportChecksum)
        #expect(summary.payloadLength == 100 && summary.payload.count == 90)
    }

    @Test func zeroUDPChecksumOverIPv4MeansNone() {
        var frame = FrameBuilder.udp(from: "10.0.0.1:1", to: "10.0.0.2:2", payload: [1, 2, 3])
        frame[14 + 20 + 6] = 0
        frame[14 + 20 + 7] = 0
        #expect(!PacketDecoder().summary(of: frame, link: .ethernet).badTransportChecksum)
    }

    @Test func inconsistentUDPLengthFallsBackToTheIPLength() {
        let decoder = PacketDecoder()
        var frame = FrameBuilder.udp(from: "10.0.0.1:1", to: "10.0.0.2:2", payload: [1, 2, 3])
        frame[14 + 20 + 4] = 0x10
        let summary = decoder.summary(of: frame, link: .ethernet)
        #expect(summary.kind == .udp && summary.payloadLength == 3)
        #expect(decoder.statistics.inconsistentUDPLengths == 1)
    }

    @Test func transportHeaderCutBySnaplenIsTruncatedWithIPBytes() {
        let frame = FrameBuilder.tcp(from: "10.0.0.1:1", to: "10.0.0.2:2", options: [.mss(1400)], payload: [1, 2])
        for captured in 34..<(34 + 24) {
            let summary = PacketDecoder().summary(of: frame, link: .ethernet, captured: captured)
            #expect(summary.kind == .undecoded(.truncated))
            #expect(summary.wire == TrafficCounters(packets: 1, ipBytes: 46, frameBytes: frame.count))
        }
    }

    @Test func tcpDataOffsetOutOfRangeIsMalformed() {
        for offsetByte: UInt8 in [0x40, 0xf0] {
            var frame = FrameBuilder.tcp(from: "10.0.0.1:1", to: "10.0.0.2:2")
            frame[14 + 20 + 12] = offsetByte
            #expect(PacketDecoder().summary(of: frame, link: .ethernet).kind == .undecoded(.malformedIP))
        }
    }

    @Test func otherProtocolsAreOtherIP() {
        let ip = FrameBuilder.ipv4(
            source: IPAddress("10.0.0.1")!, destination: IPAddress("10.0.0.2")!, protocol: 1, payload: [8, 0, 0, 0])
        let summary = PacketDecoder().summary(of: ip, link: .raw)
        #expect(summary.kind == .otherIP && summary.transportProtocol == 1 && summary.wire.ipBytes == 24)
    }
}

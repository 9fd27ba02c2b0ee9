import CPcap
import Foundation
import Testing
@testable import WireTally

/// Decodes every public capture read by libpcap (an independent reader) and compares each frame with
/// tshark's dissection.
@Suite struct PublicCaptureTests {
    @Test(.requires(.publicCaptures, .tshark), arguments: TestPaths.publicCaptureFiles)
    func decodesLikeTshark(file: String) throws {
        let path = try Self.readablePath(of: file)
        let (summaries, decoder) = try Self.decodeWithLibpcap(path)
        #expect(decoder.heldFragmentDatagrams == 0 || decoder.flushFragments().packets > 0)
        let fields = try Self.tsharkFields(path)
        #expect(fields.count == summaries.count, "\(file): tshark saw \(fields.count) frames")
        var mismatches: [String] = []
        for (summary, row) in zip(summaries, fields) {
            if let problem = Self.compare(summary, row) { mismatches.append("frame \(row.first ?? "?"): \(problem)") }
        }
        #expect(mismatches.isEmpty, "\(file): \(mismatches.count) mismatches, e.g. \(mismatches.prefix(5))")
    }

    // MARK: libpcap

    static func decodeWithLibpcap(_ path: String) throws -> ([FrameSummary], PacketDecoder) {
        var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
        let handle = try #require(pcap_open_offline(path, &errorBuffer), "libpcap: \(String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
        defer { pcap_close(handle) }
        let linkType = LinkType(rawValue: UInt32(pcap_datalink(handle)))
        let decoder = PacketDecoder()
        var summaries: [FrameSummary] = []
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        while pcap_next_ex(handle, &header, &data) == 1, let header, let data {
            let time = Timestamp(
                seconds: Int64(header.pointee.ts.tv_sec), nanoseconds: Int64(header.pointee.ts.tv_usec) * 1000)
            let packet = CapturedPacket(
                frameNumber: summaries.count + 1, timestamp: time, linkType: linkType,
                originalLength: Int(header.pointee.len),
                bytes: UnsafeRawBufferPointer(start: data, count: Int(header.pointee.caplen)))
            summaries.append(decoder.summary(of: packet))
        }
        return (summaries, decoder)
    }

    /// The capture's path, gunzipped to a temporary file first when it is compressed.
    static func readablePath(of file: String) throws -> String {
        let path = try Requirement.publicCapture(file)
        guard file.hasSuffix(".gz") else { return path }
        let output = TestScratch.folder
            .appendingPathComponent("wiretally-decoding-\(ProcessInfo.processInfo.processIdentifier)-\(file.dropLast(3))")
        if !FileManager.default.fileExists(atPath: output.path) {
            try ExternalProgram.output("gzip", ["-dc", path]).write(to: output)
        }
        return output.path
    }

    // MARK: tshark

    static let tsharkFieldNames = [
        "frame.number", "ip.len", "ipv6.plen", "ip.src", "ip.dst", "ipv6.src", "ipv6.dst",
        "tcp.srcport", "tcp.dstport", "tcp.len", "udp.srcport", "udp.dstport", "udp.length", "_ws.expert.message",
        "ip.checksum.status", "tcp.checksum.status", "udp.checksum.status",
    ]

    /// One row of tshark fields per frame (multi-valued fields joined by ","), with checksums verified.
    static func tsharkFields(_ path: String) throws -> [[String]] {
        let checksumPreferences = ["ip", "tcp", "udp"].flatMap { ["-o", "\($0).check_checksum:TRUE"] }
        return try Tshark.fields(path, tsharkFieldNames, options: checksumPreferences)
    }

    /// A description of the first disagreement between the decoder and tshark, or nil.
    static func compare(_ summary: FrameSummary, _ row: [String]) -> String? {
        guard row.count == tsharkFieldNames.count else { return "tshark row \(row)" }
        let allValues = { (name: String) -> String in row[tsharkFieldNames.firstIndex(of: name)!] }
        let field = { (name: String) -> String in String(allValues(name).split(separator: ",").first ?? "") }
        let declaredIPLength = Int(field("ip.len")) ?? Int(field("ipv6.plen")).map { $0 + 40 }
        // The decoder counts the bytes on the wire when the IP length claims more than the frame has.
        let cutShort = allValues("_ws.expert.message").firstMatch(of: /total length exceeds packet length \((\d+) bytes\)/)
            .flatMap { Int($0.1) }
        let tsharkIPLength = cutShort ?? declaredIPLength
        switch summary.kind {
        case .heldFragment:
            return nil
        case .undecoded(.nonIP), .undecoded(.unknownLinkType):
            return tsharkIPLength == nil ? nil : "decoder: \(summary.kind), tshark IP length \(tsharkIPLength!)"
        case .undecoded:
            return nil
        case .tcp, .udp, .otherIP:
            let source = field("ip.src").isEmpty ? field("ipv6.src") : field("ip.src")
            let destination = field("ip.dst").isEmpty ? field("ipv6.dst") : field("ip.dst")
            guard summary.source == IPAddress(source), summary.destination == IPAddress(destination) else {
                return "addresses \(summary.source.map(String.init(describing:)) ?? "-") ≠ \(source)"
            }
            if !summary.wasFragmented, summary.wire.ipBytes != tsharkIPLength, tsharkIPLength != 0 {
                return "IP length \(summary.wire.ipBytes) ≠ \(tsharkIPLength.map(String.init) ?? "none")"
            }
            // tshark's checksum status: 0 bad, 1 good, 2 not verified.
            if field("ip.checksum.status") != "" && summary.badIPChecksum != (field("ip.checksum.status") == "0") {
                return "IP checksum bad: \(summary.badIPChecksum), tshark status \(field("ip.checksum.status"))"
            }
            let transportStatus = field(summary.kind == .tcp ? "tcp.checksum.status" : "udp.checksum.status")
            if summary.kind != .otherIP, summary.badTransportChecksum != (transportStatus == "0") {
                return "transport checksum bad: \(summary.badTransportChecksum), tshark status \(transportStatus)"
            }
            if summary.kind == .tcp {
                let tshark = [field("tcp.srcport"), field("tcp.dstport"), field("tcp.len")]
                let ours = [summary.sourcePort, summary.destinationPort].map { "\($0!)" } + ["\(summary.payloadLength!)"]
                return tshark == ours ? nil : "TCP \(ours) ≠ \(tshark)"
            }
            if summary.kind == .udp {
                let tshark = [field("udp.srcport"), field("udp.dstport"), field("udp.length")]
                let ours = [summary.sourcePort, summary.destinationPort].map { "\($0!)" } + ["\(summary.payloadLength! + 8)"]
                return tshark == ours ? nil : "UDP \(ours) ≠ \(tshark)"
            }
            return nil
        }
    }
}

/// FrameBuilder's pcap files read back through libpcap decode to the frames that went in.
@Suite struct FrameBuilderCaptureTests {
    @Test func pcapFileRoundTripsThroughLibpcap() throws {
        let frames = [
            FrameBuilder.tcp(from: "10.0.0.1:1234", to: "10.0.0.2:80", seq: 1, flags: [.syn]),
            FrameBuilder.tcp(from: "10.0.0.1:1234", to: "10.0.0.2:80", seq: 2, payload: [UInt8](repeating: 0x41, count: 200)),
        ] + FrameBuilder.ipv4Fragments(
            FrameBuilder.udpSegment(from: "10.0.0.1:53", to: "10.0.0.2:53", payload: [UInt8](repeating: 7, count: 100)),
            from: "10.0.0.1:53", to: "10.0.0.2:53", protocol: 17, fragmentSize: 64)
        let path = TestScratch.folder
            .appendingPathComponent("wiretally-framebuilder-\(ProcessInfo.processInfo.processIdentifier).pcap")
        try Data(FrameBuilder.pcap(frames: frames, link: .ethernet, snaplen: 100)).write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        let (summaries, _) = try PublicCaptureTests.decodeWithLibpcap(path.path)
        #expect(summaries.map(\.kind) == [.tcp, .tcp, .heldFragment, .udp])
        #expect(summaries[1].payloadLength == 200 && summaries[1].payload.count == 100 - 54)
        #expect(summaries[3].payloadLength == 100 && summaries[3].wire.packets == 2)
    }
}

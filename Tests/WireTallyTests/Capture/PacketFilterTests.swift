import Testing
@testable import WireTally

@Suite struct PacketFilterTests {
    /// Frame numbers of `path` that `filter` accepts, by our reader and `PacketFilter`.
    static func matchingFrames(path: String, filter: PacketFilter) throws -> [Int] {
        var source = try CaptureFile.open(path: path)
        var frames: [Int] = []
        while let packet = try source.nextPacket() {
            if try filter.matches(packet) { frames.append(packet.frameNumber) }
        }
        return frames
    }

    @Test(.requires(.publicCaptures), arguments: TestPaths.publicCaptureFiles.filter { !$0.hasSuffix(".gz") })
    func tcpPort80MatchesWhatLibpcapMatches(name: String) throws {
        let path = try Requirement.publicCapture(name)
        let filter = PacketFilter(expression: "tcp port 80")
        guard let expected = readWithLibpcap(path: path, filter: "tcp port 80") else {
            // libpcap cannot compile the expression for the file's link type (PKTAP, NFLOG): ours refuses it too.
            #expect(throws: CaptureError.self, "\(name)") { try Self.matchingFrames(path: path, filter: filter) }
            return
        }
        #expect(expected.error == nil, "\(name): \(expected.error ?? "")")
        #expect(try Self.matchingFrames(path: path, filter: filter) == expected.packets.map(\.frameNumber), "\(name)")
    }

    /// Match counts `tcpdump -r FILE 'tcp port 80' | wc -l` printed (tcpdump 4.99, libpcap 1.10).
    @Test(.requires(.publicCaptures), arguments: [
        ("pcapplusplus__raw_ip.pcap", 91), ("pcapplusplus__four_ipv6_http_streams.pcap", 81),
        ("zeek__http__get.pcap", 14), ("zeek__http__connect-with-header.pcap", 58),
    ])
    func tcpPort80MatchesAsManyFramesAsTcpdump(name: String, count: Int) throws {
        let frames = try Self.matchingFrames(path: try Requirement.publicCapture(name), filter: PacketFilter(expression: "tcp port 80"))
        #expect(frames.count == count)
    }

    @Test func filtersEthernetAndRawIPFramesInOnePcapNG() throws {
        let scratch = try TemporaryDirectory()
        var builder = PcapNGBuilder()
        builder.sectionHeader()
        builder.interface(linkType: 1)
        builder.interface(linkType: 101)
        builder.enhancedPacket(interface: 0, units: 1, data: ethernet(ipv4TCP(sourcePort: 5000, destinationPort: 80)))
        builder.enhancedPacket(interface: 1, units: 2, data: ipv4TCP(sourcePort: 5000, destinationPort: 443))
        builder.enhancedPacket(interface: 1, units: 3, data: ipv4TCP(sourcePort: 80, destinationPort: 5000))
        builder.enhancedPacket(interface: 0, units: 4, data: ethernet(ipv4TCP(sourcePort: 5000, destinationPort: 8080)))
        let path = try scratch.file("mixed.pcapng", builder.bytes)
        #expect(try Self.matchingFrames(path: path, filter: PacketFilter(expression: "tcp port 80")) == [1, 3])
    }

    @Test func badExpressionReportsLibpcapsMessage() throws {
        let filter = PacketFilter(expression: "tcp port eighty-ish and (")
        let error = #expect(throws: CaptureError.self) {
            try withPacket(ethernet(ipv4TCP(sourcePort: 1, destinationPort: 2)), nanoseconds: 0, linkType: .ethernet) {
                try filter.matches($0)
            }
        }
        guard case let .badFilter(expression, reason) = error else {
            Issue.record("expected .badFilter, got \(String(describing: error))")
            return
        }
        #expect(expression == "tcp port eighty-ish and (")
        #expect(!reason.isEmpty)
    }

    @Test func expressionInvalidForOneLinkTypeFailsOnlyThere() throws {
        let filter = PacketFilter(expression: "ether host 00:01:02:03:04:05")
        let ethernetMatch = try withPacket(ethernet(ipv4TCP(sourcePort: 1, destinationPort: 2)), nanoseconds: 0, linkType: .ethernet) {
            try filter.matches($0)
        }
        #expect(ethernetMatch)
        #expect(throws: CaptureError.self) {
            try withPacket(ipv4TCP(sourcePort: 1, destinationPort: 2), nanoseconds: 0, linkType: .raw) { try filter.matches($0) }
        }
    }
}

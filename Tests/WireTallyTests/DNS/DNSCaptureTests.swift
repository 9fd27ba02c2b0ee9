import Testing
@testable import WireTally

/// Whole analyses of synthetic captures: DNS records next to the flow and connection records that
/// count the same packets.
@Suite struct DNSCaptureTests {
    private static func time(_ milliseconds: Int64) -> Timestamp {
        Timestamp(nanoseconds: 1_700_000_000_000_000_000 + milliseconds * 1_000_000)
    }

    private static func analyze(_ frames: [([UInt8], Int64)]) throws -> (CollectingWriter, AnalysisRun.Result) {
        let scratch = try TemporaryDirectory()
        let path = try scratch.file("dns.pcap", FrameBuilder.pcap(
            frames: frames.map(\.0), link: .ethernet, timestamps: frames.map { time($0.1) }))
        return CollectingWriter.analyze([path])
    }

    @Test func retryUnansweredAndResponseWithoutQuery() throws {
        let client = "10.0.0.1", server = "10.0.0.53:53"
        let query = DNSMessageBuilder.query(id: 1, "www.example.com")
        let (writer, result) = try Self.analyze([
            (FrameBuilder.udp(from: "\(client):40001", to: server, payload: query), 0),
            (FrameBuilder.udp(from: "\(client):40001", to: server, payload: query), 1000),  // retry
            (FrameBuilder.udp(from: server, to: "\(client):40001", payload:
                DNSMessageBuilder.response(id: 1, "www.example.com", addresses: ["192.0.2.80"])), 1012),
            (FrameBuilder.udp(from: "\(client):40002", to: server, payload: DNSMessageBuilder.query(id: 2, "lost.example")), 2000),
            (FrameBuilder.udp(from: server, to: "\(client):40003", payload:
                DNSMessageBuilder.response(id: 3, "late.example", type: 28, addresses: ["2001:db8::3"])), 3000),
            (FrameBuilder.udp(from: "[2001:db8::1]:40004", to: "[2001:db8::53]:53", payload: DNSMessageBuilder.query(id: 4, "v6.example", type: 28)), 4000),
            (FrameBuilder.udp(from: "[2001:db8::53]:53", to: "[2001:db8::1]:40004", payload:
                DNSMessageBuilder.response(id: 4, "v6.example", type: 28, addresses: ["2001:db8::80"])), 4003),
        ])
        Conservation.check(writer, result)
        #expect(writer.summary?.int("dns_transactions") == 4)
        #expect(writer.dns.count == 4)

        let answered = try #require(writer.dns.first { $0.string("query") == "www.example.com" })
        #expect(answered.int("retries") == 1)
        #expect(answered.string("rcode") == "NOERROR")
        #expect(answered.string("qtype") == "A")
        #expect(answered.string("transport") == "udp")
        #expect(answered.string("client") == "10.0.0.1:40001")
        #expect(answered.string("server") == "10.0.0.53:53")
        #expect(answered["rtt"]?.plainText == "1012.000")
        #expect(answered["ts_query"]?.plainText == "1700000000.000000")
        #expect(answered.int("wire.packets") == 3)
        #expect(answered["addresses"] == .array([.string("192.0.2.80")]))
        #expect(answered.flagNames.isEmpty)

        let unanswered = try #require(writer.dns.first { $0.string("query") == "lost.example" })
        #expect(unanswered["rcode"] == .null)
        #expect(unanswered["rtt"] == .null)
        #expect(unanswered["ts_answer"] == .null)
        #expect(unanswered.flagNames == ["no_response"])
        #expect(unanswered.int("wire.packets") == 1)

        let orphan = try #require(writer.dns.first { $0.string("query") == "late.example" })
        #expect(orphan.flagNames == ["no_query"])
        #expect(orphan["ts_query"] == .null)
        #expect(orphan.string("client") == "10.0.0.1:40003")
        #expect(orphan.string("qtype") == "AAAA")

        let v6 = try #require(writer.dns.first { $0.string("query") == "v6.example" })
        #expect(v6.string("server") == "[2001:db8::53]:53")
        #expect(v6["addresses"] == .array([.string("2001:db8::80")]))

        DNSWire.expectUDPRecordsMatchFlows(writer)
    }

    /// A truncated answer (TC) and a fragmented one: the record counts every fragment of its datagram.
    @Test func truncatedAndFragmentedResponses() throws {
        let client = "10.0.0.1:40010", server = "10.0.0.53:53"
        var truncated = DNSMessageBuilder.response(id: 20, "big.example", addresses: ["192.0.2.1"])
        truncated[2] |= 0x02
        let many = (1...60).map { "198.51.100.\($0)" }
        let big = DNSMessageBuilder.response(id: 21, "many.example", addresses: many)
        let fragments = FrameBuilder.ipv4Fragments(
            FrameBuilder.udpSegment(from: server, to: "10.0.0.1:40011", payload: big), from: server, to: "10.0.0.1:40011",
            protocol: 17, fragmentSize: 400)
        #expect(fragments.count == 3)
        var frames: [([UInt8], Int64)] = [
            (FrameBuilder.udp(from: client, to: server, payload: DNSMessageBuilder.query(id: 20, "big.example")), 0),
            (FrameBuilder.udp(from: server, to: client, payload: truncated), 2),
            (FrameBuilder.udp(from: "10.0.0.1:40011", to: server, payload: DNSMessageBuilder.query(id: 21, "many.example")), 3),
        ]
        frames += fragments.enumerated().map { ($0.element, 5 + Int64($0.offset)) }
        let (writer, result) = try Self.analyze(frames)
        Conservation.check(writer, result)
        DNSWire.expectUDPRecordsMatchFlows(writer)
        let cut = try #require(writer.dns.first { $0.string("query") == "big.example" })
        #expect(cut["truncated"] == .bool(true))
        let fragmented = try #require(writer.dns.first { $0.string("query") == "many.example" })
        #expect(fragmented["truncated"] == .bool(false))
        #expect(fragmented.int("wire.packets") == 4)
        #expect(fragmented.int("wire.payload_bytes") == DNSMessageBuilder.query(id: 21, "many.example").count + big.count)
        #expect(fragmented["rtt"]?.plainText == "4.000")  // the datagram is complete with its last fragment
        guard case let .array(addresses)? = fragmented["addresses"] else {
            Issue.record("no addresses")
            return
        }
        #expect(addresses.count == 60)
    }

    @Test func dnsOverTCPSplitAcrossSegments() throws {
        let client = "10.0.0.1:50000", server = "10.0.0.53:53"
        let query1 = DNSMessageBuilder.query(id: 10, "a.example")
        let query2 = DNSMessageBuilder.query(id: 11, "b.example", type: 28)
        let upStream = FrameBuilder.be16(UInt16(query1.count)) + query1 + FrameBuilder.be16(UInt16(query2.count)) + query2
        let response1 = DNSMessageBuilder.response(id: 10, "a.example", addresses: ["192.0.2.1"])
        let response2 = DNSMessageBuilder.response(id: 11, "b.example", type: 28, addresses: ["2001:db8::b"])
        let downStream = FrameBuilder.be16(UInt16(response1.count)) + response1 + FrameBuilder.be16(UInt16(response2.count)) + response2
        let cut = 7
        let (writer, result) = try Self.analyze([
            (FrameBuilder.tcp(from: client, to: server, seq: 100, flags: [.syn]), 0),
            (FrameBuilder.tcp(from: server, to: client, seq: 500, ack: 101, flags: [.syn, .ack]), 1),
            (FrameBuilder.tcp(from: client, to: server, seq: 101, ack: 501), 2),
            (FrameBuilder.tcp(from: client, to: server, seq: 101, ack: 501, flags: [.ack, .psh], payload: Array(upStream[..<cut])), 3),
            (FrameBuilder.tcp(from: client, to: server, seq: 101 + UInt32(cut), ack: 501, flags: [.ack, .psh], payload: Array(upStream[cut...])), 4),
            (FrameBuilder.tcp(from: server, to: client, seq: 501, ack: 101 + UInt32(upStream.count), flags: [.ack, .psh], payload: downStream), 20),
            (FrameBuilder.tcp(from: client, to: server, seq: 101 + UInt32(upStream.count), ack: 501 + UInt32(downStream.count), flags: [.ack, .fin]), 21),
            (FrameBuilder.tcp(from: server, to: client, seq: 501 + UInt32(downStream.count), ack: 102 + UInt32(upStream.count), flags: [.ack, .fin]), 22),
            (FrameBuilder.tcp(from: client, to: server, seq: 102 + UInt32(upStream.count), ack: 502 + UInt32(downStream.count)), 23),
        ])
        Conservation.check(writer, result)
        #expect(writer.dns.count == 2)
        #expect(writer.exchanges.isEmpty)
        let first = try #require(writer.dns.first { $0.string("query") == "a.example" })
        #expect(first.string("transport") == "tcp")
        // A query is timed from its first byte (frame at 3 ms), a response at its last byte (20 ms).
        #expect(first["rtt"]?.plainText == "17.000")
        #expect(first.int("wire.payload_bytes") == query1.count + 2 + response1.count + 2)
        // Attribution as for HTTP exchanges: the handshake (3 packets), both query segments and the
        // response packet go to the first transaction; the second gets its split-off bytes and the
        // teardown (3 packets).
        #expect(first.int("wire.packets") == 6)
        #expect(first["conn"]?.int("index") == 0)
        let second = try #require(writer.dns.first { $0.string("query") == "b.example" })
        #expect(second.int("wire.packets") == 3)
        #expect(second.int("wire.payload_bytes") == query2.count + 2 + response2.count + 2)
        #expect(second["addresses"] == .array([.string("2001:db8::b")]))
        #expect(second["rtt"]?.plainText == "16.000")
    }
}

/// Checks that tie DNS records to the flow records counting the same datagrams.
enum DNSWire {
    /// Every UDP datagram on port 53 that parses as DNS is in exactly one `dns` record: the records' wire
    /// sums equal the port-53 flows' counters.
    static func expectUDPRecordsMatchFlows(_ writer: CollectingWriter, sourceLocation: SourceLocation = #_sourceLocation) {
        let levels = ["packets", "ip_bytes", "frame_bytes", "payload_bytes"]
        for level in levels {
            let inRecords = writer.dns.filter { $0.string("transport") == "udp" }.reduce(0) { $0 + ($1.int("wire.\(level)") ?? 0) }
            let inFlows = writer.flows.filter { flow in
                flow.string("proto") == "udp"
                    && [flow.string("client"), flow.string("server")].contains { $0?.hasSuffix(":53") == true }
            }.reduce(0) { $0 + ($1.int("up.\(level)") ?? 0) + ($1.int("down.\(level)") ?? 0) }
            #expect(inRecords == inFlows, "\(level)", sourceLocation: sourceLocation)
        }
    }
}

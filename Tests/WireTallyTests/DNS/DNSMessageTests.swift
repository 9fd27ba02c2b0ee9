import Testing
@testable import WireTally

@Suite struct DNSMessageTests {
    @Test func queryHeaderAndQuestion() throws {
        let message = try #require(parseDNS(DNSMessageBuilder.query(id: 0x1234, "Example.COM", type: 28)))
        #expect(message.header.id == 0x1234)
        #expect(!message.header.isResponse)
        #expect(message.header.recursionDesired)
        #expect(message.header.opcode == 0)
        #expect(message.question == DNSQuestion(name: "example.com", type: .aaaa))
        #expect(!message.isMalformed)
    }

    @Test func compressedCNAMEChainToAddresses() throws {
        // www.example.com CNAME edge.example.net; edge.example.net CNAME e1.cdn.example.net; e1… A ×2
        var builder = DNSMessageBuilder(id: 7, flags: 0x8180, answers: 4)
        builder.question("www.example.com", type: 1)
        let question = 12
        let firstTarget = builder.offset + 12  // data of the first record starts after pointer+10 bytes
        builder.cname(DNSMessageBuilder.pointer(question), [4] + Array("edge".utf8) + [7] + Array("example".utf8) + [3] + Array("net".utf8) + [0])
        let secondTarget = builder.offset + 12
        builder.cname(DNSMessageBuilder.pointer(firstTarget), [2] + Array("e1".utf8) + [3] + Array("cdn".utf8) + DNSMessageBuilder.pointer(firstTarget + 5))
        builder.a(DNSMessageBuilder.pointer(secondTarget), "192.0.2.1", ttl: 20)
        builder.a(DNSMessageBuilder.pointer(secondTarget), "192.0.2.2", ttl: 20)
        let message = try #require(parseDNS(builder.bytes))
        #expect(!message.isMalformed)
        #expect(message.answers.map(\.name) == ["www.example.com", "edge.example.net", "e1.cdn.example.net", "e1.cdn.example.net"])
        #expect(message.answers[0].data == .name("edge.example.net"))
        #expect(message.answers[1].data == .name("e1.cdn.example.net"))
        #expect(message.answers[2].ttl == 20)
        var transaction = DNSTransaction(
            messageID: 7, client: DNSEndpoint(address: IPAddress("10.0.0.1")!, port: 5000),
            server: DNSEndpoint(address: IPAddress("10.0.0.53")!, port: 53), transport: .udp, question: message.question)
        transaction.response = message
        #expect(transaction.cnames == ["edge.example.net", "e1.cdn.example.net"])
        #expect(transaction.addresses == [IPAddress("192.0.2.1")!, IPAddress("192.0.2.2")!])
    }

    @Test func aaaaAnswer() throws {
        let message = try #require(parseDNS(DNSMessageBuilder.response(id: 1, "v6.example", type: 28, addresses: ["2001:db8::1"])))
        #expect(message.answers.first?.type == .aaaa)
        #expect(message.answers.first?.data == .address(IPAddress("2001:db8::1")!))
        #expect(message.answers.first?.dataText == "2001:db8::1")
    }

    @Test func nxdomainWithSOAInAuthority() throws {
        var builder = DNSMessageBuilder(id: 9, flags: 0x8183, authorities: 1)
        builder.question("nope.example", type: 1)
        builder.record(DNSMessageBuilder.pointer(17), type: 6, ttl: 900, data: [UInt8](repeating: 0, count: 22))
        let message = try #require(parseDNS(builder.bytes))
        #expect(message.rcode == .nameError)
        #expect(message.rcode.description == "NXDOMAIN")
        #expect(message.answers.isEmpty)
        #expect(message.authorities.first?.name == "example")
        #expect(message.authorities.first?.data == .raw(length: 22))
        #expect(message.authorities.first?.type.description == "SOA")
    }

    @Test func truncatedFlag() throws {
        let message = try #require(parseDNS(DNSMessageBuilder.response(id: 2, "big.example") .enumerated().map { $0.offset == 2 ? $0.element | 0x02 : $0.element }))
        #expect(message.header.isTruncated)
    }

    @Test func ednsOPTRecognisedAndExtendsRcode() throws {
        var builder = DNSMessageBuilder(id: 3, flags: 0x8180, answers: 0, additionals: 1)
        builder.question("example.org", type: 1)
        builder.opt(payloadSize: 4096, extendedRcodeHigh: 1, dnssecOK: true, options: [0, 10, 0, 8] + [UInt8](repeating: 1, count: 8))
        let message = try #require(parseDNS(builder.bytes))
        #expect(message.edns == DNSEDNS(udpPayloadSize: 4096, extendedRcodeHigh: 1, version: 0, dnssecOK: true, optionsLength: 12))
        #expect(message.additionals.isEmpty)
        #expect(message.rcode.rawValue == 16)
        #expect(message.rcode.description == "BADVERS")
        let lean = try #require(builder.bytes.withUnsafeBytes { DNSMessage.parse($0, allSections: false) })
        #expect(lean.edns == message.edns)
        #expect(lean.rcode == message.rcode)
    }

    @Test func answersOnlyParseSkipsAuthorityAndAdditional() throws {
        var builder = DNSMessageBuilder(id: 3, flags: 0x8180, answers: 1, authorities: 1, additionals: 2)
        builder.question("example.org", type: 1)
        builder.a(DNSMessageBuilder.pointer(12), "192.0.2.1")
        builder.record(DNSMessageBuilder.pointer(12), type: 2, data: DNSMessageBuilder.encodedName("ns1.example.org"))
        builder.a(DNSMessageBuilder.encodedName("ns1.example.org"), "192.0.2.53")
        builder.opt(payloadSize: 1232)
        let full = try #require(parseDNS(builder.bytes))
        let lean = try #require(builder.bytes.withUnsafeBytes { DNSMessage.parse($0, allSections: false) })
        #expect(full.authorities.count == 1 && full.additionals.count == 1)
        #expect(lean.authorities.isEmpty && lean.additionals.isEmpty)
        #expect(lean.answers == full.answers)
        #expect(lean.edns?.udpPayloadSize == 1232)
        #expect(!lean.isMalformed && !full.isMalformed)
        var cut = builder.bytes
        cut.removeLast(3)
        #expect(cut.withUnsafeBytes { DNSMessage.parse($0, allSections: false) }?.isMalformed == true)
    }

    @Test func otherTypesKeepTypeAndLength() throws {
        var builder = DNSMessageBuilder(id: 4, flags: 0x8180, answers: 1)
        builder.question("svc.example", type: 16)
        builder.record(DNSMessageBuilder.pointer(12), type: 16, data: [9] + Array("v=spf1 -a".utf8))
        let message = try #require(parseDNS(builder.bytes))
        #expect(message.question?.type.description == "TXT")
        #expect(message.answers.first?.data == .raw(length: 10))
        #expect(DNSRecordType(rawValue: 65).description == "HTTPS")
        #expect(DNSRecordType(rawValue: 4242).description == "TYPE4242")
        #expect(DNSResponseCode(rawValue: 2).description == "SERVFAIL")
    }

    @Test func labelsWithOddBytesAreEscaped() throws {
        var builder = DNSMessageBuilder(id: 5, flags: 0x0100)
        builder.question([3, 0x61, 0x20, 0xff, 0], type: 1)
        let message = try #require(parseDNS(builder.bytes))
        #expect(message.question?.name == "a\\032\\255")
    }
}

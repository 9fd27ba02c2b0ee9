import Testing
@testable import WireTally

/// Inputs built to break a DNS parser: it must reject or flag them, never trap or loop.
@Suite struct DNSHostileInputTests {
    @Test func pointerToItselfIsRejected() throws {
        var builder = DNSMessageBuilder(id: 1, flags: 0x0100)
        builder.question(DNSMessageBuilder.pointer(12), type: 1)
        let message = try #require(parseDNS(builder.bytes))
        #expect(message.isMalformed)
        #expect(message.questions.isEmpty)
    }

    @Test func pointerLoopBetweenTwoNamesIsRejected() throws {
        // A loop needs one pointer going forward (here 14 → 17, which would point back to 12): refused.
        var builder = DNSMessageBuilder(id: 1, flags: 0x8180, answers: 1)
        builder.question([1, 0x61] + DNSMessageBuilder.pointer(17) + [0], type: 1)  // 12: "a" → 17
        builder.raw([0])
        let message = try #require(parseDNS(builder.bytes))
        #expect(message.isMalformed)
    }

    @Test func forwardPointerIsRejected() throws {
        var builder = DNSMessageBuilder(id: 1, flags: 0x0100)
        builder.question(DNSMessageBuilder.pointer(40), type: 1)
        builder.raw([UInt8](repeating: 0, count: 40))
        #expect(parseDNS(builder.bytes)?.isMalformed == true)
    }

    @Test func labelBeyondTheMessageIsRejected() throws {
        var builder = DNSMessageBuilder(id: 1, flags: 0x0100)
        builder.raw([63, 0x61, 0x62])
        #expect(parseDNS(builder.bytes)?.isMalformed == true)
    }

    @Test func recordDataBeyondTheMessageKeepsWhatCameBefore() throws {
        var bytes = DNSMessageBuilder.response(id: 1, "x.example", addresses: ["192.0.2.1", "192.0.2.2"])
        bytes.removeLast(2)
        let message = try #require(parseDNS(bytes))
        #expect(message.isMalformed)
        #expect(message.answers.count == 1)
    }

    @Test func countsLargerThanTheMessageEndQuickly() throws {
        let bytes: [UInt8] = [0, 1, 0x81, 0x80, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0]
        let message = try #require(parseDNS(bytes))
        #expect(message.isMalformed)
    }

    @Test func shorterThanAHeaderIsNotAMessage() {
        for length in 0..<12 { #expect(parseDNS([UInt8](repeating: 0xc0, count: length)) == nil) }
    }

    @Test func nameLongerThan255IsRejected() throws {
        var builder = DNSMessageBuilder(id: 1, flags: 0x0100)
        var name: [UInt8] = []
        for _ in 0..<5 { name += [63] + [UInt8](repeating: 0x61, count: 63) }
        builder.question(name + [0], type: 1)
        #expect(parseDNS(builder.bytes)?.isMalformed == true)
    }

    @Test func aLongChainOfBackwardPointersIsBounded() throws {
        // Each pointer points to the previous one: more jumps than allowed.
        var builder = DNSMessageBuilder(id: 1, flags: 0x0100, questions: 0, additionals: 0)
        builder.raw([0])  // root at 12
        for index in 0..<200 { builder.raw(DNSMessageBuilder.pointer(index == 0 ? 12 : 13 + 2 * (index - 1))) }
        let last = builder.offset - 2
        let result = builder.bytes.withUnsafeBytes { DNSNameReader.read($0, at: last) }
        #expect(result == nil)
    }

    @Test(arguments: 0..<8)
    func randomBytesNeverTrap(_ batch: Int) {
        var generator = SeededGenerator(state: UInt64(batch) &* 7919 &+ 1)
        for _ in 0..<2_000 {
            let length = Int.random(in: 0..<300, using: &generator)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // Make some look like real headers with small counts, to reach the sections.
            if bytes.count >= 12, Bool.random(using: &generator) {
                for index in 4..<12 { bytes[index] = index % 2 == 0 ? 0 : UInt8.random(in: 0...3, using: &generator) }
            }
            if let message = parseDNS(bytes) {
                _ = message.rcode.description
                for record in message.answers { _ = record.dataText }
                let lean = bytes.withUnsafeBytes { DNSMessage.parse($0, allSections: false) }
                #expect(lean?.answers == message.answers)
            }
        }
    }

    @Test(arguments: 0..<4)
    func mutatedRealMessagesNeverTrap(_ batch: Int) {
        var generator = SeededGenerator(state: UInt64(batch) + 1000)
        var builder = DNSMessageBuilder(id: 7, flags: 0x8180, answers: 3, additionals: 1)
        builder.question("www.example.com", type: 1)
        builder.cname(DNSMessageBuilder.pointer(12), DNSMessageBuilder.encodedName("e.cdn.example") )
        builder.a(DNSMessageBuilder.pointer(45), "192.0.2.1")
        builder.aaaa(DNSMessageBuilder.pointer(45), "2001:db8::2")
        builder.opt()
        let original = builder.bytes
        for _ in 0..<3_000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if Bool.random(using: &generator) { bytes.removeLast(Int.random(in: 0..<bytes.count, using: &generator)) }
            var transaction = DNSTransaction(
                messageID: 7, client: DNSEndpoint(address: IPAddress(ipv4: 1), port: 1),
                server: DNSEndpoint(address: IPAddress(ipv4: 2), port: 53), transport: .udp, question: nil)
            transaction.response = parseDNS(bytes)
            transaction.question = transaction.response?.question
            _ = transaction.addresses
            _ = transaction.cnames
        }
    }
}

extension DNSHostileInputTests {
    @Test func cnameLoopEndsAndHugeChainsStayLinear() throws {
        // a → b → a: the chain stops when a name repeats.
        var builder = DNSMessageBuilder(id: 1, flags: 0x8180, answers: 2)
        builder.question("a.example", type: 1)
        builder.cname(DNSMessageBuilder.pointer(12), DNSMessageBuilder.encodedName("b.example"))
        builder.cname(DNSMessageBuilder.encodedName("b.example"), DNSMessageBuilder.pointer(12))
        let looping = try #require(parseDNS(builder.bytes))
        var transaction = DNSTransaction(
            messageID: 1, client: DNSEndpoint(address: IPAddress(ipv4: 1), port: 1),
            server: DNSEndpoint(address: IPAddress(ipv4: 2), port: 53), transport: .udp, question: looping.question)
        transaction.response = looping
        #expect(transaction.cnames == ["b.example"])
        #expect(transaction.addresses.isEmpty)

        // 5000 chained aliases n0 → n1 → … in one message: followed to the end quickly.
        var long = DNSMessageBuilder(id: 2, flags: 0x8180, answers: 5001)
        long.question("n0", type: 1)
        for index in 0..<5000 { long.cname(DNSMessageBuilder.encodedName("n\(index)"), DNSMessageBuilder.encodedName("n\(index + 1)")) }
        long.a(DNSMessageBuilder.encodedName("n5000"), "192.0.2.9")
        transaction.response = parseDNS(long.bytes)
        #expect(transaction.response?.answers.count == 5001)
        transaction.question = transaction.response?.question
        #expect(transaction.cnames.count == 5000)
        #expect(transaction.addresses == [IPAddress("192.0.2.9")!])
    }
}

/// SVCB/HTTPS RDATA built to break the RFC 9460 reader: flagged or rejected, never a trap, linear time.
extension DNSHostileInputTests {
    private static func readBinding(_ bytes: [UInt8]) -> DNSServiceBinding? {
        bytes.withUnsafeBytes { DNSServiceBindingReader.read($0) }
    }

    @Test func serviceBindingCutAnywhereIsFlagged() {
        // 1 . alpn=h3,h2 port=8443 ipv4hint=192.0.2.1 ech=<2> ipv6hint=2001:db8::1 key65333=<3>
        let head: String = "000100" + "00010006026833026832" + "0003000220fb" + "00040004c0000201"
        let full = DNSServiceBindingTests.bytes(head + "00050002abcd" + "0006001020010db8000000000000000000000001" + "ff350003010203")
        let boundaries: Set<Int> = [3, 13, 19, 27, 33, 53, 60]
        for cut in 0...full.count {
            let binding = Self.readBinding(Array(full.prefix(cut)))
            if cut < 3 {
                #expect(binding == nil, "cut at \(cut)")
            } else {
                #expect(binding?.isMalformed == !boundaries.contains(cut), "cut at \(cut)")
            }
        }
    }

    @Test func serviceBindingLengthsPastTheEndAndBadValues() {
        let root = "000100"
        for hex in [
            root + "0001ffff026833",  // alpn value length past the end
            root + "000100030568",  // an alpn id longer than its value
            root + "0001000100",  // an empty alpn id
            root + "00010000",  // an empty alpn list
            root + "000000030001ff",  // mandatory of odd length
            root + "000200016161",  // no-default-alpn with a value
            root + "00030001ff",  // a one-byte port
            root + "00040005c000020101",  // ipv4hint not a multiple of 4
            root + "0006000420010db8",  // ipv6hint not a multiple of 16
            root + "00",  // half a key
            root + "000300",  // a key and half a length
        ] {
            let binding = Self.readBinding(DNSServiceBindingTests.bytes(hex))
            #expect(binding?.isMalformed == true, "\(hex)")
            #expect(binding.map { $0.alpn.isEmpty && $0.port == nil && $0.ipv4Hints.isEmpty && $0.ipv6Hints.isEmpty } == true)
        }
        // a target with a compression pointer, or running past the data: no binding at all
        #expect(Self.readBinding(DNSServiceBindingTests.bytes("0001c00c")) == nil)
        #expect(Self.readBinding(DNSServiceBindingTests.bytes("0001036f7468")) == nil)
    }

    @Test func serviceBindingHugeCountsStayLinear() {
        // 16,382 empty parameters with increasing unknown keys fill a 65,535-byte RDATA.
        var many: [UInt8] = [0, 1, 0]
        for key in 0..<16_383 where many.count + 4 <= 65_535 { many += FrameBuilder.be16(UInt16(7 + key)) + [0, 0] }
        let binding = Self.readBinding(many)
        #expect(binding?.isMalformed == false)
        #expect(binding?.otherParameters.count == (many.count - 3) / 4)
        // 4,095 IPv6 hints and 255-byte alpn ids in one record
        let hints = [0, 1, 0, 0, 6] + FrameBuilder.be16(65_520) + [UInt8](repeating: 0x20, count: 65_520)
        #expect(Self.readBinding(hints)?.ipv6Hints.count == 4_095)
        let ids = [UInt8](repeating: 0xff, count: 256)
        #expect(Self.readBinding([0, 1, 0, 0, 1] + FrameBuilder.be16(256 * 3) + ids + ids + ids)?.alpn.count == 3)
        // a message promising 65,535 HTTPS answers holding one
        var builder = DNSMessageBuilder(id: 1, flags: 0x8180, answers: 0xffff)
        builder.question("x.example", type: 65)
        builder.record(DNSMessageBuilder.pointer(12), type: 65, data: [0, 1, 0, 0, 3, 0, 2, 1, 187])
        let message = parseDNS(builder.bytes)
        #expect(message?.isMalformed == true && message?.answers.count == 1)
    }

    @Test(arguments: 0..<4)
    func mutatedServiceBindingMessagesNeverTrap(_ batch: Int) {
        var generator = SeededGenerator(state: UInt64(batch) + 2000)
        let original = DNSServiceBindingTests.httpsResponse()
        for _ in 0..<3_000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if Bool.random(using: &generator) { bytes.removeLast(Int.random(in: 0..<bytes.count, using: &generator)) }
            var transaction = DNSTransaction(
                messageID: 21, client: DNSEndpoint(address: IPAddress(ipv4: 1), port: 1),
                server: DNSEndpoint(address: IPAddress(ipv4: 2), port: 53), transport: .udp, question: nil)
            transaction.response = parseDNS(bytes)
            transaction.question = transaction.response?.question
            _ = RecordEncoding.dns(transaction, timestampDigits: 6)
            let index = DNSAnswerIndex(capacity: 2)
            index.add(transaction)
        }
        for _ in 0..<5_000 {
            let random = (0..<Int.random(in: 0..<80, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = Self.readBinding(random)?.text
        }
    }
}

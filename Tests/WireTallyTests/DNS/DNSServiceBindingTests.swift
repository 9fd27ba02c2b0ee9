import Testing
@testable import WireTally

/// SVCB/HTTPS RDATA (RFC 9460) read from the RFC's own wire-format test vectors (Appendix D), then
/// inside whole messages: the `dns` record's answer fields, `advertises_h3`, and the address hints in
/// the answer index.
@Suite struct DNSServiceBindingTests {
    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }

    static func read(_ hex: String) -> DNSServiceBinding? {
        bytes(hex).withUnsafeBytes { DNSServiceBindingReader.read($0) }
    }

    /// Figure 2 (D.1): `example.com. HTTPS 0 foo.example.com.`
    @Test func aliasMode() throws {
        let binding = try #require(Self.read("000003666f6f076578616d706c6503636f6d00"))
        #expect(binding.isAliasMode && binding.priority == 0)
        #expect(binding.target == "foo.example.com")
        #expect(binding == DNSServiceBinding(priority: 0, target: "foo.example.com"))
        #expect(binding.text == "0 foo.example.com")
        #expect(binding.usableHints.isEmpty && !binding.advertisesH3)
    }

    /// Figure 3: `SVCB 1 .` — the root target is the owner name.
    @Test func serviceModeWithRootTarget() throws {
        let binding = try #require(Self.read("000100"))
        #expect(binding == DNSServiceBinding(priority: 1, target: ""))
        #expect(binding.targetText == "." && binding.text == "1 .")
    }

    /// Figure 4: `SVCB 16 foo.example.com. port=53`.
    @Test func port() throws {
        let binding = try #require(Self.read("001003666f6f076578616d706c6503636f6d00000300020035"))
        #expect(binding.priority == 16 && binding.target == "foo.example.com" && binding.port == 53)
        #expect(!binding.isMalformed)
    }

    /// Figures 5 and 6: an unregistered key (667) is kept with its value length only.
    @Test func unknownKeysKeepTheirLength() throws {
        let hello = try #require(Self.read("000103666f6f076578616d706c6503636f6d00029b000568656c6c6f"))
        #expect(hello.otherParameters == [DNSServiceParameter(key: 667, length: 5)])
        #expect(hello.otherParameters.first?.name == "key667")
        let escaped = try #require(Self.read("000103666f6f076578616d706c6503636f6d00029b000968656c6c6fd2716f6f"))
        #expect(escaped.otherParameters == [DNSServiceParameter(key: 667, length: 9)])
        #expect(escaped.text == "1 foo.example.com key667=<9 bytes>")
    }

    /// Figures 7 and 8: two IPv6 hints, and one written with embedded IPv4 syntax.
    @Test func ipv6Hints() throws {
        let two = try #require(Self.read(
            "000103666f6f076578616d706c6503636f6d000006002020010db800000000000000000000000120010db8000000000000000000530001"))
        #expect(two.ipv6Hints == [IPAddress("2001:db8::1")!, IPAddress("2001:db8::53:1")!])
        let embedded = try #require(Self.read("0001076578616d706c6503636f6d000006001020010db80122034400000000c0000221"))
        #expect(embedded.target == "example.com")
        #expect(embedded.ipv6Hints == [IPAddress("2001:db8:122:344::c000:221")!])
        #expect(embedded.usableHints == embedded.ipv6Hints)
    }

    /// Figure 9: `SVCB 16 foo.example.org. alpn=h2,h3-19 mandatory=ipv4hint,alpn ipv4hint=192.0.2.1`,
    /// sorted by key on the wire.
    @Test func mandatoryALPNAndIPv4Hint() throws {
        let binding = try #require(Self.read(
            "001003666f6f076578616d706c65036f7267000000000400010004000100090268320568332d313900040004c0000201"))
        #expect(binding.mandatory == [DNSServiceParameter.alpn, DNSServiceParameter.ipv4Hint])
        #expect(binding.alpn == ["h2", "h3-19"])
        #expect(binding.ipv4Hints == [IPAddress("192.0.2.1")!])
        #expect(!binding.isMalformed && !binding.advertisesH3)
        #expect(binding.text == "16 foo.example.org mandatory=alpn,ipv4hint alpn=h2,h3-19 ipv4hint=192.0.2.1")
    }

    /// Figure 10: protocol ids `f\oo,bar` and `h2` (a backslash and a comma inside an id).
    @Test func alpnWithBackslashAndComma() throws {
        let binding = try #require(Self.read("001003666f6f076578616d706c65036f7267000001000c08665c6f6f2c626172026832"))
        #expect(binding.alpn == ["f\\092oo,bar", "h2"])
    }

    /// The remaining keys: no-default-alpn (empty), ech (length only), and h3 advertised.
    @Test func noDefaultALPNAndECH() throws {
        // HTTPS 1 . alpn=h3 no-default-alpn ech=<4 bytes>
        let binding = try #require(Self.read("000100" + "00010003026833" + "00020000" + "00050004fe0d0000"))
        #expect(binding.alpn == ["h3"] && binding.noDefaultALPN && binding.echLength == 4)
        #expect(binding.advertisesH3)
        #expect(binding.text == "1 . alpn=h3 no-default-alpn ech=<4 bytes>")
    }

    /// Keys must be strictly increasing: the reading stops at the first that is not (RFC 9460 §2.2).
    @Test func keysOutOfOrderAreMalformed() throws {
        // 1 . port=443 alpn=h2 (3 then 1), and a repeated key
        let disordered = try #require(Self.read("000100" + "0003000201bb" + "00010003026832"))
        #expect(disordered.isMalformed && disordered.port == 443 && disordered.alpn.isEmpty)
        let repeated = try #require(Self.read("000100" + "029b000161" + "029b000162"))
        #expect(repeated.isMalformed && repeated.otherParameters == [DNSServiceParameter(key: 667, length: 1)])
        #expect(repeated.usableHints.isEmpty)
    }
}

/// Service bindings inside messages and transactions: answers, `advertises_h3`, hints in the index.
extension DNSServiceBindingTests {
    static let client = DNSEndpoint(address: IPAddress("10.0.0.1")!, port: 40000)
    static let server = DNSEndpoint(address: IPAddress("10.0.0.53")!, port: 53)

    /// `www.example HTTPS`: CNAME to `cdn.example`, whose HTTPS records are an AliasMode record, a
    /// ServiceMode one (alpn h3,h2, port, both hints, ech, key65333) and one for another name.
    static func httpsResponse() -> [UInt8] {
        var builder = DNSMessageBuilder(id: 21, flags: 0x8180, answers: 4)
        builder.question("www.example", type: 65)
        builder.cname(DNSMessageBuilder.pointer(12), DNSMessageBuilder.encodedName("cdn.example"))
        let cdn = DNSMessageBuilder.encodedName("cdn.example")
        builder.record(cdn, type: 65, data: bytes("0000" + "036f7468076578616d706c6500"))  // 0 oth.example.
        let service: String = "000100" + "00010006026833026832" + "0003000220fb" + "00040004c0000201"
        builder.record(cdn, type: 65, data: bytes(service + "00050002abcd" + "0006001020010db8000000000000000000000001" + "ff350003010203"))
        builder.record(DNSMessageBuilder.encodedName("unrelated.example"), type: 65, data: bytes("000100" + "00040004c0000263"))
        return builder.bytes
    }

    static func transaction(_ bytes: [UInt8]) throws -> DNSTransaction {
        let message = try #require(parseDNS(bytes))
        var transaction = DNSTransaction(messageID: message.header.id, client: client, server: server, transport: .udp, question: message.question)
        transaction.queryTimestamp = Timestamp(nanoseconds: 1_000_000_000)
        transaction.answerTimestamp = Timestamp(nanoseconds: 1_002_000_000)
        transaction.response = message
        return transaction
    }

    @Test func answerFieldsAndH3InTheRecord() throws {
        let transaction = try Self.transaction(Self.httpsResponse())
        #expect(transaction.response?.isMalformed == false)
        #expect(transaction.advertisesH3)
        #expect(transaction.hintAddresses == [IPAddress("192.0.2.1")!, IPAddress("2001:db8::1")!])
        let record = RecordEncoding.dns(transaction, timestampDigits: 6)
        #expect(record["advertises_h3"] == .bool(true))
        guard case let .array(answers)? = record["answers"] else { Issue.record("no answers"); return }
        #expect(answers.count == 4)
        #expect(answers[0]["priority"] == nil)  // the CNAME has no binding fields
        #expect(answers[1]["priority"] == .integer(0) && answers[1]["target"] == .string("oth.example"))
        let service = answers[2]
        #expect(service["type"] == .string("HTTPS"))
        #expect(service["data"] == .string(
            "1 . alpn=h3,h2 port=8443 ipv4hint=192.0.2.1 ech=<2 bytes> ipv6hint=2001:db8::1 key65333=<3 bytes>"))
        #expect(service["priority"] == .integer(1) && service["target"] == .string("."))
        #expect(service["alpn"] == .array([.string("h3"), .string("h2")]))
        #expect(service["port"] == .integer(8443) && service["ech_bytes"] == .integer(2))
        #expect(service["ipv4hint"] == .array([.string("192.0.2.1")]) && service["ipv6hint"] == .array([.string("2001:db8::1")]))
        #expect(service["mandatory"] == .array([]) && service["no_default_alpn"] == .bool(false))
        #expect(service["other_params"] == .object([("key65333", .integer(3))]))
        #expect(service["malformed"] == .bool(false))
        #expect(answers[3]["port"] == .null)
    }

    @Test func hintsNameConnectionsInTheIndex() throws {
        let index = DNSAnswerIndex()
        var transaction = try Self.transaction(Self.httpsResponse())
        transaction.id = 7
        index.add(transaction)
        let later = Timestamp(nanoseconds: 2_000_000_000)
        #expect(index.lookup(address: IPAddress("192.0.2.1")!, before: later)?.transactionID == 7)
        #expect(index.lookup(address: IPAddress("2001:db8::1")!, before: later)?.name == "www.example")
        #expect(index.lookup(address: IPAddress("192.0.2.99")!, before: later) == nil)  // another owner's hint
    }

    @Test func malformedBindingsFlagTheMessageAndAreNotUsed() throws {
        var builder = DNSMessageBuilder(id: 22, flags: 0x8180, answers: 3)
        builder.question("bad.example", type: 65)
        builder.record(DNSMessageBuilder.pointer(12), type: 65, data: Self.bytes("000100" + "0003000201bb" + "00010003026833"))
        builder.record(DNSMessageBuilder.pointer(12), type: 65, data: Self.bytes("0001"))  // no target: raw
        builder.a(DNSMessageBuilder.pointer(12), "192.0.2.8")  // read after them
        let transaction = try Self.transaction(builder.bytes)
        let message = try #require(transaction.response)
        #expect(message.isMalformed && message.answers.count == 3)
        #expect(message.answers[1].data == .raw(length: 2))
        #expect(transaction.addresses == [IPAddress("192.0.2.8")!])
        #expect(!transaction.advertisesH3 && transaction.hintAddresses.isEmpty)
        let record = RecordEncoding.dns(transaction, timestampDigits: 6)
        guard case let .array(answers)? = record["answers"] else { Issue.record("no answers"); return }
        #expect(answers[0]["malformed"] == .bool(true) && answers[0]["port"] == .integer(443))
        #expect(answers[1]["data"] == .string("<2 bytes>"))
    }
}

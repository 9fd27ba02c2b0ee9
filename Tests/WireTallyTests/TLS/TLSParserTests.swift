import Testing
@testable import WireTally

/// A synthetic TLS 1.2 (AES-128-GCM) keep-alive conversation: handshake messages split across records,
/// several messages per record, two exchanges, encrypted close_notify.
enum TLS12Conversation {
    static let suite = 0xC02F
    static let certificate = TLSBytes.handshake(11, [UInt8](repeating: 0x30, count: 700))
    static let serverFlight = TLSBytes.serverHello(suite: suite, sessionID: [UInt8](repeating: 9, count: 32), alpn: "http/1.1")
        + certificate + TLSBytes.handshake(14, [])
    /// Client steps then server steps, in wire order: (direction, bytes).
    static var steps: [(FlowDirection, [UInt8])] {
        let clientHello = TLSBytes.record(22, TLSBytes.clientHello(sni: "shop.example", alpn: ["h2", "http/1.1"]), version: 0x0301)
        // The server flight spans two records; the Certificate message is split between them.
        let cut = 300
        let server = TLSBytes.record(22, Array(serverFlight[..<cut])) + TLSBytes.record(22, Array(serverFlight[cut...]))
        let clientKeys = TLSBytes.record(22, TLSBytes.handshake(16, [UInt8](repeating: 4, count: 66)))
            + TLSBytes.record(20, [1]) + TLSBytes.record(22, [UInt8](repeating: 0xEE, count: 40))
        let serverFinish = TLSBytes.record(22, TLSBytes.handshake(4, [UInt8](repeating: 7, count: 200)))
            + TLSBytes.record(20, [1]) + TLSBytes.record(22, [UInt8](repeating: 0xEF, count: 40))
        let request1 = TLSBytes.record(23, [UInt8](repeating: 1, count: 124))
        let response1 = TLSBytes.record(23, [UInt8](repeating: 2, count: 1024)) + TLSBytes.record(23, [UInt8](repeating: 2, count: 524))
        let request2 = TLSBytes.record(23, [UInt8](repeating: 3, count: 224))
        let response2 = TLSBytes.record(23, [UInt8](repeating: 4, count: 324))
        let closeNotify = TLSBytes.record(21, [UInt8](repeating: 0xA1, count: 26))
        return [(.up, clientHello), (.down, server), (.up, clientKeys), (.down, serverFinish), (.up, request1),
                (.down, response1), (.up, request2), (.down, response2), (.up, closeNotify)]
    }

    static func run(chunk: Int = .max) -> TLSFeeder {
        let feeder = TLSFeeder()
        for (direction, bytes) in steps { feeder.send(direction, bytes, chunk: chunk) }
        feeder.end()
        return feeder
    }
}

/// A comparable digest of what the analysis found (origins excluded: they depend on the chunking).
struct TLSDigest: Equatable {
    var sni, alpn, suite: String?
    var version: UInt16?
    var resumed: Bool
    var stats: [TLSDirectionStats]
    var alerts: Int
    var ranges: [[Range<Int64>?]]
    var bodies: [[Int?]]
    var runs: [[StreamOwner]]

    init(_ analysis: TLSConnectionAnalysis, lengths: [Int64]) {
        let session = analysis.session
        sni = session.sni
        alpn = session.alpn
        suite = session.cipherSuite?.name
        version = session.version
        resumed = session.resumed
        stats = session.stats
        alerts = session.alertCount
        ranges = analysis.exchanges.map { [$0.request?.streamRange, $0.response?.streamRange] }
        bodies = analysis.exchanges.map { [$0.request?.bytes.body, $0.response?.bytes.body] }
        runs = FlowDirection.allCases.map { direction in
            (0 ..< lengths[direction.rawValue]).map { analysis.ownership(direction).owner(at: $0) }
        }
    }
}

@Suite struct TLSParserTests {
    @Test func conversationIsParsed() {
        let feeder = TLS12Conversation.run()
        let tls = feeder.analysis
        let session = tls.session
        #expect(session.sni == "shop.example")
        #expect(session.clientHello?.alpn == ["h2", "http/1.1"])
        #expect(session.alpn == "http/1.1" && session.alpnSource == .serverHello)
        #expect(session.versionName == "TLS 1.2")
        #expect(session.cipherSuite?.name == "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256")
        #expect(!session.resumed)
        #expect(session.handshakeMessages[1] == [2, 11, 14, 4])
        #expect(session.handshakeMessages[0] == [1, 16])
        #expect(session.alerts.count == 1 && session.alerts[0].isEncrypted && session.alerts[0].direction == .up)
        let up = session.stats(.up), down = session.stats(.down)
        #expect(up.handshake.records == 3 && up.changeCipherSpec.records == 1 && up.applicationData.records == 2 && up.alert.records == 1)
        #expect(down.handshake.records == 4 && down.applicationData.records == 3)
        #expect(up.headerBytes == 5 * 7 && down.headerBytes == 5 * 8)
        // GCM: 24 bytes per protected record (client: Finished, 2 requests, alert; server: Finished, 3 records).
        #expect(up.protectedRecords == 4 && up.protectionOverheadBytes == 4 * 24)
        #expect(down.protectedRecords == 4 && down.protectionOverheadBytes == 4 * 24)
        #expect(tls.isEstimated)
        #expect(tls.exchangeCount == 2)
        let exchanges = tls.exchanges
        #expect(exchanges[0].request?.bytes.body == 100)
        #expect(exchanges[0].response?.bytes.body == 1000 + 500)
        #expect(exchanges[0].response?.bytes.total == 1029 + 529)
        #expect(exchanges[1].request?.bytes.body == 200)
        // The last request's range includes the close_notify that follows it.
        #expect(exchanges[1].request?.bytes.total == 229 + 31)
        #expect(exchanges[1].response?.bytes.body == 300)
        // Markers: ClientHello = packet 1; client Finished = the client's third packet.
        #expect(session.clientHelloOrigin?.frameNumber == 1)
        #expect(session.clientFinishedOrigin?.frameNumber == 3)
        // Ownership: handshake bytes belong to exchange 0, then bursts.
        #expect(tls.ownership(.up).owner(at: 0) == StreamOwner(exchange: 0))
        #expect(tls.ownership(.down).owner(at: 0) == StreamOwner(exchange: 0))
        let secondRequest = exchanges[1].request!.streamRange.lowerBound
        #expect(tls.ownership(.up).owner(at: secondRequest - 1) == StreamOwner(exchange: 0))
        #expect(tls.ownership(.up).owner(at: secondRequest) == StreamOwner(exchange: 1))
        #expect(tls.examinedLength(.up) == feeder.offset(.up))
    }

    @Test func anySegmentationGivesTheSameResult() {
        let whole = TLS12Conversation.run()
        let lengths = [whole.offset(.up), whole.offset(.down)]
        let expected = TLSDigest(whole.analysis, lengths: lengths)
        for chunk in [1, 2, 3, 4, 5, 6, 7, 11, 13, 64, 300, 1000] {
            let split = TLS12Conversation.run(chunk: chunk)
            #expect(TLSDigest(split.analysis, lengths: lengths) == expected, "chunk \(chunk)")
        }
    }

    @Test func recordsSplitAtEveryByte() {
        // Two records in one buffer, cut at every position into two deliveries.
        let hello = TLSBytes.record(22, TLSBytes.clientHello(sni: "split.example"))
        let data = TLSBytes.record(23, [UInt8](repeating: 5, count: 50))
        let stream = hello + data
        for cut in 0 ... stream.count {
            let feeder = TLSFeeder()
            feeder.send(.up, Array(stream[..<cut]))
            feeder.send(.up, Array(stream[cut...]))
            let stats = feeder.analysis.session.stats(.up)
            #expect(feeder.analysis.session.sni == "split.example", "cut \(cut)")
            #expect(stats.handshake.records == 1 && stats.applicationData.records == 1 && stats.applicationData.bytes == 55, "cut \(cut)")
            #expect(feeder.analysis.exchangeCount == 1)
        }
    }

    @Test func handshakeMessageSplitAcrossManyRecords() {
        let hello = TLSBytes.clientHello(sni: "fragments.example")
        var stream: [UInt8] = []
        for start in stride(from: 0, to: hello.count, by: 7) {
            stream += TLSBytes.record(22, Array(hello[start ..< min(hello.count, start + 7)]))
        }
        let feeder = TLSFeeder()
        feeder.send(.up, stream, chunk: 3)
        #expect(feeder.analysis.session.sni == "fragments.example")
        #expect(feeder.analysis.session.stats(.up).handshake.records == (hello.count + 6) / 7)
    }

    @Test func tls13TimelineAndOverhead() {
        let feeder = TLSFeeder()
        feeder.send(.up, TLSBytes.record(22, TLSBytes.clientHello(alpn: ["http/1.1"], versions: [0x0304, 0x0303]), version: 0x0301))
        feeder.send(.down, TLSBytes.record(22, TLSBytes.serverHello(suite: 0x1301, version: 0x0304)) + TLSBytes.record(20, [1])
            + TLSBytes.record(23, [UInt8](repeating: 0, count: 2000)))
        feeder.send(.up, TLSBytes.record(20, [1]) + TLSBytes.record(23, [UInt8](repeating: 0, count: 53)))  // Finished (frame 3)
        feeder.send(.up, TLSBytes.record(23, [UInt8](repeating: 0, count: 117)))  // request
        feeder.send(.down, TLSBytes.record(23, [UInt8](repeating: 0, count: 300)))  // tickets / response
        feeder.end()
        let tls = feeder.analysis, session = tls.session
        #expect(session.versionName == "TLS 1.3")
        #expect(session.alpn == "http/1.1" && session.alpnSource == .onlyOffered)
        #expect(session.clientFinishedOrigin?.frameNumber == 3)
        #expect(session.stats(.up).encryptedHandshake.records == 1)
        #expect(session.stats(.down).encryptedHandshake.records == 1)
        #expect(tls.exchangeCount == 1)
        #expect(tls.exchanges[0].request?.bytes.body == 100)  // 117 − 16 tag − 1 content type
        #expect(tls.exchanges[0].response?.bytes.body == 283)
    }

    @Test func tls13UnknownALPNWithH2OfferedIsOneSession() {
        for treatAsSession in [true, false] {
            let feeder = TLSFeeder(TLSConnectionAnalysis(unknownALPNWithH2IsSession: treatAsSession))
            feeder.send(.up, TLSBytes.record(22, TLSBytes.clientHello(alpn: ["h2", "http/1.1"], versions: [0x0304])))
            feeder.send(.down, TLSBytes.record(22, TLSBytes.serverHello(suite: 0x1302, version: 0x0304)) + TLSBytes.record(23, [1, 2, 3]))
            feeder.send(.up, TLSBytes.record(23, [UInt8](repeating: 0, count: 53)) + TLSBytes.record(23, [UInt8](repeating: 0, count: 90)))
            feeder.send(.down, TLSBytes.record(23, [UInt8](repeating: 0, count: 90)))
            feeder.end()
            #expect(feeder.analysis.session.alpn == nil && feeder.analysis.session.alpnSource == .unknown)
            #expect(feeder.analysis.mode == (treatAsSession ? .session : .estimatedExchanges))
            #expect(feeder.analysis.exchangeCount == (treatAsSession ? 0 : 1))
        }
    }

    @Test func tls12ResumptionBySessionIDAndAbbreviatedHandshake() {
        let id = [UInt8](repeating: 0x42, count: 32)
        let echo = TLSFeeder()
        echo.send(.up, TLSBytes.record(22, TLSBytes.clientHello(sessionID: id)))
        echo.send(.down, TLSBytes.record(22, TLSBytes.serverHello(suite: 0x009C, sessionID: id)) + TLSBytes.record(20, [1]))
        #expect(echo.analysis.session.resumed)
        // Ticket resumption: new session id, no ServerHelloDone before the server's CCS.
        let ticket = TLSFeeder()
        ticket.send(.up, TLSBytes.record(22, TLSBytes.clientHello(sessionID: id)))
        ticket.send(.down, TLSBytes.record(22, TLSBytes.serverHello(suite: 0x009C, sessionID: [1, 2, 3])
            + TLSBytes.handshake(4, [0, 0, 0, 0])) + TLSBytes.record(20, [1]))
        #expect(ticket.analysis.session.resumed)
        // Full handshake: ServerHelloDone before the CCS.
        let full = TLSFeeder()
        full.send(.up, TLSBytes.record(22, TLSBytes.clientHello(sessionID: id)))
        full.send(.down, TLSBytes.record(22, TLSBytes.serverHello(suite: 0x009C, sessionID: [1, 2, 3]) + TLSBytes.handshake(14, [])))
        full.send(.down, TLSBytes.record(20, [1]))
        #expect(!full.analysis.session.resumed)
    }

    @Test func cleartextAlertIsDecoded() {
        let feeder = TLSFeeder()
        feeder.send(.up, TLSBytes.record(22, TLSBytes.clientHello()))
        feeder.send(.down, TLSBytes.record(21, [2, 40]), chunk: 6)
        let alert = feeder.analysis.session.alerts.first
        #expect(alert?.level == 2 && alert?.description == 40 && alert?.direction == .down)
    }
}

@Suite struct TLSRobustnessTests {
    @Test func hugeRecordLengthLosesTheDirection() {
        let feeder = TLSFeeder()
        feeder.send(.up, [0x16, 0x03, 0x03, 0xFF, 0xFF] + [UInt8](repeating: 1, count: 100))
        #expect(feeder.analysis.session.lostAt[0] == 0)
        #expect(feeder.analysis.exchangeCount == 0)
    }

    @Test func hugeHandshakeMessageIsSkippedNotBuffered() {
        let feeder = TLSFeeder()
        // A handshake message claiming 16 MiB − 1, over records of 16 KiB.
        var stream = TLSBytes.record(22, [1, 0xFF, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 16000))
        for _ in 0 ..< 8 { stream += TLSBytes.record(22, [UInt8](repeating: 0, count: 16384)) }
        feeder.send(.up, stream, chunk: 1500)
        #expect(feeder.analysis.session.handshakeTooLarge)
        #expect(feeder.analysis.session.clientHello == nil)
        #expect(feeder.analysis.session.stats(.up).handshake.records == 9)
    }

    @Test func truncatedHandshakesParseToNothingOrPartially() {
        let hello = TLSBytes.clientHello(sni: "cut.example", alpn: ["http/1.1"], versions: [0x0304])
        let body = Array(hello[4...])
        for length in 0 ... body.count {
            _ = TLSHelloParser.clientHello(Array(body[..<length]))
            _ = TLSHelloParser.serverHello(Array(body[..<length]))
            _ = TLSHelloParser.sslv2ClientHello(Array(body[..<length]))
        }
        // Truncated mid-record at the end of the stream: the analysis flags nothing beyond incomplete.
        let feeder = TLSFeeder()
        feeder.send(.up, Array(TLSBytes.record(22, hello).prefix(40)))
        feeder.end()
        #expect(feeder.analysis.session.clientHello == nil)
    }

    @Test func mutatedHellosNeverTrap() {
        var generator = SystemRandomNumberGenerator()
        let hello = Array(TLSBytes.clientHello(sni: "fuzz.example", alpn: ["h2", "http/1.1"], versions: [0x0304, 0x0303])[4...])
        let server = Array(TLSBytes.serverHello(suite: 0x1301, alpn: "h2", version: 0x0304, psk: true)[4...])
        for _ in 0 ..< 3000 {
            var a = hello, b = server
            for _ in 0 ..< Int.random(in: 1 ... 6, using: &generator) {
                a[Int.random(in: 0 ..< a.count, using: &generator)] = UInt8.random(in: 0 ... 255, using: &generator)
                b[Int.random(in: 0 ..< b.count, using: &generator)] = UInt8.random(in: 0 ... 255, using: &generator)
            }
            _ = TLSHelloParser.clientHello(a)
            _ = TLSHelloParser.serverHello(b)
        }
    }

    @Test func randomBytesNeverTrap() {
        var generator = SystemRandomNumberGenerator()
        for round in 0 ..< 300 {
            let feeder = TLSFeeder()
            // Half the rounds start with a valid ClientHello so that the record layer gets further.
            if round % 2 == 0 { feeder.send(.up, TLSBytes.record(22, TLSBytes.clientHello())) }
            for _ in 0 ..< 6 {
                let direction: FlowDirection = Bool.random(using: &generator) ? .up : .down
                var bytes = (0 ..< Int.random(in: 0 ... 400, using: &generator)).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
                if Bool.random(using: &generator), bytes.count > 5 {
                    bytes[0] = UInt8.random(in: 20 ... 24, using: &generator)
                    bytes[1] = 3
                    bytes[2] = UInt8.random(in: 0 ... 4, using: &generator)
                }
                feeder.send(direction, bytes, chunk: Int.random(in: 1 ... 64, using: &generator))
                if Int.random(in: 0 ..< 10, using: &generator) == 0 { feeder.gap(direction, Int64.random(in: 1 ... 100, using: &generator)) }
            }
            feeder.end()
            _ = feeder.analysis.exchanges
            for direction in FlowDirection.allCases { #expect(feeder.analysis.examinedLength(direction) <= feeder.offset(direction)) }
        }
    }

    @Test func gapStopsTheDirectionAndFlagsTheBurst() {
        let feeder = TLSFeeder()
        feeder.send(.up, TLSBytes.record(22, TLSBytes.clientHello()))
        feeder.send(.up, TLSBytes.record(23, [UInt8](repeating: 0, count: 100)))
        feeder.gap(.up, 50)
        feeder.send(.up, [UInt8](repeating: 0, count: 30))
        feeder.end()
        let tls = feeder.analysis
        #expect(tls.session.lostAt[0] != nil)
        #expect(tls.exchanges.first?.request?.flags.contains(.gap) == true)
        #expect(tls.ownership(.up).owner(at: feeder.offset(.up) - 1) == .nobody)
    }
}

@Suite struct TLSOverheadTests {
    @Test func overheadFormulas() {
        func overhead(_ code: UInt16, _ version: UInt16 = 0x0303, length: Int = 1000) -> Int {
            TLSCipherSuite(code: code).protectionOverhead(recordLength: length, version: version)
        }
        #expect(overhead(0x1301, 0x0304) == 17)  // TLS 1.3 AEAD: tag + content type
        #expect(overhead(0x1303, 0x0304) == 17)
        #expect(overhead(0x1305, 0x0304) == 9)  // CCM_8: 8-byte tag
        #expect(overhead(0xC02F) == 24)  // GCM: 8 nonce + 16 tag
        #expect(overhead(0xC0A0) == 16)  // CCM_8 in 1.2: 8 nonce + 8 tag
        #expect(overhead(0xCCA8) == 16)  // ChaCha20-Poly1305
        #expect(overhead(0x002F) == 16 + 20 + 8)  // AES-CBC-SHA, TLS 1.2: IV + MAC + half a block
        #expect(overhead(0x002F, 0x0301) == 20 + 8)  // TLS 1.0: implicit IV
        #expect(overhead(0x003D) == 16 + 32 + 8)  // SHA-256 MAC
        #expect(overhead(0xC028) == 16 + 48 + 8)  // SHA-384 MAC
        #expect(overhead(0x000A, 0x0300) == 20 + 4)  // SSL 3.0 3DES: 8-byte blocks, no explicit IV
        #expect(overhead(0x0004) == 16)  // RC4-MD5
        #expect(overhead(0x0005) == 20)  // RC4-SHA
        #expect(overhead(0xC02F, length: 10) == 10)  // never more than the record
        #expect(overhead(0xFFFF) == 0)  // unknown suite
        #expect(TLSCipherSuite(code: 0xFFFF).displayName == "0xffff")
        #expect(TLSVersion.name(0x0303) == "TLS 1.2" && TLSVersion.name(0x7f1c) == "0x7f1c")
    }

    @Test func sniffing() {
        func guess(_ bytes: [UInt8]) -> Bool? { bytes.withUnsafeBytes { ApplicationProtocolGuess.looksLikeTLS($0) } }
        let hello = TLSBytes.record(22, TLSBytes.clientHello(), version: 0x0301)
        #expect(guess(hello) == true)
        #expect(guess(Array(hello.prefix(6))) == true)
        #expect(guess(Array(hello.prefix(3))) == nil)
        #expect(guess([]) == nil)
        #expect(guess(Array("GET / HTTP/1.1\r\n".utf8)) == false)
        #expect(guess([0x16, 0x03, 0x01, 0x00, 0x40, 0x02]) == false)  // a ServerHello
        #expect(guess([0x16, 0x03, 0x09]) == false)
        #expect(guess([0x16, 0x03, 0x01, 0xFF, 0xFF, 0x01]) == false)  // implausible length
        #expect(guess([0x80, 0x2e, 0x01, 0x03, 0x00, 0x00]) == true)  // SSL 2.0-format ClientHello
        #expect(guess([0x17, 0x03, 0x03]) == false)
    }
}

@Suite struct TLSResyncTests {
    @Test func recordsAreFoundAgainAfterAGap() {
        let steps = TLS12Conversation.steps
        let feeder = TLSFeeder()
        for (direction, bytes) in steps[0 ... 4] { feeder.send(direction, bytes) }
        // Response 1 (two records): the first 100 bytes are never captured.
        let response = steps[5].1
        feeder.gap(.down, 100)
        feeder.send(.down, Array(response[100...]))
        for (direction, bytes) in steps[6...] { feeder.send(direction, bytes) }
        feeder.end()
        let tls = feeder.analysis
        #expect(tls.session.resynchronizations == 1)
        #expect(tls.exchangeCount == 2)
        let exchanges = tls.exchanges
        #expect(exchanges[0].response?.flags.contains(.gap) == true)
        #expect(exchanges[1].response?.bytes.body == 300)
        #expect(tls.session.stats(.down).applicationData.records == 2)  // record 1 of response 1 was lost
        // Bytes between the gap and the next record header are nobody's; the second record is exchange 0's.
        let secondRecord = feeder.offset(.down) - Int64(steps[7].1.count) - 529
        #expect(tls.ownership(.down).owner(at: secondRecord - 1) == .nobody)
        #expect(tls.ownership(.down).owner(at: secondRecord) == StreamOwner(exchange: 0))
        #expect(tls.ownership(.down).owner(at: feeder.offset(.down) - 1) == StreamOwner(exchange: 1))
    }
}

import Testing

@testable import WireTally

@Suite struct HTTP1ParserTests {
    typealias Step = HTTP1Script.Step

    static let get = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"

    @Test func contentLengthExchange() {
        let response = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
        let script = HTTP1Script()
        script.run([.up(ascii(Self.get)), .down(ascii(response))])
        let r = script.delegate
        #expect(r.events.first == .started(.up, 0, 0))
        #expect(r.requests.count == 1 && r.responses.count == 1)
        let request = r.requests[0]
        #expect(request.method == "GET" && request.target == "/a" && request.version == "HTTP/1.1")
        #expect(request.bytes == HTTPByteCounts(startLine: 17, headers: 11, body: 0, framing: 0))
        #expect(request.header("host") == "x")
        #expect(request.streamRange == 0..<28)
        #expect(request.flags == [])
        let reply = r.responses[0]
        #expect(reply.exchangeIndex == 0 && reply.status == 200 && reply.reason == "OK")
        #expect(reply.bytes == HTTPByteCounts(startLine: 17, headers: 21, body: 5, framing: 0))
        #expect(reply.streamRange == 0..<43)
        #expect(reply.flags == [] && reply.decodedBodyBytes == nil)
        #expect(reply.firstOrigin.frameNumber == 2 && reply.lastOrigin.frameNumber == 2)
        #expect(script.parser.isHTTP)
    }

    @Test func chunkedWithExtensionsAndTrailers() {
        let head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 999\r\n\r\n"
        let framing1 = "5;name=\"quoted;value\\\"x\"\r\n"
        let framing2 = "\r\nA ; ext\r\n"
        let framing3 = "\r\n0\r\nX-Checksum: abc\r\nX-Other: 1\r\n\r\n"
        let body = head + framing1 + "hello" + framing2 + "0123456789" + framing3
        let r = HTTP1Script.run([.up(ascii(Self.get)), .down(ascii(body)), .up(ascii(Self.get))])
        let reply = r.responses[0]
        #expect(reply.bytes.startLine == 17)
        #expect(reply.bytes.headers == head.utf8.count - 17)
        #expect(reply.bytes.body == 15)
        #expect(reply.bytes.framing == framing1.utf8.count + framing2.utf8.count + framing3.utf8.count)
        #expect(reply.bytes.total == body.utf8.count)
        #expect(reply.trailers == [HTTPHeader(name: "X-Checksum", value: "abc"), HTTPHeader(name: "X-Other", value: "1")])
        #expect(reply.flags == [])
        #expect(r.requests.count == 2)
    }

    @Test func closeDelimitedHTTP10ResponseEndsAtStreamEnd() {
        let request = "GET / HTTP/1.0\r\n\r\n"
        let response = "HTTP/1.0 200 OK\r\nServer: old\r\n\r\n" + String(repeating: "z", count: 1000)
        let r = HTTP1Script.run([.up(ascii(request)), .down(ascii(response)), .end(.down), .end(.up)])
        #expect(r.requests.count == 1)
        #expect(r.requests[0].version == "HTTP/1.0" && r.requests[0].bytes.body == 0)
        let reply = r.responses[0]
        #expect(reply.flags == [.closeDelimited])
        #expect(reply.bytes.body == 1000)
        #expect(reply.streamRange == 0..<Int64(response.utf8.count))
    }

    @Test func pipelinedRequestsInOneSegmentPairInOrder() {
        let requests = "GET /1 HTTP/1.1\r\n\r\nHEAD /2 HTTP/1.1\r\n\r\nPOST /3 HTTP/1.1\r\nContent-Length: 3\r\n\r\nabcGET /4 HTTP/1.1\r\n\r\n"
        let responses = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n"
            + "HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\nHTTP/1.1 304 Not Modified\r\nContent-Length: 7\r\n\r\n"
        let r = HTTP1Script.run([.up(ascii(requests)), .down(ascii(responses))])
        #expect(r.requests.map(\.target) == ["/1", "/2", "/3", "/4"])
        #expect(r.requests.map(\.exchangeIndex) == [0, 1, 2, 3])
        #expect(r.requests[2].bytes.body == 3)
        #expect(r.responses.map(\.exchangeIndex) == [0, 1, 2, 3])
        #expect(r.responses.map(\.status) == [200, 200, 201, 304])
        // HEAD: no body despite Content-Length; 304: none either.
        #expect(r.responses.map(\.bytes.body) == [2, 0, 0, 0])
        #expect(r.responses.allSatisfy { $0.flags == [] })
        #expect(r.responses.last!.streamRange.upperBound == Int64(responses.utf8.count))
        #expect(!r.events.contains { if case .unparsed = $0 { return true } else { return false } })
    }

    @Test func noContentResponseHasNoBody() {
        let responses = "HTTP/1.1 204 No Content\r\nContent-Length: 10\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx"
        let r = HTTP1Script.run([.up(ascii(Self.get + Self.get)), .down(ascii(responses))])
        #expect(r.responses.map(\.status) == [204, 200])
        #expect(r.responses.map(\.bytes.body) == [0, 1])
    }

    @Test func expectContinueInterimBelongsToTheExchange() {
        let head = "PUT /up HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n"
        let interim = "HTTP/1.1 100 Continue\r\n\r\n"
        let final = "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok"
        let r = HTTP1Script.run([
            .up(ascii(head)), .down(ascii(interim)), .up(ascii("data")), .down(ascii(final)),
        ])
        #expect(r.requests.count == 1 && r.requests[0].bytes.body == 4)
        #expect(r.responses.count == 1)
        let reply = r.responses[0]
        #expect(reply.exchangeIndex == 0 && reply.status == 201)
        #expect(reply.interimCount == 1 && reply.interimBytes == interim.utf8.count)
        #expect(reply.bytes.total == final.utf8.count)
        #expect(reply.streamRange == 0..<Int64(interim.utf8.count + final.utf8.count))
        #expect(reply.firstOrigin.frameNumber == 2 && reply.lastOrigin.frameNumber == 4)
        #expect(r.events.filter { $0 == .started(.down, 0, 0) }.count == 1)
    }

    @Test func switchingProtocolsUpgradesBothDirections() {
        let request = "GET /chat HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
        let response = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n"
        let frames: [UInt8] = [0x81, 0x85, 1, 2, 3, 4, 5, 6, 7, 8, 9]
        let r = HTTP1Script.run([
            .up(ascii(request)), .down(ascii(response) + [0x81, 0x02, 0x68, 0x69]), .up(frames), .up(frames),
        ])
        #expect(r.requests.count == 1 && r.responses.count == 1)
        #expect(r.responses[0].flags == [.upgrade] && r.responses[0].status == 101)
        #expect(r.events.contains(.upgraded(.down, Int64(response.utf8.count), 0)))
        #expect(r.events.contains(.upgraded(.up, Int64(request.utf8.count), 0)))
        #expect(!r.events.contains { if case .unparsed = $0 { return true } else { return false } })
    }

    @Test func upgradeRequestHeldBytesReparsedWhenNotSwitched() {
        // The client pipelines another request after an Upgrade request; the server ignores the upgrade.
        let requests = "GET / HTTP/1.1\r\nUpgrade: h2c\r\n\r\nGET /2 HTTP/1.1\r\n\r\n"
        let responses = "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\naHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nb"
        let r = HTTP1Script.run([.up(ascii(requests)), .down(ascii(responses))])
        #expect(r.requests.map(\.target) == ["/", "/2"])
        #expect(r.responses.map(\.exchangeIndex) == [0, 1])
        #expect(!r.events.contains { if case .upgraded = $0 { return true } else { return false } })
        // Held bytes are parsed at the end when no response comes.
        let alone = HTTP1Script.run([.up(ascii(requests))])
        #expect(alone.requests.map(\.target) == ["/", "/2"])
    }

    @Test func connectTunnelsAfterSuccessOnly() {
        let connect = "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"
        let ok = "HTTP/1.1 200 Connection established\r\n\r\n"
        let tls: [UInt8] = [0x16, 0x03, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5]
        let r = HTTP1Script.run([.up(ascii(connect)), .down(ascii(ok)), .up(tls), .down(tls)])
        #expect(r.responses.count == 1 && r.responses[0].flags == [.upgrade])
        #expect(r.responses[0].bytes.body == 0)
        #expect(r.events.contains(.upgraded(.up, Int64(connect.utf8.count), 0)))
        #expect(r.events.contains(.upgraded(.down, Int64(ok.utf8.count), 0)))

        let denied = "HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n"
        let d = HTTP1Script.run([.up(ascii(connect)), .down(ascii(denied)), .up(ascii(Self.get)), .down(ascii(denied))])
        #expect(d.requests.map(\.method) == ["CONNECT", "GET"])
        #expect(d.responses.map(\.status) == [407, 407])
        #expect(!d.events.contains { if case .upgraded = $0 { return true } else { return false } })
    }

    @Test func headerLineSplitAcrossSegments() {
        let response = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\nabc"
        let pieces = HTTP1Script.pieces(ascii(response), cuts: [5, 23, 30, 45, 61, 62])
        let r = HTTP1Script.run([.up(ascii(Self.get))] + pieces.map { Step.down($0) })
        #expect(r.responses.count == 1)
        #expect(r.responses[0].header("content-type") == "text/plain")
        #expect(r.responses[0].bytes.body == 3 && r.responses[0].flags == [])
        #expect(r.responses[0].firstOrigin.frameNumber == 2)
        #expect(r.responses[0].lastOrigin.frameNumber == 2 + pieces.count - 1)
    }

    static let sampleRequests = "\r\nPOST /form HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\nX-Folded: a\r\n b\r\n\r\nhello worldGET /x HTTP/1.0\n\n"
        + "PUT /c HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3;x=y\r\nabc\r\n0\r\nT: 1\r\n\r\n"
    static let sampleResponses = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "4\r\nwxyz\r\n0\r\n\r\nHTTP/1.0 404 Not Found\nContent-Length: 2\n\nnoHTTP/1.1 500\r\n\r\ntail bytes"

    /// Every split position of both streams (and a byte-at-a-time feed) gives the same events.
    @Test func segmentationDoesNotChangeTheResult() {
        let up = ascii(Self.sampleRequests)
        let down = ascii(Self.sampleResponses)
        let reference = HTTP1Script.expectSameEventsAtEveryCut(up: up, down: down)
        #expect(reference.requests.count == 3 && reference.responses.count == 3)
        #expect(reference.requests[0].headers.last == HTTPHeader(name: "X-Folded", value: "a b"))
        #expect(reference.requests[0].bytes.startLine == 2 + 21)
        #expect(reference.requests[2].bytes.body == 3 && reference.requests[2].trailers.count == 1)
        #expect(reference.responses[2].flags == [.closeDelimited] && reference.responses[2].bytes.body == 10)
        #expect(reference.responses[0].interimCount == 1)
    }

    @Test func gapInsideABodyKeepsCounting() {
        let head = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"
        let r = HTTP1Script.run([
            .up(ascii(Self.get + Self.get)), .down(ascii(head) + Array(repeating: 0x61, count: 30)), .gap(.down, 50),
            .down(Array(repeating: 0x62, count: 20) + ascii("HTTP/1.1 204 No Content\r\n\r\n")),
        ])
        #expect(r.responses.count == 2)
        #expect(r.responses[0].bytes.body == 100 && r.responses[0].flags == [.gap])
        #expect(r.responses[1].status == 204 && r.responses[1].flags == [])
        #expect(r.responses[0].lastOrigin.frameNumber == 3)

        // Chunked: a gap inside chunk data is counted too.
        let chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n"
        let c = HTTP1Script.run([
            .up(ascii(Self.get)), .down(ascii(chunked) + ascii("0123")), .gap(.down, 8), .down(ascii("cdef\r\n0\r\n\r\n")),
        ])
        #expect(c.responses[0].bytes.body == 16 && c.responses[0].flags == [.gap])
    }

    @Test func gapInHeadersResynchronisesOnTheNextMessage() {
        let first = "HTTP/1.1 200 OK\r\nContent-Le"
        let second = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
        let r = HTTP1Script.run([
            .up(ascii(Self.get + Self.get + Self.get)), .down(ascii(first)), .gap(.down, 40),
            .down(ascii("junk line\r\nmore: x\r\n") + ascii(second)),
        ])
        #expect(r.responses.count == 2)
        #expect(r.responses[0].flags == [.gap, .incomplete])
        #expect(r.responses[0].streamRange == 0..<Int64(first.utf8.count))
        #expect(r.events.contains(.unparsed(.down, Int64(first.utf8.count))))
        let resync = r.responses[1]
        #expect(resync.status == 404 && resync.flags == [.resynchronized])
        #expect(resync.exchangeIndex == 1)
        #expect(resync.streamRange.lowerBound == Int64(first.utf8.count + 40 + 20))

        // Snaplen-cut bytes in a request line behave the same.
        let u = HTTP1Script.run([
            .up(ascii(Self.get + "GET /abc")), .gap(.up, 10, .uncaptured), .up(ascii("xx\r\n\r\n" + Self.get)),
        ])
        #expect(u.requests.count == 3 && u.requests[1].flags == [.gap, .incomplete])
        #expect(u.requests[1].bytes.startLine == 8 && u.requests[1].streamRange == 28..<36)
        #expect(u.requests[2].flags == [.resynchronized] && u.requests[2].target == "/a")
        #expect(u.events.contains(.unparsed(.up, 36)))
    }

    @Test func nonHTTPStreamIsNotParsed() {
        var tls: [UInt8] = [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]
        tls += (0..<600).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        tls += ascii("\nHTTP/1.1 200 OK\r\n")  // even a late plausible line must not count as a message start of data
        let r = HTTP1Script.run([.up(tls), .down(tls.reversed())])
        #expect(r.events.first == .unparsed(.up, 0))
        #expect(r.events.contains(.unparsed(.down, 0)))
        #expect(r.requests.isEmpty)
        let script = HTTP1Script()
        script.run([.up(ascii("SSH-2.0-OpenSSH_9.6\r\n")), .down(ascii("SSH-2.0-OpenSSH_9.6\r\n"))])
        #expect(script.delegate.messages.isEmpty && !script.parser.isHTTP)
        #expect(script.delegate.events == [.unparsed(.up, 0), .unparsed(.down, 0)])
    }

    @Test func hugeChunkSizeIsMalformed() {
        let response = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        let r = HTTP1Script.run([
            .up(ascii(Self.get + Self.get)),
            .down(ascii(response + "ffffffffffffffffffff\r\n" + "whatever\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")),
        ])
        #expect(r.responses.count == 2)
        #expect(r.responses[0].flags == [.malformed, .incomplete])
        #expect(r.responses[0].bytes.total == response.utf8.count)
        #expect(r.events.contains(.unparsed(.down, Int64(response.utf8.count))))
        #expect(r.responses[1].flags == [.resynchronized])
        // The largest accepted size is 2^62.
        #expect(HTTP1Syntax.chunkSize(UnsafeRawBufferPointer(start: nil, count: 0)) == nil)
        for (line, size) in [("4000000000000000\r\n", Int64(1) << 62), ("4000000000000001\r\n", nil), ("0;a=\"b\"\r\n", 0), ("z\r\n", nil)] {
            let parsed = ascii(line).withUnsafeBytes { HTTP1Syntax.chunkSize($0) }
            #expect(parsed == size, "\(line)")
        }
    }

    @Test func headerBlockOverTheCap() {
        var limits = HTTPLimits()
        limits.maxHeaderBytes = 200
        let request = "GET / HTTP/1.1\r\n" + String(repeating: "X-Pad: 0123456789\r\n", count: 20) + "\r\n"
        let r = HTTP1Script.run([.up(ascii(request + Self.get))], limits: limits)
        #expect(r.requests.count == 1)
        let message = r.requests[0]
        #expect(message.flags == [.headersTooLarge, .incomplete])
        #expect(message.bytes.startLine + message.bytes.headers <= 200)
        #expect(r.events.last == .unparsed(.up, message.streamRange.upperBound))
        // A start line longer than the cap, right after a message.
        let long = Self.get + "GET /" + String(repeating: "a", count: 300) + " HTTP/1.1\r\n\r\n"
        let l = HTTP1Script.run([.up(ascii(long))], limits: limits)
        #expect(l.requests.count == 2 && l.requests[1].flags == [.headersTooLarge, .incomplete])
        #expect(l.requests[1].bytes.startLine == 200 && l.requests[1].streamRange == 28..<228)
        #expect(l.events.last == .unparsed(.up, 228))
    }

    @Test func responseWithoutRequestGetsANewIndex() {
        let r = HTTP1Script.run([
            .down(ascii("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")), .up(ascii(Self.get)),
            .down(ascii("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")),
        ])
        #expect(r.responses.map(\.exchangeIndex) == [0, 1])
        #expect(r.requests.map(\.exchangeIndex) == [1])
    }

    @Test func incompleteMessagesAreFlushedOnce() {
        let script = HTTP1Script()
        script.run([
            .up(ascii(Self.get)), .down(ascii("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")), .end(.down),
        ], finish: false)
        script.parser.finish()
        script.parser.finish()
        let r = script.delegate
        #expect(r.responses.count == 1 && r.responses[0].flags == [.incomplete] && r.responses[0].bytes.body == 3)
        // A partial start line at the end of a stream in sync is an incomplete message too.
        let partial = HTTP1Script.run([.up(ascii(Self.get + "GET /b HT"))])
        #expect(partial.requests.count == 2 && partial.requests[1].flags == [.incomplete])
        #expect(partial.requests[1].bytes.startLine == 9)
    }

    @Test func garbageAfterAMessageLosesSync() {
        let r = HTTP1Script.run([.up(ascii(Self.get + "\u{1}\u{2}binary\r\n" + Self.get))])
        #expect(r.requests.count == 2 && r.requests[1].flags == [.resynchronized])
        #expect(r.events.contains(.unparsed(.up, 28)))
    }

    @Test func messagesLostWholeInAGapKeepPairing() {
        let ok = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
        // A request lost whole between two messages still takes an exchange index.
        let r = HTTP1Script.run([
            .up(ascii(Self.get)), .gap(.up, 28), .up(ascii(Self.get)), .down(ascii(ok + ok + ok)),
        ])
        #expect(r.requests.map(\.exchangeIndex) == [0, 2])
        #expect(r.requests[1].flags == [.resynchronized])
        #expect(r.responses.map(\.exchangeIndex) == [0, 1, 2])
        // A response lost whole: the next one answers the next request.
        let d = HTTP1Script.run([
            .up(ascii(Self.get + Self.get + Self.get)), .down(ascii(ok)), .gap(.down, Int64(ok.utf8.count)),
            .down(ascii(ok)),
        ])
        #expect(d.responses.map(\.exchangeIndex) == [0, 2])
        // A response cut in its status line still counts as the answer to its request.
        let c = HTTP1Script.run([
            .up(ascii(Self.get + Self.get + Self.get)), .down(ascii(ok + "HTTP/1.")), .gap(.down, 100),
            .down(ascii("x\r\n" + ok)),
        ])
        #expect(c.responses.map(\.exchangeIndex) == [0, 1, 2])
        #expect(c.responses[1].flags == [.gap, .incomplete] && c.responses[1].status == nil)
        #expect(c.responses[1].bytes.startLine == 7)
        // At the very start of the stream the cut start line was never announced, but still counts.
        let s = HTTP1Script.run([
            .up(ascii(Self.get + Self.get)), .down(ascii("HTTP/1.")), .gap(.down, 100), .down(ascii("x\r\n" + ok)),
        ])
        #expect(s.responses.map(\.exchangeIndex) == [1])
        #expect(s.events.contains(.unparsed(.down, 0)))
    }

    @Test func http2PriorKnowledgeIsNotHTTP1() {
        let preface = ascii("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") + [0, 0, 0x12, 4, 0, 0, 0, 0, 0]
        let settings: [UInt8] = [0, 0, 6, 4, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 100]
        let script = HTTP1Script()
        script.run([.up(preface), .down(settings)])
        #expect(script.delegate.messages.isEmpty && !script.parser.isHTTP)
        #expect(script.delegate.events == [.unparsed(.up, 0), .unparsed(.down, 0)])
    }

    @Test func overlappingOrSkippedDeliveriesStayConsistent() {
        let script = HTTP1Script()
        let request = ascii(Self.get)
        request.withUnsafeBytes { raw in
            let origin = HTTP1Script.origin(1)
            script.parser.streamData(UnsafeRawBufferPointer(rebasing: raw[0..<10]), offset: 0, direction: .up, origin: origin)
            // Bytes 5..<20 again (5 already seen), then the rest.
            script.parser.streamData(UnsafeRawBufferPointer(rebasing: raw[5..<20]), offset: 5, direction: .up, origin: origin)
            script.parser.streamData(UnsafeRawBufferPointer(rebasing: raw[20...]), offset: 20, direction: .up, origin: origin)
        }
        script.parser.finish()
        #expect(script.delegate.requests.count == 1 && script.delegate.requests[0].flags == [])
        #expect(script.delegate.requests[0].streamRange == 0..<28)
    }
}

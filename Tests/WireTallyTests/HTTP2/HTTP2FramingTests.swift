import Testing

@testable import WireTally

/// Synthetic HTTP/2 streams with hand-computed expectations: every frame type and flag, push, resets,
/// GOAWAY, interim responses and trailers, content coding. Frames come from `HTTP2FrameWriter`
/// (RFC 9113 layout) with NIOHPACK's encoder.
@Suite struct HTTP2FramingTests {
    typealias W = HTTP2FrameWriter
    static let get: [(String, String)] = [(":method", "GET"), (":scheme", "https"), (":authority", "example.com"), (":path", "/a")]

    @Test func simpleExchangeCountsEveryByte() throws {
        var client = W(), server = W()
        let requestHeaders = client.block(Self.get + [("user-agent", "t")])
        let responseHeaders = server.block([(":status", "200"), ("content-type", "text/plain")])
        let up = W.preface + W.settings([(3, 100)]) + W.settings(ack: true)
            + W.headers(stream: 1, requestHeaders, endStream: true) + W.windowUpdate(stream: 1, 1000)
        let down = W.settings() + W.settings(ack: true) + W.headers(stream: 1, responseHeaders)
            + W.data(stream: 1, .filled(0x61, 10)) + W.data(stream: 1, [], endStream: true)
        let h = HTTP2Harness()
        h.run([.data(up, .up), .data(down, .down)])
        h.checkInvariants()
        let request = try #require(h.recorder.requests.first)
        let response = try #require(h.recorder.responses.first)
        #expect(request.method == "GET" && request.target == "/a" && request.version == "HTTP/2")
        #expect(request.header("host") == "example.com" && request.header("user-agent") == "t")
        #expect(request.bytes == HTTPByteCounts(headers: requestHeaders.count, framing: 9, control: 13))
        #expect(request.flags.isEmpty && request.exchangeIndex == 0)
        #expect(request.http2?.headersDecodedBytes == "GET /a HTTP/1.1\r\nHost: example.com\r\nuser-agent: t\r\n\r\n".utf8.count)
        #expect(response.status == 200 && response.flags.isEmpty)
        #expect(response.bytes == HTTPByteCounts(headers: responseHeaders.count, body: 10, framing: 27))
        #expect(response.http2?.headersDecodedBytes == "HTTP/1.1 200 \r\ncontent-type: text/plain\r\n\r\n".utf8.count)
        let requestStart = Int64(24 + 15 + 9)
        #expect(request.streamRange == requestStart..<Int64(up.count))
        // every connection-level frame is reported (the analysis decides per frame which exchange it costs)
        #expect(h.recorder.runs.up.map(\.owner) == [.connection(.preface), .connection(.settings), .connection(.settings), .exchange(0)])
        #expect(h.recorder.runs.up.map(\.offset) == [0, 24, 39, requestStart])
        #expect(h.parser.frameTotals.up[1] == HTTP2FrameCount(frames: 1, bytes: Int64(9 + requestHeaders.count)))
        #expect(h.parser.frameTotals.up.prefaceBytes == 24)
        #expect(h.parser.connectionInfo.settings.up.maxConcurrentStreams == 100)
        #expect(h.parser.connectionInfo.sawPreface)
    }

    @Test func ownerIsUndecidedUntilAFrameHeaderIsWhole() throws {
        var server = W()
        let frame = server.headers(stream: 2, [(":status", "200")])
        let h = HTTP2Harness()
        h.feed(W.settings(), .down)
        #expect(h.parser.undecidedOffset(.down) == nil)
        h.feed(Array(frame[..<5]), .down)
        #expect(h.parser.undecidedOffset(.down) == 9 && h.recorder.runs.down.count == 1)
        h.feed(Array(frame[5...]), .down)
        #expect(h.parser.undecidedOffset(.down) == nil && h.recorder.owner(.down, at: 9) == .connection(.other))
        // The client preface is undecided until whole.
        h.feed(Array(W.preface[..<10]), .up)
        #expect(h.parser.undecidedOffset(.up) == 0 && h.recorder.runs.up.isEmpty)
        h.feed(Array(W.preface[10...]), .up)
        #expect(h.parser.undecidedOffset(.up) == nil && h.recorder.runs.up.first?.owner == .connection(.preface))
    }

    @Test func paddingPriorityAndContinuation() throws {
        var client = W(), server = W()
        let block = client.block(Self.get + [("x-long", String(repeating: "v", count: 100))])
        let split = block.count / 2
        let up = W.preface + W.settings()
            + W.headers(stream: 1, Array(block[..<split]), endHeaders: false, padding: 3, priority: true)
            + W.continuation(stream: 1, Array(block[split...]), endHeaders: true)
            + W.data(stream: 1, .filled(1, 20), endStream: true, padding: 7)
        let responseBlock = server.block([(":status", "204")])
        let down = W.settings() + W.headers(stream: 1, responseBlock, endStream: true, padding: 0)
        let h = HTTP2Harness()
        h.run([.data(up, .up), .data(down, .down)])
        h.checkInvariants()
        let request = try #require(h.recorder.requests.first)
        // HEADERS: 9 + pad length 1 + priority 5 + padding 3; CONTINUATION 9; DATA 9 + 1 + 7.
        #expect(request.bytes == HTTPByteCounts(headers: block.count, body: 20, framing: 9 + 1 + 5 + 3 + 9 + 9 + 1 + 7))
        #expect(request.http2?.headersPriorityBytes == 5 && request.http2?.paddingBytes == 1 + 3 + 1 + 7)
        #expect(request.header("x-long")?.count == 100 && request.flags.isEmpty)
        let response = try #require(h.recorder.responses.first)
        #expect(response.status == 204 && response.bytes == HTTPByteCounts(headers: responseBlock.count, framing: 10))
    }

    @Test func serverPushCreatesAnExchangeForThePromisedStream() throws {
        var client = W(), server = W()
        let up = W.preface + W.settings() + client.headers(stream: 1, Self.get, endStream: true)
        let promise = server.pushPromise(stream: 1, promised: 2, [(":method", "GET"), (":scheme", "https"), (":authority", "example.com"), (":path", "/style.css")], padding: 2)
        let down = W.settings() + promise + server.headers(stream: 1, [(":status", "200")])
            + server.pushPromise(stream: 1, promised: 4, [(":method", "GET"), (":scheme", "https"), (":authority", "example.com"), (":path", "/x.js")])
            + server.headers(stream: 2, [(":status", "200")]) + W.data(stream: 2, .filled(2, 30), endStream: true)
            + W.data(stream: 1, .filled(1, 5), endStream: true)
        let h = HTTP2Harness()
        h.run([.data(up, .up), .data(down, .down), .data(W.rst(stream: 4, code: 8), .up)])
        h.checkInvariants()
        let pushed = try #require(h.recorder.messages.first { $0.message.target == "/style.css" })
        #expect(pushed.direction == .down && pushed.message.kind == .request && pushed.message.exchangeIndex == 1)
        #expect(pushed.message.http2?.pushedBy == 1 && pushed.message.http2?.streamID == 2)
        #expect(pushed.message.bytes.framing == 9 + 1 + 4 + 2)
        #expect(pushed.message.bytes.total == promise.count)
        let pushedResponse = try #require(h.recorder.responses.first { $0.exchangeIndex == 1 })
        #expect(pushedResponse.status == 200 && pushedResponse.bytes.body == 30 && pushedResponse.flags.isEmpty)
        // Stream 4's promise was cancelled by the client: the RST_STREAM ends it, and belongs to no message.
        let cancelled = try #require(h.recorder.requests.first { $0.target == "/x.js" })
        #expect(cancelled.exchangeIndex == 2 && cancelled.http2?.resetBy == .up && cancelled.http2?.resetErrorCode == 8)
        #expect(h.recorder.owner(.up, at: Int64(up.count)) == .connection(.other))
        #expect(h.recorder.responses.first { $0.exchangeIndex == 0 }?.bytes.body == 5)
    }

    @Test(arguments: [FlowDirection.up, .down])
    func resetByEitherSideEndsTheStream(by side: FlowDirection) throws {
        var client = W(), server = W()
        let up = W.preface + W.settings() + client.headers(stream: 1, Self.get) + W.data(stream: 1, .filled(1, 100))
        let down = W.settings() + server.headers(stream: 1, [(":status", "200")]) + W.data(stream: 1, .filled(2, 50))
        // DATA still in flight after the client's reset (a cancel) is the exchange's; after the server's,
        // nobody's.
        let late = W.data(stream: 1, .filled(3, 40))
        let h = HTTP2Harness()
        h.run([.data(up, .up), .data(down, .down), .data(W.rst(stream: 1, code: side == .up ? 8 : 2), side), .data(late, .down)],
              finish: false)
        #expect(h.recorder.messages.count == 2)
        h.parser.finish()
        h.checkInvariants()
        for message in h.recorder.messages.map(\.message) {
            #expect(message.http2?.resetBy == side && message.http2?.resetErrorCode == (side == .up ? 8 : 2))
            #expect(message.flags.contains(.incomplete))
        }
        let resetter = try #require(h.recorder.messages.first { $0.direction == side }?.message)
        #expect(resetter.bytes.control == 13)
        let cancelled = side == .up
        #expect(h.recorder.owner(.down, at: h.fed.down!.upperBound - 1) == (cancelled ? .cancelledStream(0) : .connection(.other)))
        #expect(h.parser.connectionInfo.framesOutsideStreams.down == (cancelled ? 0 : 1))
        #expect(h.recorder.cancels.map(\.exchange) == (cancelled ? [0] : []))
        #expect(h.recorder.framesAfterEnd.map(\.bytes) == (cancelled ? [9 + 40] : []))
    }

    @Test func goawayRefusesLaterStreams() throws {
        var client = W(), server = W()
        let up = W.preface + W.settings() + client.headers(stream: 1, Self.get, endStream: true)
            + client.headers(stream: 3, Self.get, endStream: true) + client.headers(stream: 5, Self.get, endStream: true)
        let down = W.settings() + W.goaway(last: 1, code: 0) + server.headers(stream: 1, [(":status", "200")], endStream: true)
        let h = HTTP2Harness()
        h.run([.data(up, .up), .data(down, .down)])
        h.checkInvariants()
        #expect(h.parser.connectionInfo.goawayLastStreamID.down == 1 && h.parser.connectionInfo.goawayErrorCode.down == 0)
        let refused = h.recorder.requests.filter { $0.http2?.refused == true }.map { $0.http2!.streamID }
        #expect(refused == [3, 5])
        #expect(h.recorder.requests.first { $0.http2?.streamID == 1 }?.http2?.refused == false)
    }

    @Test func unknownFrameTypesAreSkippedAsConnectionBytes() throws {
        var client = W()
        let unknown = W.frame(0xfa, flags: 0xff, stream: 1, .filled(9, 33))
        let up = W.preface + W.settings() + client.headers(stream: 1, Self.get) + unknown + W.data(stream: 1, [1], endStream: true)
        let h = HTTP2Harness()
        h.run([.data(up, .up)])
        h.checkInvariants()
        #expect(h.parser.frameTotals.up.unknown == HTTP2FrameCount(frames: 1, bytes: 42))
        #expect(h.parser.connectionInfo.unknownFrames.up == 1)
        let at = Int64(up.count - 10 - 42)
        #expect(h.recorder.owner(.up, at: at) == .connection(.unknown))
        #expect(h.recorder.requests.first?.bytes.body == 1)
    }

    @Test func maxFrameSizeIsHonoured() throws {
        var client = W()
        let big = W.data(stream: 1, .filled(5, 20_000))
        // Before the server allows it, a 20000-byte frame is a framing error: sync is lost there.
        let h1 = HTTP2Harness()
        let start = W.preface + W.settings() + client.headers(stream: 1, Self.get)
        h1.run([.data(W.settings(), .down), .data(start + big + W.data(stream: 1, [], endStream: true), .up)])
        h1.checkInvariants()
        #expect(h1.parser.connectionInfo.oversizedFrames.up == 1)
        #expect(h1.recorder.owner(.up, at: Int64(start.count)) == .unparsed)
        // Sync comes back at the empty DATA frame that ends the request: the request is complete but has a gap.
        #expect(h1.parser.connectionInfo.resynchronizations.up == 1)
        #expect(h1.recorder.requests.first?.flags == [.gap])
        #expect(h1.parser.connectionInfo.unparsedBytes.up == Int64(big.count))
        // Once the server advertised SETTINGS_MAX_FRAME_SIZE 32768 it is fine; a larger one is not.
        var client2 = W()
        let h2 = HTTP2Harness()
        let start2 = W.preface + W.settings() + client2.headers(stream: 1, Self.get)
        h2.run([.data(W.settings([(5, 32768)]), .down), .data(start2 + big + W.data(stream: 1, [], endStream: true), .up)])
        h2.checkInvariants()
        #expect(h2.parser.connectionInfo.oversizedFrames.up == 0 && h2.parser.connectionInfo.settings.down.maxFrameSize == 32768)
        #expect(h2.recorder.requests.first?.bytes.body == 20_000 && h2.recorder.requests.first?.flags.isEmpty == true)
        let h3 = HTTP2Harness()
        var client3 = W()
        h3.run([.data(W.settings([(5, 32768)]), .down),
                .data(W.preface + W.settings() + client3.headers(stream: 1, Self.get) + W.data(stream: 1, .filled(1, 40000)), .up)])
        h3.checkInvariants()
        #expect(h3.parser.connectionInfo.oversizedFrames.up == 1)
    }

    @Test func interimResponsesAndTrailers() throws {
        var client = W(), server = W()
        let up = W.preface + W.settings() + client.headers(stream: 1, Self.get + [(":method", "POST")].prefix(0), endStream: true)
        let interim1 = server.headers(stream: 1, [(":status", "100")])
        let interim2 = server.headers(stream: 1, [(":status", "103"), ("link", "</s.css>; rel=preload")])
        let final = server.headers(stream: 1, [(":status", "200"), ("trailer", "grpc-status")])
        let trailers = server.headers(stream: 1, [("grpc-status", "0")], endStream: true)
        let down = W.settings() + interim1 + interim2 + final + W.data(stream: 1, .filled(1, 10)) + trailers
        let h = HTTP2Harness()
        h.run([.data(up, .up), .data(down, .down)])
        h.checkInvariants()
        let response = try #require(h.recorder.responses.first)
        #expect(response.status == 200 && response.interimCount == 2 && response.interimBytes == interim1.count + interim2.count)
        #expect(response.trailers == [HTTPHeader(name: "grpc-status", value: "0")])
        #expect(response.bytes.total == final.count + 19 + trailers.count)
        #expect(response.streamRange.lowerBound == 9)
    }

    @Test func gzipBodyIsDecodedWithTheContentDecoder() throws {
        let body = (0..<2000).map { UInt8(truncatingIfNeeded: $0 % 7) }
        let gzipped = try #require(Gzip.compress(body))
        var client = W(), server = W()
        let up = W.preface + W.settings() + client.headers(stream: 1, Self.get, endStream: true)
        let down = W.settings() + server.headers(stream: 1, [(":status", "200"), ("content-encoding", "gzip")])
            + W.data(stream: 1, Array(gzipped[..<10])) + W.data(stream: 1, Array(gzipped[10...]), endStream: true, padding: 4)
        let h = HTTP2Harness()
        h.run([.data(up, .up), .data(down, .down)], chunks: { _ in 3 })
        h.checkInvariants()
        let response = try #require(h.recorder.responses.first)
        #expect(response.contentEncoding == "gzip" && response.decodedBodyBytes == 2000 && response.bytes.body == gzipped.count)
    }

    @Test func upgradedStreamKeepsItsExchange() throws {
        var client = W(), server = W()
        let up = W.preface + W.settings() + W.windowUpdate(stream: 1, 100) + client.headers(stream: 3, Self.get, endStream: true)
        let down = W.settings() + server.headers(stream: 1, [(":status", "200")]) + W.data(stream: 1, .filled(1, 8), endStream: true)
            + server.headers(stream: 3, [(":status", "404")], endStream: true)
        let h = HTTP2Harness(upgradedStream: HTTP2UpgradedStream(exchangeIndex: 4), start: DirectionPair(120, 200))
        h.run([.data(up, .up), .data(down, .down)])
        h.checkInvariants()
        #expect(h.parser.connectionInfo.sawPreface)
        #expect(h.recorder.requests.map(\.exchangeIndex) == [5])
        let first = try #require(h.recorder.responses.first { $0.exchangeIndex == 4 })
        #expect(first.status == 200 && first.bytes.body == 8 && first.http2?.streamID == 1)
        #expect(h.recorder.responses.first { $0.exchangeIndex == 5 }?.status == 404)
        // The client's frames on stream 1 carry no message of its direction.
        #expect(h.recorder.owner(.up, at: 120 + 24 + 9) == .connection(.other))
    }
}


/// A stream that ends while a frame of it is being read in the other direction.
@Suite struct HTTP2StreamEndTests {
    typealias W = HTTP2FrameWriter

    @Test func resetWhileADataFrameIsHalfReadWaitsForItsEnd() throws {
        var client = W(), server = W()
        let up = W.preface + W.settings() + client.headers(stream: 1, HTTP2FramingTests.get, endStream: true)
        let data = W.data(stream: 1, .filled(1, 1000))
        let down = W.settings() + server.headers(stream: 1, [(":status", "200")])
        let h = HTTP2Harness()
        h.run([.data(up, .up), .data(down + Array(data[..<300]), .down), .data(W.rst(stream: 1, code: 8), .up),
               .data(Array(data[300...]) + W.data(stream: 1, .filled(2, 10)), .down)], finish: false)
        #expect(h.recorder.messages.count == 2)
        h.parser.finish()
        h.checkInvariants()
        let response = try #require(h.recorder.responses.first)
        #expect(response.bytes.body == 1000 && response.http2?.resetBy == .up && response.flags == [.incomplete])
        // the client cancelled: the DATA that began after its reset is still the exchange's (in flight)
        #expect(h.recorder.owner(.down, at: Int64(down.count + data.count)) == .cancelledStream(0))
        #expect(h.recorder.framesAfterEnd.map(\.bytes) == [9 + 10] && h.recorder.cancels.map(\.exchange) == [0])
    }

    @Test func resetWhileAHeaderBlockIsOpenWaitsForEndHeaders() throws {
        var client = W(), server = W()
        let up = W.preface + W.settings() + client.headers(stream: 1, HTTP2FramingTests.get, endStream: true)
        let block = server.block([(":status", "200"), ("x-a", String(repeating: "a", count: 50))])
        let first = W.headers(stream: 1, Array(block[..<10]), endHeaders: false)
        let rest = W.continuation(stream: 1, Array(block[10...]), endHeaders: true)
        let h = HTTP2Harness()
        h.run([.data(up, .up), .data(W.settings() + first, .down), .data(W.rst(stream: 1, code: 8), .up), .data(rest, .down)])
        h.checkInvariants()
        let response = try #require(h.recorder.responses.first)
        #expect(response.status == 200 && response.bytes.total == first.count + rest.count)
    }
}

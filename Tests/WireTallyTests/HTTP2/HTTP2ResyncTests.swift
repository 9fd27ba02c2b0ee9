import Testing

@testable import WireTally

/// Lost bytes: gaps inside frames and across frame headers, a capture begun mid-connection, HPACK
/// state lost with a header block. Hand-built frames (`HTTP2FrameWriter`), hand-computed expectations.
@Suite struct HTTP2ResyncTests {
    typealias W = HTTP2FrameWriter
    static func request(_ path: String, authority: String = "example.com") -> [(String, String)] {
        [(":method", "GET"), (":scheme", "https"), (":authority", authority), (":path", path)]
    }

    @Test func gapInsideDataKeepsSync() throws {
        let body = (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let gzipped = try #require(Gzip.compress(body))
        var client = W(), server = W()
        let up = W.preface + W.settings() + client.headers(stream: 1, Self.request("/a"), endStream: true)
            + client.headers(stream: 3, Self.request("/b"), endStream: true)
        let head = W.settings() + server.headers(stream: 1, [(":status", "200"), ("content-encoding", "gzip")])
        let data = W.data(stream: 1, gzipped, endStream: true)
        let rest = server.headers(stream: 3, [(":status", "404")], endStream: true)
        let h = HTTP2Harness()
        h.run([.data(up, .up), .data(head + Array(data[..<20]), .down), .gap(10, .down), .data(Array(data[30...]) + rest, .down)])
        h.checkInvariants()
        let first = try #require(h.recorder.responses.first { $0.exchangeIndex == 0 })
        #expect(first.bytes.body == gzipped.count && first.flags == [.gap, .undecodable] && first.decodedBodyBytes == nil)
        #expect(h.recorder.responses.first { $0.exchangeIndex == 1 }?.flags.isEmpty == true)
        #expect(h.parser.connectionInfo.resynchronizations.down == 0 && h.parser.connectionInfo.unparsedBytes.down == 0)
    }

    @Test func gapAcrossFrameHeadersResynchronises() throws {
        var client = W(), server = W()
        let up = W.preface + W.settings() + client.headers(stream: 1, Self.request("/a"), endStream: true)
        let head = W.settings() + server.headers(stream: 1, [(":status", "200")])
        let frames = W.data(stream: 1, .filled(0x41, 100)) + W.data(stream: 1, .filled(0x42, 100)) + W.data(stream: 1, .filled(0x43, 100))
        let end = W.data(stream: 1, .filled(0x44, 10), endStream: true)
        // The gap takes the end of the first DATA frame, the second whole, and the third's first 5 bytes.
        let cut = 100, lost = 9 + 109 + 5
        let h = HTTP2Harness()
        h.run([.data(up, .up), .data(head + Array(frames[..<cut]), .down), .gap(lost, .down),
               .data(Array(frames[(cut + lost)...]) + end, .down)], chunks: { _ in 7 })
        h.checkInvariants()
        let gapStart = Int64(head.count + 109)
        #expect(h.recorder.owner(.down, at: gapStart) == .unparsed)
        let resumed = Int64(head.count + 3 * 109)
        #expect(h.recorder.owner(.down, at: resumed) == .exchange(0))
        #expect(h.parser.connectionInfo.resynchronizations.down == 1)
        #expect(h.parser.connectionInfo.unparsedBytes.down == resumed - gapStart)
        let response = try #require(h.recorder.responses.first)
        #expect(response.flags == [.gap] && response.bytes.body == 100 + 10 && response.status == 200)
    }

    @Test func gapInAHeaderBlockLosesTheDynamicTable() throws {
        var client = W()
        let first = client.headers(stream: 1, Self.request("/a") + [("x-token", "secret")], endStream: true)
        let second = client.headers(stream: 3, Self.request("/b") + [("x-token", "secret")], endStream: true)
        // References the entries the encoder added for the first request: lost with the gap.
        let third = client.headers(stream: 5, Self.request("/a") + [("x-token", "secret")], endStream: true)
        // Only new fields (and static ones): decodes against an empty table.
        let fourth = client.headers(stream: 7, Self.request("/new", authority: "other.example"), endStream: true)
        let start = W.preface + W.settings() + first
        let h = HTTP2Harness()
        h.run([.data(start + Array(second[..<12]), .up), .gap(3, .up), .data(Array(second[15...]) + third + fourth, .up)])
        h.checkInvariants()
        let requests = h.recorder.requests
        #expect(requests.map(\.target) == ["/a", nil, nil, "/new"])
        #expect(requests[1].flags.contains(.gap) && requests[2].flags.contains(.gap))
        #expect(requests[3].flags == [.resynchronized] && requests[3].header("host") == "other.example")
        #expect(h.parser.connectionInfo.hpackError.up == false)
        #expect(requests.map(\.bytes.total) == [first.count, second.count, third.count, fourth.count])
    }

    @Test func midConnectionStartJoinsStreams() throws {
        var client = W(), server = W()
        // What was before the capture: the preface, SETTINGS and a request and response on stream 1.
        _ = client.headers(stream: 1, Self.request("/old"), endStream: true)
        _ = server.headers(stream: 1, [(":status", "200")])
        let bigData = W.data(stream: 1, .filled(0x5a, 500), endStream: true)
        let up = W.windowUpdate(stream: 0, 5000) + client.headers(stream: 3, Self.request("/next", authority: "b.example"), endStream: true)
        let down = Array(bigData[200...]) + server.headers(stream: 3, [(":status", "201"), ("server", "x")], endStream: true)
        let h = HTTP2Harness(start: DirectionPair(1000, 2000))
        h.run([.data(up, .up), .data(down, .down)])
        h.checkInvariants()
        #expect(h.parser.connectionInfo.sawPreface == false)
        #expect(h.recorder.runs.up.first == HTTP2Recorder.Run(offset: 1000, owner: .connection(.windowUpdate)))
        #expect(h.recorder.runs.down.first == HTTP2Recorder.Run(offset: 2000, owner: .unparsed))
        let request = try #require(h.recorder.requests.first)
        #expect(request.target == "/next" && request.flags == [.resynchronized] && request.exchangeIndex == 0)
        let response = try #require(h.recorder.responses.first)
        #expect(response.status == 201 && response.exchangeIndex == 0)
        #expect(h.parser.connectionInfo.unparsedBytes.down == 309)
    }

    @Test func hpackErrorStopsHeaderDecodingButNotCounting() throws {
        var client = W()
        let garbage: [UInt8] = [0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x00, 0x01]
        let bad = W.headers(stream: 1, garbage, endStream: false)
        let later = client.headers(stream: 3, Self.request("/b"), endStream: true)
        let up = W.preface + W.settings() + bad + W.data(stream: 1, .filled(1, 50), endStream: true) + later
        let h = HTTP2Harness()
        h.run([.data(up, .up)])
        h.checkInvariants()
        #expect(h.parser.connectionInfo.hpackError.up && !h.parser.connectionInfo.hpackError.down)
        let requests = h.recorder.requests
        #expect(requests[0].http2?.hpackError == true && requests[0].flags.contains(.malformed))
        #expect(requests[0].bytes == HTTPByteCounts(headers: garbage.count, body: 50, framing: 18))
        #expect(requests[1].method == nil && requests[1].bytes.total == later.count)
    }

    @Test func continuationFloodAndHugeHeaderListHitTheCap() throws {
        var limits = HTTPLimits()
        limits.maxHeaderBytes = 4096
        var client = W()
        var flood = W.headers(stream: 1, client.block(Self.request("/a")), endHeaders: false)
        for _ in 0..<100 { flood += W.continuation(stream: 1, .filled(0x40, 100), endHeaders: false) }
        flood += W.continuation(stream: 1, [], endHeaders: true)
        let up = W.preface + W.settings() + flood + W.data(stream: 1, .filled(1, 10), endStream: true)
        let h = HTTP2Harness(limits: limits)
        h.run([.data(up, .up)])
        h.checkInvariants()
        #expect(h.parser.connectionInfo.headersTooLarge.up)
        let request = try #require(h.recorder.requests.first)
        #expect(request.flags.contains(.headersTooLarge) && request.bytes.total == flood.count + 19 && request.bytes.body == 10)

        // A small block that decodes to a list over the cap: one 3000-byte field, then referenced 10 times.
        var server = W()
        let value = String(repeating: "v", count: 3000)
        let down = W.settings() + server.headers(stream: 1, [(":status", "200"), ("x-big", value)])
            + server.headers(stream: 1, Array(repeating: ("x-big", value), count: 10), endStream: true)
        let h2 = HTTP2Harness(limits: limits)
        var client2 = W()
        h2.run([.data(W.preface + W.settings() + client2.headers(stream: 1, Self.request("/a"), endStream: true), .up), .data(down, .down)])
        h2.checkInvariants()
        #expect(h2.parser.connectionInfo.headersTooLarge.down)
        #expect(h2.recorder.responses.first?.flags.contains(.headersTooLarge) == true)
        #expect(h2.recorder.responses.first?.bytes.total == down.count - 9)
    }

    @Test func openStreamsAreCapped() throws {
        var limits = HTTPLimits()
        limits.maxOpenRequests = 3
        var client = W()
        var up = W.preface + W.settings()
        for id in stride(from: UInt32(1), through: 9, by: 2) { up += client.headers(stream: id, Self.request("/\(id)")) }
        let h = HTTP2Harness(limits: limits)
        h.run([.data(up, .up)])
        h.checkInvariants()
        #expect(h.parser.connectionInfo.streamsOverCap == 2 && h.parser.connectionInfo.streams == 3)
        #expect(h.recorder.requests.map(\.target) == ["/1", "/3", "/5"])
        #expect(h.recorder.requests.allSatisfy { $0.flags == [.incomplete] })
    }
}

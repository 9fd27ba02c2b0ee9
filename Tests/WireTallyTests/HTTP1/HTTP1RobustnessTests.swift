import Testing

@testable import WireTally

@Suite struct HTTP1RobustnessTests {
    typealias Step = HTTP1Script.Step

    static let compressed = Compression.compress(HTTP1ContentDecodingTests.text(5000), .gzip)
    static var up: [UInt8] { ascii(HTTP1ParserTests.sampleRequests + HTTP1ParserTests.get) }
    static var down: [UInt8] {
        HTTP1ContentDecodingTests.response(compressed, coding: "gzip", chunked: true)
            + HTTP1ContentDecodingTests.response(compressed, coding: "deflate")
            + ascii(HTTP1ParserTests.sampleResponses)
    }

    /// Cuts `bytes` at random places; some pieces become gaps when `gaps` is set.
    static func randomSteps(_ bytes: [UInt8], _ direction: FlowDirection, gaps: Bool, _ rng: inout SeededGenerator) -> [Step] {
        var steps: [Step] = []
        var start = 0
        while start < bytes.count {
            let length = min(bytes.count - start, Int.random(in: 1...300, using: &rng))
            let piece = Array(bytes[start..<(start + length)])
            if gaps && Int.random(in: 0..<8, using: &rng) == 0 {
                steps.append(.gap(direction, Int64(length), Bool.random(using: &rng) ? .missing : .uncaptured))
            } else {
                steps.append(direction == .up ? .up(piece) : .down(piece))
            }
            start += length
        }
        return steps
    }

    /// Interleaves two step lists randomly, keeping each one's order.
    static func interleave(_ a: [Step], _ b: [Step], _ rng: inout SeededGenerator) -> [Step] {
        var result: [Step] = []
        var i = 0
        var j = 0
        while i < a.count || j < b.count {
            if j == b.count || (i < a.count && Bool.random(using: &rng)) {
                result.append(a[i])
                i += 1
            } else {
                result.append(b[j])
                j += 1
            }
        }
        return result
    }

    static func expectOrdered(_ recorder: RecordingHTTPDelegate) {
        for kind in [HTTPMessage.Kind.request, .response] {
            var last: Int64 = 0
            for message in recorder.messages where message.kind == kind {
                #expect(message.streamRange.lowerBound >= last)
                last = message.streamRange.upperBound
            }
        }
    }

    @Test func randomSegmentationGivesIdenticalResultsWithDecoding() {
        let reference = HTTP1Script.run([.up(Self.up), .down(Self.down)])
        #expect(reference.responses.prefix(2).map(\.decodedBodyBytes) == [5000, 5000])
        var rng = SeededGenerator(state: 1)
        for _ in 0..<200 {
            let steps = Self.randomSteps(Self.up, .up, gaps: false, &rng) + Self.randomSteps(Self.down, .down, gaps: false, &rng)
            #expect(HTTP1Script.run(steps).events == reference.events)
        }
    }

    @Test func randomGapsMutationsAndInterleavingNeverBreakAccounting() {
        var rng = SeededGenerator(state: 2)
        for round in 0..<400 {
            var up = Self.up
            var down = Self.down
            for _ in 0..<(round % 4) {
                up[Int.random(in: 0..<up.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                down[Int.random(in: 0..<down.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            var steps = Self.interleave(
                Self.randomSteps(up, .up, gaps: true, &rng), Self.randomSteps(down, .down, gaps: true, &rng), &rng)
            if Bool.random(using: &rng) { steps.append(.end(.up)) }
            if Bool.random(using: &rng) { steps.append(.end(.down)) }
            var limits = HTTPLimits()
            if round % 5 == 0 { limits.maxHeaderBytes = 64 }
            let recorder = HTTP1Script.run(steps, limits: limits)
            Self.expectOrdered(recorder)
        }
    }

    @Test func randomBytesAreNotHTTP() {
        var rng = SeededGenerator(state: 3)
        for _ in 0..<100 {
            let up = (0..<2000).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let down = (0..<2000).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let script = HTTP1Script()
            script.run(Self.interleave(
                Self.randomSteps(up, .up, gaps: true, &rng), Self.randomSteps(down, .down, gaps: true, &rng), &rng))
            #expect(script.delegate.messages.isEmpty)
            #expect(!script.parser.isHTTP)
        }
    }

    @Test func hostileFramingValues() {
        let cases = [
            "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\nx",
            "HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\nx",
            "HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\nx",
            "HTTP/1.1 200 OK\r\nContent-Length: 4611686018427387904\r\n\r\nx",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nabc\r\n",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n;\r\n",
            "HTTP/1.1 999 Whatever\r\n\r\n",
            "HTTP/1.1 200 OK\r\n: no name\r\nno colon\r\n\r\n",
        ]
        for text in cases {
            let r = HTTP1Script.run([.up(ascii(HTTP1ParserTests.get)), .down(ascii(text))])
            #expect(r.responses.count == 1, "\(text)")
        }
        let malformed = HTTP1Script.run([
            .up(ascii(HTTP1ParserTests.get)), .down(ascii("HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\nx")),
        ])
        #expect(malformed.responses[0].flags == [.malformed, .incomplete])
    }
}

import Foundation
import Testing

@testable import WireTally

@Suite struct HARHelperTests {
    @Test func percentDecoding() {
        #expect(PercentDecoding.decode("a%20b%2Fc") == "a b/c")
        #expect(PercentDecoding.decode("caf%C3%A9") == "café")
        #expect(PercentDecoding.decode("a+b") == "a+b")
        #expect(PercentDecoding.decode("a+b", plusAsSpace: true) == "a b")
        #expect(PercentDecoding.decode("100%") == "100%")
        #expect(PercentDecoding.decode("%4") == "%4")
        #expect(PercentDecoding.decode("%zz%41") == "%zzA")
        #expect(PercentDecoding.decode("%FF") == "\u{FFFD}")
        #expect(PercentDecoding.decode("") == "")
    }

    @Test func formPairsAndQueries() {
        let pairs = PercentDecoding.formPairs("a=1&&b=&c&d=x=y&e=%26%3D+")
        #expect(pairs.map(\.name) == ["a", "b", "c", "d", "e"])
        #expect(pairs.map(\.value) == ["1", "", "", "x=y", "&= "])
        #expect(PercentDecoding.query(ofTarget: "/p?x=1#frag") == "x=1")
        #expect(PercentDecoding.query(ofTarget: "/p") == nil)
        #expect(PercentDecoding.query(ofTarget: "/p?") == "")
    }

    @Test func isoDates() {
        #expect(HARDate.iso8601(Timestamp(nanoseconds: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(HARDate.iso8601(Timestamp(seconds: 1_795_324_581, nanoseconds: 123_999_999)) == "2026-11-22T05:16:21.123Z")
        #expect(HARDate.iso8601(Timestamp(seconds: 951_782_400, nanoseconds: 0)) == "2000-02-29T00:00:00.000Z")
        #expect(HARDate.iso8601(Timestamp(nanoseconds: -1)) == "1969-12-31T23:59:59.999Z")
        for days in stride(from: Int64(-800_000), to: 800_000, by: 997) {
            let (y, m, d) = HARDate.civil(fromDays: days)
            #expect(HARDate.days(fromCivil: y, m, d) == days)
        }
    }

    @Test func httpDates() {
        let expected = Timestamp(seconds: 784_111_777, nanoseconds: 0)  // 1994-11-06 08:49:37 UTC
        #expect(HARDate.parseHTTPDate("Sun, 06 Nov 1994 08:49:37 GMT") == expected)
        #expect(HARDate.parseHTTPDate("Sunday, 06-Nov-94 08:49:37 GMT") == expected)
        #expect(HARDate.parseHTTPDate("Sun Nov  6 08:49:37 1994") == expected)
        #expect(HARDate.parseHTTPDate("Sun, 06-Nov-1994 08:49:37 GMT") == expected)
        #expect(HARDate.parseHTTPDate("tomorrow") == nil)
    }

    @Test func requestCookies() {
        let headers = [HTTPHeader(name: "cookie", value: " a=1;b = 2 ; c=x=y;;flag"), HTTPHeader(name: "Host", value: "h")]
        let cookies = HTTPCookies.requestCookies(headers)
        #expect(cookies.map(\.name) == ["a", "b", "c", ""])
        #expect(cookies.map(\.value) == ["1", "2", "x=y", "flag"])
    }

    @Test func responseCookies() {
        let received = Timestamp(seconds: 1_000, nanoseconds: 0)
        let cookies = HTTPCookies.responseCookies([
            HTTPHeader(name: "Set-Cookie", value: "id=a3fWa; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Secure; HttpOnly"),
            HTTPHeader(name: "set-cookie", value: "x=1; max-age=10; expires=Wed, 21 Oct 2015 07:28:00 GMT; path=/p"),
            HTTPHeader(name: "Set-Cookie", value: ""),
        ], received: received)
        #expect(cookies.count == 2)
        #expect(cookies[0] == HARCookie(name: "id", value: "a3fWa", expires: "2015-10-21T07:28:00.000Z", httpOnly: true, secure: true))
        // Max-Age wins over Expires (RFC 6265 5.3).
        #expect(cookies[1] == HARCookie(name: "x", value: "1", path: "/p", expires: "1970-01-01T00:16:50.000Z", httpOnly: false, secure: false))
    }

    @Test func base64() {
        #expect(Base64.encode([]) == "")
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) }
            #expect(Base64.encode(bytes) == Data(bytes).base64EncodedString())
        }
    }

    @Test func harFormatIsAvailable() {
        #expect(OutputFormat(rawValue: "har") == .har)
        #expect(OutputFormat.har.makeWriter(output: TextOutput()) is HARWriter)
        #expect(OutputFormat.har.analyzerOptions(.init()).http.retainedBodyBytes == HARWriter.retainedBodyBytes)
        #expect(OutputFormat.jsonl.analyzerOptions(.init()).http.retainedBodyBytes == 0)
        // HAR's content.size is the decoded size: it decodes even when `analyze` runs without --decode.
        var undecoded = HTTPLimits()
        undecoded.decodeBodies = false
        #expect(OutputFormat.har.analyzerOptions(.init(http: undecoded)).http.decodeBodies)
        #expect(!OutputFormat.jsonl.analyzerOptions(.init(http: undecoded)).http.decodeBodies)
        #expect(EstimatorRun.requiredHTTPLimits(undecoded).decodeBodies)
    }

    @Test func harTimingPhases() {
        var timing = ExchangeTiming()
        timing.connect = 1
        timing.send = 0.0004
        timing.wait = 2.5
        timing.receive = -1
        let phases = HARTimings.Phases(timing)
        #expect(phases.connect == 1000 && phases.ssl == -1 && phases.send == 0 && phases.receive == 0)
        #expect(phases.time == 3500)
        timing.connect = -1
        timing.ssl = 2
        #expect(HARTimings.Phases(timing).connect == 2000)
    }
}

/// Body retention in the HTTP/1.x parser (`HTTPLimits.retainedBodyBytes`).
@Suite struct HTTPBodyRetentionTests {
    typealias Step = HTTP1Script.Step

    static func limits(_ bytes: Int, decode: Bool = true) -> HTTPLimits {
        var limits = HTTPLimits()
        limits.retainedBodyBytes = bytes
        limits.decodeBodies = decode
        return limits
    }

    static let body = ascii(String(repeating: "0123456789abcdef", count: 100))
    static let post = ascii("POST /u HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.count)\r\n\r\n") + body

    @Test func offByDefault() {
        let delegate = HTTP1Script.run([.up(Self.post), .down(HTTP1ContentDecodingTests.response(Self.body, coding: "identity"))])
        #expect(delegate.messages.count == 2)
        #expect(delegate.messages.allSatisfy { $0.retainedBody == nil })
    }

    @Test(arguments: [1, 7, 100, 5000])
    func rawBodyKeptWhateverTheSegmentation(piece: Int) {
        let steps = stride(from: 0, to: Self.post.count, by: piece).map {
            Step.up(Array(Self.post[$0..<min($0 + piece, Self.post.count)]))
        }
        let full = HTTP1Script.run(steps, limits: Self.limits(1 << 16))
        #expect(full.requests.first?.retainedBody == Self.body)
        let cut = HTTP1Script.run(steps, limits: Self.limits(10))
        #expect(cut.requests.first?.retainedBody == Array(Self.body.prefix(10)))
        #expect(cut.requests.first?.bytes.body == Self.body.count)
    }

    @Test func chunkedBodyIsDechunked() {
        let wire = ascii("POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nT: v\r\n\r\n")
        let delegate = HTTP1Script.run([.up(wire)], limits: Self.limits(100))
        #expect(delegate.requests.first?.retainedBody == ascii("hello world"))
    }

    @Test func encodedBodyIsKeptDecoded() {
        let text = HTTP1ContentDecodingTests.text(50_000)
        for chunked in [false, true] {
            let wire = HTTP1ContentDecodingTests.response(Compression.compress(text, .gzip), coding: "gzip", chunked: chunked)
            let full = HTTP1Script.run([.up(ascii(HTTP1ContentDecodingTests.get)), .down(wire)], limits: Self.limits(1 << 16))
            #expect(full.responses.first?.retainedBody == text)
            let cut = HTTP1Script.run([.up(ascii(HTTP1ContentDecodingTests.get)), .down(wire)], limits: Self.limits(1000))
            #expect(cut.responses.first?.retainedBody == Array(text.prefix(1000)))
            let off = HTTP1Script.run([.up(ascii(HTTP1ContentDecodingTests.get)), .down(wire)], limits: Self.limits(1000, decode: false))
            #expect(off.responses.first?.retainedBody == nil)
        }
    }

    @Test func nothingWhenTheBodyCannotBeHadExactly() {
        let get = Step.up(ascii(HTTP1ContentDecodingTests.get))
        let unknown = HTTP1Script.run([get, .down(HTTP1ContentDecodingTests.response([1, 2, 3], coding: "compress"))], limits: Self.limits(100))
        #expect(unknown.responses.first?.retainedBody == nil)
        let corrupt = HTTP1Script.run(
            [get, .down(HTTP1ContentDecodingTests.response([0x1f, 0x8b, 9, 9, 9, 9], coding: "gzip"))], limits: Self.limits(100))
        #expect(corrupt.responses.first?.retainedBody == nil)
        let head = ascii("HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\n")
        let gap = HTTP1Script.run([get, .down(head + ascii("0123")), .gap(.down, 6), .down(ascii("0123456789"))], limits: Self.limits(100))
        #expect(gap.responses.first?.bytes.body == 20)
        #expect(gap.responses.first?.retainedBody == nil)
    }

    @Test func interimResponsesAreNotPartOfTheBody() {
        let wire = ascii("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 4\r\n\r\ndone")
        let delegate = HTTP1Script.run([.up(Self.post), .down(wire)], limits: Self.limits(100))
        #expect(delegate.responses.first?.interimCount == 1)
        #expect(delegate.responses.first?.retainedBody == ascii("done"))
        let empty = HTTP1Script.run([.up(ascii(HTTP1ContentDecodingTests.get)), .down(ascii("HTTP/1.1 204 No Content\r\n\r\n"))],
                                    limits: Self.limits(100))
        #expect(empty.responses.first?.retainedBody == [])
    }
}

import Testing

@testable import WireTally

/// A message's method, target, reason, version and `Content-Encoding` kept as bytes in its allocation
/// (`HTTPMessageTexts`): read as `String`s they are what `String(decoding:as:)` makes of the bytes sent,
/// and read as bytes they are those strings' UTF-8.
@Suite struct HTTPMessageTextsTests {
    /// A target, a reason and a coding with bytes that are not UTF-8 (and one that is, not ASCII), whole
    /// and cut anywhere (the line buffered across packets).
    @Test func textsThatAreNotASCIIReadAsTheirRepairedStrings() {
        let target: [UInt8] = ascii("/caf") + [0xC3, 0xA9] + ascii("/") + [0xFF, 0xFE] + ascii("?q=1")
        let reason: [UInt8] = ascii("F") + [0xE9] + ascii("ine")
        let coding: [UInt8] = ascii("g") + [0xFF] + ascii("zip")
        let up = ascii("GET ") + target + ascii(" HTTP/1.1\r\nHost: a\r\n\r\n")
        let down = ascii("HTTP/1.1 200 ") + reason + ascii("\r\nContent-Encoding: ") + coding + ascii("\r\nContent-Length: 0\r\n\r\n")
        let r = HTTP1Script.expectSameEventsAtEveryCut(up: up, down: down)
        let request = r.requests[0], response = r.responses[0]
        #expect(request.method == "GET" && request.version == "HTTP/1.1")
        #expect(request.target == String(decoding: target, as: UTF8.self))
        request.withTarget { #expect($0.map(Array.init) == Array(request.target!.utf8)) }
        #expect(response.reason == String(decoding: reason, as: UTF8.self) && response.version == "HTTP/1.1")
        #expect(response.contentEncoding == String(decoding: coding, as: UTF8.self))
        #expect(response.method == nil && response.target == nil && request.reason == nil && request.contentEncoding == nil)
        response.withTarget { #expect($0 == nil) }
    }

    /// A status line without a reason has an empty one; after interim responses the final response's
    /// version and reason are the message's.
    @Test func interimResponsesLeaveTheFinalOnesTexts() {
        let down = ascii("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n")
            + ascii("HTTP/1.0 200 Fine\r\nContent-Length: 0\r\n\r\nHTTP/1.1 204\r\n\r\n")
        let r = HTTP1Script.expectSameEventsAtEveryCut(up: ascii("POST /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n"), down: down)
        #expect(r.responses.count == 2)
        #expect(r.responses[0].status == 200 && r.responses[0].version == "HTTP/1.0" && r.responses[0].reason == "Fine")
        #expect(r.responses[0].interimCount == 2)
        #expect(r.responses[1].status == 204 && r.responses[1].reason == "" && r.responses[1].version == "HTTP/1.1")
        #expect(r.requests.map(\.target) == ["/a", "/b"] && r.requests.map(\.method) == ["POST", "GET"])
    }

    /// Start lines and codings longer than the builder's text memory grow it for their message; the
    /// messages after them (the builder reused) read their own texts.
    @Test func longTextsGrowTheBuildersMemoryForTheirMessageOnly() {
        let long = "/" + String(repeating: "x", count: 5000)
        let coding = String(repeating: "gzip, ", count: 100) + "br"
        let requests = ["GET \(long) HTTP/1.1\r\n\r\n", "GET /s HTTP/1.1\r\n\r\n", "OPTIONS \(long.prefix(300)) HTTP/1.0\r\n\r\n"]
        let responses = ["HTTP/1.1 200 OK\r\nContent-Encoding: \(coding)\r\nContent-Length: 0\r\n\r\n",
                         "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n",
                         "HTTP/1.1 200 \(long.dropFirst())\r\nContent-Encoding: br\r\nContent-Length: 0\r\n\r\n"]
        let r = HTTP1Script.run([.up(ascii(requests.joined())), .down(ascii(responses.joined()))])
        #expect(r.requests.map(\.target) == [long, "/s", String(long.prefix(300))])
        #expect(r.requests.map(\.method) == ["GET", "GET", "OPTIONS"] && r.requests.map(\.version) == ["HTTP/1.1", "HTTP/1.1", "HTTP/1.0"])
        #expect(r.responses.map(\.contentEncoding) == [coding, nil, "br"])
        #expect(r.responses.map(\.reason) == ["OK", "Not Found", String(long.dropFirst())])
    }

    /// Texts given as strings (HTTP/2, HTTP/3, tests) read back as given, nil and empty apart; setting
    /// one keeps the others and leaves copies alone.
    @Test func textsSetThroughTheMessageKeepTheOthers() {
        let origin = PacketOrigin(frameNumber: 1, timestamp: Timestamp(nanoseconds: 0))
        let original = HTTPMessage(
            kind: .response, exchangeIndex: 0, streamRange: 0..<0, status: 200, reason: "", version: "HTTP/2",
            headers: [HTTPHeader(name: "a", value: "b")], firstOrigin: origin, lastOrigin: origin,
            contentEncoding: "zstd")
        #expect(original.method == nil && original.target == nil && original.reason == "" && original.version == "HTTP/2")
        #expect(original.contentEncoding == "zstd")
        var changed = original
        changed.target = "/é"
        changed.reason = nil
        changed.contentEncoding = "gzip"
        #expect(changed.target == "/é" && changed.reason == nil && changed.contentEncoding == "gzip")
        #expect(changed.version == "HTTP/2" && changed.method == nil && changed.header("A") == "b")
        changed.withTarget { #expect($0.map(Array.init) == Array("/é".utf8)) }
        #expect(original.target == nil && original.reason == "" && original.contentEncoding == "zstd")
    }
}

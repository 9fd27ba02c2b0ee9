import Testing

@testable import WireTally

/// Header blocks: the fields the parser acts on (framing, upgrades, content codings) are found
/// whatever their case, position, repetition or folding, and fields repeated from the previous
/// message of a direction come out exactly as sent.
@Suite struct HTTP1HeaderBlockTests {
    typealias Step = HTTP1Script.Step

    static let get = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"

    /// The responses to as many GETs, parsed from one stream.
    static func responses(_ stream: String, requests: Int = 1) -> RecordingHTTPDelegate {
        HTTP1Script.run([.up(ascii(String(repeating: get, count: requests))), .down(ascii(stream))])
    }

    /// The requests parsed from one stream.
    static func requests(_ stream: String) -> RecordingHTTPDelegate {
        HTTP1Script.run([.up(ascii(stream))])
    }

    @Test func framingHeadersAreFoundInAnyCaseAndPosition() {
        let r = Self.responses(
            "HTTP/1.1 200 OK\r\nServer: s\r\nCONTENT-LENGTH: 3\r\nX-A: b\r\n\r\nabc"
                + "HTTP/1.1 200 OK\r\ntransfer-encoding: CHUNKED\r\nX-A: b\r\n\r\n2\r\nhi\r\n0\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, Chunked\r\nX-B: c\r\n\r\n0\r\n\r\n",
            requests: 3)
        #expect(r.responses.count == 3)
        #expect(r.responses[0].bytes.body == 3 && r.responses[0].flags == [])
        #expect(r.responses[1].bytes.body == 2 && r.responses[1].flags == [])
        #expect(r.responses[2].bytes.body == 0 && r.responses[2].flags == [])
    }

    @Test func contentLengthListsAndOddValues() {
        func body(_ value: String) -> (Int, HTTPMessageFlags) {
            let r = Self.responses("HTTP/1.1 200 OK\r\nContent-Length: \(value)\r\n\r\n0123456789")
            return (r.responses[0].bytes.body, r.responses[0].flags)
        }
        #expect(body("5, 5").0 == 5 && body("5, 5").1 == [])
        #expect(body("0005").0 == 5)
        #expect(body(" 4 ,\t4").0 == 4)
        // Anything that is not a list of one length: the response runs to the end (close-delimited
        // is not chosen for an invalid length: the message loses sync instead).
        for invalid in ["5, 6", "5,", "+5", "5 5", "0x5", "99999999999999999999", "9223372036854775807"] {
            #expect(body(invalid).1.contains(.malformed), "\(invalid)")
        }
        // Two fields: the same length is fine, different lengths are not.
        let same = Self.responses("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX: y\r\nContent-Length: 2\r\n\r\nok")
        #expect(same.responses[0].bytes.body == 2 && same.responses[0].flags == [])
        let differing = Self.responses("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX: y\r\ncontent-length: 3\r\n\r\nok")
        #expect(differing.responses[0].flags.contains(.malformed))
    }

    @Test func theLastTransferCodingDecides() {
        // Chunked last: chunked, whatever came before (and Content-Length is ignored).
        let chunked = Self.responses(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nContent-Length: 50\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n")
        #expect(chunked.responses[0].bytes.body == 1 && chunked.responses[0].flags == [])
        // Chunked not last: a response runs until the connection closes, a request is malformed.
        let closing = Self.responses("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\nabcdef")
        #expect(closing.responses[0].flags == [.closeDelimited] && closing.responses[0].bytes.body == 6)
        let request = Self.requests("POST / HTTP/1.1\r\nTransfer-Encoding: Chunked , gzip\r\n\r\nabc")
        #expect(request.requests[0].flags.contains(.malformed))
    }

    @Test func aFoldedFramingFieldIsReadWithItsContinuation() {
        // `Content-Length: 1` continued by ` 2` reads `1 2`: not a length.
        let r = Self.requests("POST / HTTP/1.1\r\nContent-Length: 1\r\n 2\r\n\r\nab")
        #expect(r.requests[0].headers == [HTTPHeader(name: "Content-Length", value: "1 2")])
        #expect(r.requests[0].flags.contains(.malformed))
        let folded = Self.responses("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip,\r\n\tchunked\r\n\r\n0\r\n\r\n")
        #expect(folded.responses[0].flags == [] && folded.responses[0].headers[0].value == "gzip, chunked")
    }

    @Test func theFirstContentEncodingIsTheMessagesCoding() {
        let r = Self.responses(
            "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nCONTENT-ENCODING: br\r\nContent-Encoding: gzip\r\n\r\n")
        #expect(r.responses[0].contentEncoding == "br")
        // Fields of an interim response are not the final response's.
        let interim = Self.responses(
            "HTTP/1.1 103 Early Hints\r\nContent-Encoding: gzip\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        #expect(interim.responses[0].contentEncoding == nil)
        #expect(interim.responses[0].headers == [HTTPHeader(name: "Content-Length", value: "2")])
        #expect(interim.responses[0].bytes.body == 2 && interim.responses[0].interimCount == 1)
    }

    @Test func anUpgradeFieldInAnyCaseHoldsTheClientDirection() {
        let request = "GET /chat HTTP/1.1\r\nHost: x\r\nupgrade: websocket\r\n\r\n"
        let r = HTTP1Script.run([
            .up(ascii(request) + [0x81, 0x00]), .down(ascii("HTTP/1.1 101 Switching Protocols\r\n\r\n")),
        ])
        #expect(r.events.contains(.upgraded(.up, Int64(request.utf8.count), 0)))
    }

    /// Fields repeated from the previous message (same bytes at the same position) and fields that
    /// differ from it by case, length or a single byte all come out as sent.
    @Test func repeatedFieldsComeOutAsSent() {
        let blocks = [
            "Host: example.com\r\nUser-Agent: a fairly long user agent string\r\nAccept: */*\r\n",
            "Host: example.com\r\nUser-Agent: a fairly long user agent string\r\nAccept: */*\r\n",
            "host: example.com\r\nUser-Agent: a fairly long user agent strinG\r\nAccept: */*\r\nX-New: 1\r\n",
            "Host: example.org\r\nUser-Agent: a fairly long user agent string!\r\n",
            "Host: \r\nUser-Agent:\r\nAccept: */*\r\nX-New: 1\r\nX-More: 2\r\n",
            "Host: example.com\r\nUser-Agent: a fairly long user agent string\r\nAccept: */*\r\n",
        ]
        let stream = blocks.map { "GET / HTTP/1.1\r\n\($0)\r\n" }.joined()
        let r = Self.requests(stream)
        #expect(r.requests.count == blocks.count)
        for (request, block) in zip(r.requests, blocks) {
            let alone = Self.requests("GET / HTTP/1.1\r\n\(block)\r\n").requests[0]
            #expect(request.headers == alone.headers)
        }
        #expect(r.requests[2].headers[0] == HTTPHeader(name: "host", value: "example.com"))
        #expect(r.requests[4].headers[0] == HTTPHeader(name: "Host", value: "") && r.requests[4].headers.count == 5)
    }

    /// A header line cut anywhere across two deliveries — inside the name, at the colon, in the
    /// whitespace, between CR and LF — gives the same events; so do a CR without LF inside a value,
    /// a folded line and a header block ending in bare LFs.
    @Test func headerLinesSplitAnywhere() {
        let up = ascii(
            "POST /p HTTP/1.1\r\nHost: h\r\nX-Cr: a\rb\r\nContent-Length:  3 \r\nX-Fold: one\r\n\t two\r\n\r\nabc"
                + "GET /q HTTP/1.1\nHost: h\nX-Cr: a\rb\nUpgrade-Not: x\n\n")
        let down = ascii(
            "HTTP/1.1 200 OK\r\nContent-Encoding: identity\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nxyz\r\n0\r\nT: 1\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Cr: \r\r\n\r\nok")
        let reference = HTTP1Script.expectSameEventsAtEveryCut(up: up, down: down)
        #expect(reference.requests.count == 2 && reference.responses.count == 2)
        #expect(reference.requests[0].headers[1] == HTTPHeader(name: "X-Cr", value: "a\rb"))
        #expect(reference.requests[0].headers[3] == HTTPHeader(name: "X-Fold", value: "one two"))
        #expect(reference.requests[0].bytes.body == 3 && reference.requests[1].flags == [])
        #expect(reference.responses[0].bytes.body == 3 && reference.responses[0].contentEncoding == "identity")
        #expect(reference.responses[1].headers[1] == HTTPHeader(name: "X-Cr", value: "\r"))
        #expect(reference.responses[1].bytes.body == 2)
    }

    /// Start lines taken in runs (versions, status codes) and read as common literals (methods,
    /// versions, reason phrases) or not, notable headers in odd case, bare LFs and a folded line, cut
    /// at every byte: the same events, and the fields as sent.
    @Test func startLinesAndOddCaseNotableHeadersSplitAnywhere() {
        let up = ascii(
            "POST /upload/events HTTP/1.1\r\ncOnTeNt-LeNgTh: 2\r\n\r\nhi"
                + "GET /a HTTP/1.0\nHost: h\nX-F: a\n b\n\n" + "PURGE /c HTTP/1.1\r\nHost: h\r\n\r\n")
        let down = ascii(
            "HTTP/1.1 201 Created\r\ntRaNsFeR-eNcOdInG: cHuNkEd\r\n\r\n1\r\nx\r\n0\r\n\r\n"
                + "HTTP/1.0 304 Not Modified\nETag: \"e\"\n\n" + "HTTP/1.1 200 Fine Thanks\r\nCONTENT-ENCODING: gzip\r\nContent-Length: 0\r\n\r\n")
        let r = HTTP1Script.expectSameEventsAtEveryCut(up: up, down: down)
        #expect(r.requests.map { $0.method } == ["POST", "GET", "PURGE"])
        #expect(r.requests.map { $0.version } == ["HTTP/1.1", "HTTP/1.0", "HTTP/1.1"])
        #expect(r.requests[0].bytes.body == 2 && r.requests[1].headers[1] == HTTPHeader(name: "X-F", value: "a b"))
        #expect(r.responses.map { $0.reason } == ["Created", "Not Modified", "Fine Thanks"])
        #expect(r.responses.map { $0.status } == [201, 304, 200])
        #expect(r.responses[0].bytes.body == 1 && r.responses[0].flags == [])
        #expect(r.responses[2].contentEncoding == "gzip" && r.responses[2].flags == [])
    }

    /// A header block of thousands of fields (under the cap) keeps every field in order.
    @Test func hugeHeaderCountsKeepEveryField() {
        let count = 4000
        let block = (0..<count).map { "X-\($0): \($0 % 10 == 0 ? "" : "v\($0)")\r\n" }.joined()
        let r = Self.requests("GET / HTTP/1.1\r\n\(block)\r\nGET /next HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(r.requests.count == 2 && r.requests[0].headers.count == count)
        #expect(r.requests[0].headers[3999] == HTTPHeader(name: "X-3999", value: "v3999"))
        #expect(r.requests[0].headers[10] == HTTPHeader(name: "X-10", value: ""))
        #expect(r.requests[1].headers == [HTTPHeader(name: "Host", value: "h")] && r.requests[1].target == "/next")
    }

    /// The notable fields are recognised a word at a time: exactly the names `HTTP1Syntax.bytesEqual`
    /// takes for them — every byte of each name replaced by each of the 256 values, and the names in
    /// every case pattern of their first eight letters.
    @Test func notableNamesAreRecognisedExactlyAsByteWise() {
        let notable: [(StaticString, NotableHeader)] = [
            ("transfer-encoding", .transferEncoding), ("content-length", .contentLength), ("upgrade", .upgrade),
            ("content-encoding", .contentEncoding),
        ]
        func reference(_ name: [UInt8]) -> NotableHeader? {
            name.withUnsafeBytes { raw in notable.first { HTTP1Syntax.bytesEqual(raw, $0.0) }?.1 }
        }
        func check(_ name: [UInt8]) {
            let found = name.withUnsafeBytes { NotableHeader(name: $0) }
            #expect(found == reference(name), "\(name)")
        }
        for (literal, _) in notable {
            let name = Array(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
            for position in name.indices {
                for byte in 0...255 {
                    var changed = name
                    changed[position] = UInt8(byte)
                    check(changed)
                }
            }
            for pattern in 0..<256 {
                check(name.enumerated().map { index, byte in
                    index < 8 && pattern & (1 << index) != 0 && byte != UInt8(ascii: "-") ? byte - 32 : byte
                })
            }
            check(Array(name.dropLast()))
            check(name + [UInt8(ascii: "s")])
        }
    }
}

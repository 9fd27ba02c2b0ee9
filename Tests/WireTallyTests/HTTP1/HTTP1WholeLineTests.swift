import Testing

@testable import WireTally

/// Start lines and header lines that lie whole in one delivery are read straight from it (the parser's
/// common case); cut across deliveries they go byte by byte through the line buffer. Both give the
/// same events, at the header cap, on the open-request cap and for start lines that are rejected,
/// preceded by empty lines or found again after garbage.
@Suite struct HTTP1WholeLineTests {
    /// A request whose start line and header block take exactly `size` bytes.
    static func request(_ path: String, size: Int) -> String {
        let head = "GET \(path) HTTP/1.1\r\nHost: h\r\nX-Pad: "
        return head + String(repeating: "p", count: size - head.utf8.count - 4) + "\r\n\r\n"
    }

    @Test func headerBlocksAtTheCapSplitAnywhere() {
        var limits = HTTPLimits()
        limits.maxHeaderBytes = 60
        let up = ascii(Self.request("/a", size: 60) + Self.request("/b", size: 61))
        let down = ascii("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Pad: ppppppppppppp\r\n\r\nok")
        #expect(down.count == 62)
        let r = HTTP1Script.expectSameEventsAtEveryCut(up: up, down: down, limits: limits)
        #expect(r.requests.count == 2 && r.requests[0].flags == [] && r.requests[0].bytes.startLine + r.requests[0].bytes.headers == 60)
        #expect(r.requests[1].flags == [.headersTooLarge, .incomplete])
        #expect(r.responses.count == 1 && r.responses[0].flags == [] && r.responses[0].bytes.body == 2)
        // The second block's empty line is the byte over the cap: its message ends before it.
        #expect(r.events.contains(.unparsed(.up, 119)))
    }

    /// The room under the header cap is read once per delivery and the lines' bytes counted for all of
    /// a delivery's lines at once: a block cut into three deliveries anywhere (the cap met exactly, and
    /// missed by the empty line's last byte, after a start line and lines in earlier deliveries) gives
    /// the events of the block whole.
    @Test func headerBlocksAtTheCapInThreeDeliveries() {
        var limits = HTTPLimits()
        limits.maxHeaderBytes = 60
        for (size, tooLarge) in [(60, false), (61, true)] {
            let up = ascii(Self.request("/a", size: size))
            let reference = HTTP1Script.run([.up(up)], limits: limits)
            #expect(reference.requests.count == 1 && reference.requests[0].flags.contains(.headersTooLarge) == tooLarge)
            for first in 1..<up.count {
                for second in (first + 1)..<up.count {
                    let r = HTTP1Script.run(HTTP1Script.pieces(up, cuts: [first, second]).map { .up($0) }, limits: limits)
                    #expect(r.events == reference.events, "size \(size), cut at \(first) and \(second)")
                }
            }
        }
    }

    @Test func startLinesRejectedOrFoundAgainSplitAnywhere() {
        let up = ascii(
            "\r\n\r\nGET /a HTTP/1.1\r\n\r\n" + "GET /b HTTP/2.0\r\nHost: h\r\n\r\n" + "GET /c HTTP/1.\r\n\r\n"
                + "GET  /d HTTP/1.1\r\n\r\n" + "\r\n" + "POST /e HTTP/1.1\r\nContent-Length: 1\r\n\r\nx"
                + "get /f HTTP/1.1\r\n\r\n" + "M-SEARCH * HTTP/1.1\r\n\r\n")
        let down = ascii(
            "HTTP/1.1 204\r\n\r\n" + "HTTP/1.1 200 \r\nContent-Length: 0\r\n\r\n" + "HTTP/1.1 2x0 OK\r\n\r\n"
                + "HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n")
        let r = HTTP1Script.expectSameEventsAtEveryCut(up: up, down: down)
        // Rejected in sync, a request is announced at its first byte and ends malformed (no target);
        // the next start line after it is found again.
        #expect(r.requests.map(\.target) == ["/a", nil, "/c", nil, "/e", "/f", "*"])
        #expect(r.requests[0].bytes.startLine == 21 && r.requests[1].flags == [.malformed, .incomplete])
        #expect(r.requests[2].flags == [.resynchronized] && r.requests[2].version == "HTTP/1.")
        #expect(r.requests[3].flags == [.malformed, .incomplete] && r.requests[4].flags == [.resynchronized])
        #expect(r.requests[5].method == "get" && r.requests[6].method == "M-SEARCH")
        #expect(r.responses.map(\.status) == [204, 200, nil, 404])
        #expect(r.responses[1].reason == "" && r.responses[2].flags == [.malformed, .incomplete])
        #expect(r.responses[3].flags == [.resynchronized] && r.responses[3].reason == "Not Found")
    }

    @Test func garbageAndTheOpenRequestCapSplitAnywhere() {
        let tls = [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03] as [UInt8]
        let unparsed = HTTP1Script.expectSameEventsAtEveryCut(up: tls, down: [])
        #expect(unparsed.events == [.unparsed(.up, 0)])
        var limits = HTTPLimits()
        limits.maxOpenRequests = 2
        let up = ascii("GET /1 HTTP/1.1\r\n\r\n" + "GET /2 HTTP/1.1\r\n\r\n" + "GET /3 HTTP/1.1\r\n\r\n")
        let r = HTTP1Script.expectSameEventsAtEveryCut(up: up, down: [], limits: limits)
        #expect(r.requests.map(\.target) == ["/1", "/2"] && r.events.last == .unparsed(.up, 38))
    }
}

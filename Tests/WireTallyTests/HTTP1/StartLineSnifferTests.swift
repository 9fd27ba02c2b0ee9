import Testing

@testable import WireTally

/// The start-line check takes the plain bytes of a target or reason phrase in one run: its verdict,
/// the bytes it took and its counts must be those of feeding the same bytes one at a time.
@Suite struct StartLineSnifferTests {
    /// Verdict and bytes fed for `line` fed whole (after its first byte, as the parser does) and one
    /// byte at a time, with the length cap `maxLength`.
    static func verdicts(_ line: [UInt8], isResponse: Bool, strict: Bool = false, maxLength: Int = 64)
        -> (whole: (Int, StartLineSniffer.Verdict, Int), byteWise: (Int, StartLineSniffer.Verdict, Int))
    {
        var whole = StartLineSniffer(isResponse: isResponse, strict: strict, maxLength: maxLength)
        var verdict = whole.feed(line[0])
        var fed = 1
        if verdict == .needMore, line.count > 1 {
            let rest = line[1...].withUnsafeBufferPointer { whole.feed($0) }
            fed += rest.fed
            verdict = rest.verdict
        }
        var single = StartLineSniffer(isResponse: isResponse, strict: strict, maxLength: maxLength)
        var singleFed = 0
        var singleVerdict = StartLineSniffer.Verdict.needMore
        for byte in line where singleVerdict == .needMore {
            singleVerdict = single.feed(byte)
            singleFed += 1
        }
        return ((fed, verdict, whole.total), (singleFed, singleVerdict, single.total))
    }

    @Test func runsGiveTheVerdictsOfSingleBytes() {
        let requests: [String] = [
            "GET /api/v1/items?id=1&x=%20 HTTP/1.1\r\n", "GET / HTTP/1.1\n", "GET /a\u{7f}b HTTP/1.1\r\n",
            "GET /a\tb HTTP/1.1\r\n", "GET /a\u{1}b HTTP/1.1\r\n", "GET  / HTTP/1.1\r\n", "GET /a HTTP/1.\r\n",
            "GET /é HTTP/1.1\r\n", "GET /a", "GET /" + String(repeating: "x", count: 100) + " HTTP/1.1\r\n",
        ]
        let responses: [String] = [
            "HTTP/1.1 200 OK\r\n", "HTTP/1.1 304 Not Modified\r\n", "HTTP/1.1 200 A\tB\u{7f}\r\n",
            "HTTP/1.1 200 A\u{1}B\r\n", "HTTP/1.1 200\r\n", "HTTP/1.1 200 \r\n", "HTTP/1.1 200 Reason\r\r\n",
            "HTTP/1.1 404 " + String(repeating: "y", count: 100) + "\r\n", "HTTP/1.1 200 Partial",
        ]
        for (lines, isResponse) in [(requests, false), (responses, true)] {
            for line in lines {
                let bytes = Array(line.utf8)
                for maxLength in [8, 20, 40, 64, 1000] {
                    let result = Self.verdicts(bytes, isResponse: isResponse, maxLength: maxLength)
                    #expect(result.whole == result.byteWise, "\(line.debugDescription) max \(maxLength)")
                }
            }
        }
        // The cases the runs must get right, checked outright.
        #expect(Self.verdicts(Array("GET /a HTTP/1.1\r\n".utf8), isResponse: false).whole.1 == .accepted)
        #expect(Self.verdicts(Array("GET /a\u{7f} HTTP/1.1\r\n".utf8), isResponse: false).whole.1 == .rejected)
        #expect(Self.verdicts(Array("HTTP/1.1 200 O\tK\u{7f}\r\n".utf8), isResponse: true).whole.1 == .accepted)
        #expect(Self.verdicts(Array("HTTP/1.1 200 O\u{1}K\r\n".utf8), isResponse: true).whole.1 == .rejected)
        let long = Self.verdicts(Array(("GET /" + String(repeating: "x", count: 100) + " HTTP/1.1\r\n").utf8), isResponse: false)
        #expect(long.whole.1 == .rejected && long.whole.0 == 65)
    }

    /// A request's version with its CRLF and a response's version and status code are taken at once
    /// when all there and well-formed: the verdict, the bytes taken and the count are those of single
    /// bytes at every length cap, with the rest of the line cut anywhere, and for versions, status codes
    /// and line ends that are not (HTTP/2.0, HTTP/1.x, bare LF, a lone CR, four digits).
    @Test func versionRunsGiveTheVerdictsOfSingleBytes() {
        let requests = [
            "GET / HTTP/1.1\r\n", "GET / HTTP/1.0\r\n", "GET / HTTP/1.1\n", "GET / HTTP/1.1\r\r\n", "GET / HTTP/1.1\rx",
            "GET / HTTP/2.0\r\n", "GET / HTTP/1.x\r\n", "GET / HTTP/1.\r\n", "GET / HTTP/1.1 \r\n", "GET / http/1.1\r\n",
            "GET / HTTP/1.1\r\nHost: x\r\n",
        ]
        let responses = [
            "HTTP/1.1 200 OK\r\n", "HTTP/1.0 304 Not Modified\r\n", "HTTP/1.1 200\r\n", "HTTP/1.1 200\n", "HTTP/1.1 2000 OK\r\n",
            "HTTP/1.1 20x OK\r\n", "HTTP/2.0 200 OK\r\n", "HTTP/1.1  200 OK\r\n", "HTTP/1.1 200 OK", "HTTP/1.1 201 Created\r\nX: y",
            "HTTX/1.1 200 OK\r\n",
        ]
        for (lines, isResponse) in [(requests, false), (responses, true)] {
            for line in lines {
                let bytes = Array(line.utf8)
                for maxLength in 1...(bytes.count + 2) {
                    let result = Self.verdicts(bytes, isResponse: isResponse, maxLength: maxLength)
                    #expect(result.whole == result.byteWise, "\(line.debugDescription) max \(maxLength)")
                    // The rest after the first byte in two pieces, cut anywhere.
                    for cut in 2..<max(2, bytes.count) {
                        var sniffer = StartLineSniffer(isResponse: isResponse, strict: false, maxLength: maxLength)
                        var verdict = sniffer.feed(bytes[0])
                        var fed = 1
                        for piece in [bytes[1..<cut], bytes[cut...]] where verdict == .needMore && !piece.isEmpty {
                            let step = Array(piece).withUnsafeBufferPointer { sniffer.feed($0) }
                            fed += step.fed
                            verdict = step.verdict
                        }
                        #expect((fed, verdict, sniffer.total) == result.byteWise, "\(line.debugDescription) max \(maxLength) cut \(cut)")
                    }
                }
            }
        }
    }

    /// `HTTP1Syntax.wholeStartLine` takes a line only when the sniffer, fed it byte by byte from its
    /// reset state, accepts it with the same length, and its request tokens end at the line's first and
    /// last space: the usual lines, each byte of them replaced by every value, cut at every length and
    /// under every length cap, strict or not; and it does take the usual lines.
    @Test func wholeLinesAreTakenOnlyAsTheSnifferAcceptsThem() {
        let requests = [
            "GET /api/v1/items?id=1&x=%20 HTTP/1.1\r\n", "M-SEARCH * HTTP/1.0\n", "get /é HTTP/1.1\r\n",
            String(repeating: "A", count: 32) + " / HTTP/1.1\r\n",
        ]
        let responses = ["HTTP/1.1 200 OK\r\n", "HTTP/1.1 204\r\n", "HTTP/1.0 304 Not\tModified\n", "HTTP/1.1 200 \r\n"]
        /// Whether `wholeStartLine` took `line` (followed by other bytes), after checking it against the sniffer.
        @discardableResult
        func check(_ line: [UInt8], isResponse: Bool, strict: Bool, maxLength: Int = 1000) -> Bool {
            let bytes = line + Array("Host: x\r\n".utf8)
            let whole = bytes.withUnsafeBufferPointer {
                HTTP1Syntax.wholeStartLine($0.baseAddress!, line.count, isResponse: isResponse, strict: strict, maxLength: maxLength)
            }
            guard let whole else { return false }
            let (fed, verdict, _) = Self.verdicts(bytes, isResponse: isResponse, strict: strict, maxLength: maxLength).byteWise
            #expect(verdict == .accepted && fed == whole.length, "\(line)")
            if !isResponse {
                let content = Array(line[..<whole.length]).filter { $0 != 0x0d && $0 != 0x0a }
                #expect(whole.methodEnd == content.firstIndex(of: 0x20) && whole.targetEnd == content.lastIndex(of: 0x20), "\(line)")
            }
            return true
        }
        for (lines, isResponse) in [(requests, false), (responses, true)] {
            for line in lines.map({ Array($0.utf8) }) {
                for strict in [false, true] {
                    #expect(check(line, isResponse: isResponse, strict: strict) == !(strict && line[0] == UInt8(ascii: "g")))
                    for position in line.indices {
                        for value in 0...255 {
                            var changed = line
                            changed[position] = UInt8(value)
                            check(changed, isResponse: isResponse, strict: strict)
                        }
                    }
                    for cut in 1..<line.count { check(Array(line[..<cut]), isResponse: isResponse, strict: strict) }
                    for cap in 1...line.count + 1 {
                        #expect(check(line, isResponse: isResponse, strict: strict, maxLength: cap) == (cap >= line.count && check(line, isResponse: isResponse, strict: strict)))
                    }
                }
            }
        }
    }
}

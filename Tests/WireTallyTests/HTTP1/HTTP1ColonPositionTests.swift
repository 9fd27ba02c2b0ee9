import Testing

@testable import WireTally

/// Header lines with the colon at every position of a line's first words (any change to how the
/// colon and the line end are found must keep these), parsed the same when cut at every byte.
@Suite struct HTTP1ColonPositionTests {
    /// Names of 1 to 17 bytes (the colon at every position of the first words of a line), with and
    /// without whitespace before the colon, a line without a colon (malformed), a CR in a value and a
    /// folded line, bare LF and CRLF: the same events at every cut, and each field as sent.
    @Test func headerLinesWithTheColonAnywhereSplitAnywhere() {
        let names = (1...17).map { String(repeating: "n", count: $0) }
        var request = "GET /c HTTP/1.1\r\n"
        for (index, name) in names.enumerated() {
            request += index % 3 == 0 ? "\(name) :\(index)\r\n" : "\(name):  v\(index) \(index % 2 == 0 ? "\r\n" : "\n")"
        }
        request += "X-Cr: a\rb\r\nX-Fold: one\r\n two\r\n\r\n"
        let response = "HTTP/1.1 200 OK\r\nno-colon-on-this-line\r\nContent-Length: 0\r\n\r\n"
        let reference = HTTP1Script.expectSameEventsAtEveryCut(up: ascii(request), down: ascii(response))
        #expect(reference.requests.count == 1 && reference.responses.count == 1)
        let headers = reference.requests[0].headers
        #expect(headers.count == names.count + 2)
        for (index, name) in names.enumerated() {
            let value = index % 3 == 0 ? "\(index)" : "v\(index)"
            #expect(headers[index] == HTTPHeader(name: name, value: value))
        }
        #expect(headers[names.count] == HTTPHeader(name: "X-Cr", value: "a\rb"))
        #expect(headers[names.count + 1] == HTTPHeader(name: "X-Fold", value: "one two"))
        #expect(reference.responses[0].flags.contains(.malformed))
    }
}

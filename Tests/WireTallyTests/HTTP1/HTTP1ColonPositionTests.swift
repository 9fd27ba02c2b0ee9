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

    /// Lines of every length around a scan's word widths (8, 16, 32 bytes): names of 1 to 40 bytes with
    /// values of 0 to 22, so the colon and the LF fall at every position of the first three 16-byte
    /// words, in the same word and in different ones, with a colon in the value too; lines with
    /// no colon of 14 to 18 bytes followed by a line whose colon lies in the same word; a colon as the
    /// first byte and as the last before the CR. Each field is what splitting the line at its first colon
    /// gives, and the events are the same cut at every byte (lines near a delivery's end, lines cut by it
    /// and buffered).
    @Test func linesOfEveryLengthAroundTheScansWords() {
        var request = "GET /w HTTP/1.1\r\n"
        var expected: [HTTPHeader] = []
        for length in 1...40 {
            let name = String(repeating: "n", count: length)
            let value = String(repeating: "v", count: (length * 7) % 23) + (length % 4 == 0 ? ":x" : "")
            request += "\(name): \(value)" + (length % 5 == 0 ? "\n" : "\r\n")
            expected.append(HTTPHeader(name: name, value: value))
        }
        request += "Z:\r\n\r\n"
        expected.append(HTTPHeader(name: "Z", value: ""))
        var malformed = "GET /m HTTP/1.1\r\n"
        for length in 14...18 {
            malformed += String(repeating: "c", count: length) + "\r\nk:v\r\n"
        }
        malformed += ":first\r\n\r\n"
        let response = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
        let reference = HTTP1Script.expectSameEventsAtEveryCut(up: ascii(request + malformed), down: ascii(response))
        #expect(reference.requests.count == 2 && reference.responses.count == 2)
        #expect(reference.requests[0].headers == expected && reference.requests[0].flags == [])
        #expect(reference.requests[1].headers == Array(repeating: HTTPHeader(name: "k", value: "v"), count: 5))
        #expect(reference.requests[1].flags == [.malformed])
    }
}

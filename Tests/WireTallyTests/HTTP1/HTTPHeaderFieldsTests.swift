import Testing

@testable import WireTally

/// `HTTPHeaderFields` keeps header fields as bytes: read back as strings they are what decoding each
/// name and value on its own gives (invalid UTF-8 repaired the same way), folded values included, and
/// names are matched ASCII case-insensitively on the bytes.
@Suite struct HTTPHeaderFieldsTests {
    static func fields(_ pairs: [([UInt8], [UInt8])]) -> HTTPHeaderFields {
        var fields = HTTPHeaderFields()
        for (name, value) in pairs {
            name.withUnsafeBytes { name in value.withUnsafeBytes { fields.append(name: name, value: $0) } }
        }
        return fields
    }

    static func decoded(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func fieldsReadBackAsEachNameAndValueDecodedAlone() {
        let pairs: [([UInt8], [UInt8])] = [
            (Array("Host".utf8), Array("example.org".utf8)),
            (Array("X-Empty".utf8), []),
            // A value cut inside a UTF-8 sequence, one with a stray continuation byte, a name with a byte
            // that is no UTF-8 at all: each repaired on its own, nothing runs into the next field.
            (Array("X-Cut".utf8), [0x61, 0xe2, 0x82]),
            (Array("X-Stray".utf8), [0x80, 0x62]),
            ([0x58, 0xff], Array("é".utf8)),
        ]
        let fields = Self.fields(pairs)
        #expect(fields.count == pairs.count)
        #expect(Array(fields) == pairs.map { HTTPHeader(name: Self.decoded($0.0), value: Self.decoded($0.1)) })
        #expect(fields.byteCount == pairs.reduce(0) { $0 + $1.0.count + $1.1.count })
        #expect(fields[2].value == "a\u{FFFD}" && fields[3].value == "\u{FFFD}b")
    }

    /// Obsolete line folding: the value continued with a space and the next line's text reads as the
    /// value and the continuation decoded apart and joined by a space (as when both were strings).
    @Test func aContinuedValueReadsAsItsPiecesJoinedByASpace() {
        for (value, more) in [("one", "two"), ("cut \u{FFFD}", "x"), ("", "only")] as [(String, String)] {
            for valueBytes in [Array(value.utf8), Array(value.utf8.dropLast()) + [0xe2, 0x82]] {
                var fields = Self.fields([(Array("X-Fold".utf8), valueBytes)])
                Array(more.utf8).withUnsafeBytes { fields.continueLastValue($0) }
                #expect(fields[0].value == Self.decoded(valueBytes) + " " + more)
                #expect(fields.count == 1 && fields[0].name == "X-Fold")
            }
        }
        var none = HTTPHeaderFields()
        Array("x".utf8).withUnsafeBytes { none.continueLastValue($0) }
        #expect(none.isEmpty && none.byteCount == 0)
    }

    @Test func namesMatchIgnoringASCIICaseOnly() {
        let fields: HTTPHeaderFields = [
            HTTPHeader(name: "Content-Length", value: "3"), HTTPHeader(name: "a[b", value: "1"),
            HTTPHeader(name: "A{B", value: "2"), HTTPHeader(name: "content-length", value: "4"),
        ]
        #expect(fields.value(named: "CONTENT-LENGTH") == "3")
        #expect(fields.value(named: "A{b") == "2" && fields.value(named: "a[B") == "1")
        #expect(fields.value(named: "Content-Lengt") == nil && fields.value(named: "") == nil)
        #expect(fields.nameEquals(at: 0, "content-length") && fields.nameEquals(at: 3, "content-length"))
        #expect(!fields.nameEquals(at: 1, "a{b"))
    }

    @Test func removingAllLeavesNoFieldsAndTakesNewOnes() {
        var fields: HTTPHeaderFields = [HTTPHeader(name: "Link", value: "</a>"), HTTPHeader(name: "X", value: "y")]
        fields.removeAll()
        #expect(fields.isEmpty && fields.byteCount == 0 && fields.value(named: "Link") == nil)
        Array("Content-Length".utf8).withUnsafeBytes { name in Array("2".utf8).withUnsafeBytes { fields.append(name: name, value: $0) } }
        #expect(Array(fields) == [HTTPHeader(name: "Content-Length", value: "2")])
    }

    /// The parser stores what it read: header bytes that are not UTF-8 come out as `String(decoding:)`
    /// of each name and value, and the message's `Host` is read from them.
    @Test func theParserKeepsEachFieldsBytes() {
        let up: [UInt8] = Array("GET / HTTP/1.1\r\nHost: h\u{e9}.example\r\nX-Bin: ".utf8) + [0xc3, 0x28, 0xff]
            + Array("\r\nX-Fold: a\r\n  b  \r\n\r\n".utf8)
        let r = HTTP1Script.run([.up(up)])
        let request = r.requests[0]
        #expect(request.header("host") == "h\u{e9}.example")
        #expect(request.headers == [
            HTTPHeader(name: "Host", value: "h\u{e9}.example"),
            HTTPHeader(name: "X-Bin", value: Self.decoded([0xc3, 0x28, 0xff])),
            HTTPHeader(name: "X-Fold", value: "a b"),
        ])
    }

    /// The fields live in one storage that grows as they come (names and values from its start, where
    /// each ends from its end): thousands of fields, empty names and values, starting empty or from a
    /// message's fields (in the message's allocation, with the message alive or gone), and a copy
    /// changed on its own all read back as appended.
    @Test func manyFieldsAndCopiesReadBackAsAppended() {
        let first = HTTPHeader(name: "First", value: "1")
        for start in ["empty", "a message's", "a message's, the message gone"] {
            let origin = HTTP1Script.origin(1)
            var message: HTTPMessage? = start == "empty" ? nil : HTTPMessage(
                kind: .request, exchangeIndex: 0, streamRange: 0..<1, version: "HTTP/1.1", headers: [first],
                firstOrigin: origin, lastOrigin: origin)
            var fields = message?.headerFields ?? HTTPHeaderFields()
            if start.hasSuffix("gone") { message = nil }
            defer { #expect(message.map { $0.headers == [first] } ?? true, "\(start)") }
            var expected: [HTTPHeader] = start == "empty" ? [] : [first]
            for index in 0..<3000 {
                let header = HTTPHeader(name: index % 7 == 0 ? "" : "X-\(index)", value: index % 5 == 0 ? "" : String(repeating: "v", count: index % 40))
                expected.append(header)
                var name = header.name, value = header.value
                name.withUTF8 { name in value.withUTF8 { fields.append(name: UnsafeRawBufferPointer(name), value: UnsafeRawBufferPointer($0)) } }
                if index == 999 {
                    // A copy taken here keeps its fields while the original grows, and the other way round.
                    var copy = fields
                    Array("more".utf8).withUnsafeBytes { copy.continueLastValue($0) }
                    #expect(copy.count == expected.count && copy.last?.value == expected.last!.value + " more")
                    #expect(fields.last == expected.last)
                }
            }
            #expect(Array(fields) == expected, "\(start)")
            #expect(fields.byteCount == expected.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count })
            #expect(fields.value(named: "x-2999") == expected.last!.value && fields.nameEquals(at: expected.count - 2999, "x-1"))
            let shared = fields
            fields.removeAll()
            #expect(fields.isEmpty && Array(shared) == expected)
        }
    }

    /// A header block's fields are appended with the storage's uniqueness checked once for the block
    /// (`makeStorageOwn`, then `appendToOwnStorage` checking only the room): starting with no storage,
    /// with a storage another copy shares (that copy keeps its fields) and with a message's fields, and
    /// growing past the first storage many times, they read back as `append` gives them.
    @Test func fieldsAppendedToOwnStorageReadBackAsAppended() {
        let first = HTTPHeader(name: "First", value: "1")
        let origin = HTTP1Script.origin(1)
        let message = HTTPMessage(kind: .request, exchangeIndex: 0, streamRange: 0..<1, version: "HTTP/1.1", headers: [first],
                                  firstOrigin: origin, lastOrigin: origin)
        for start in ["no storage", "shared", "a message's"] {
            var fields = start == "no storage" ? HTTPHeaderFields() : start == "shared" ? [first] : message.headerFields
            let copy = fields
            var reference = fields
            fields.makeStorageOwn()
            for index in 0..<500 {
                let name = Array("X-\(index)".utf8), value = Array(repeating: UInt8(ascii: "v"), count: index % 70)
                name.withUnsafeBytes { name in
                    value.withUnsafeBytes { fields.appendToOwnStorage(name: name, value: $0); reference.append(name: name, value: $0) }
                }
            }
            #expect(Array(fields) == Array(reference) && fields.count == 500 + copy.count, "\(start)")
            #expect(fields.byteCount == reference.byteCount, "\(start)")
            #expect(Array(copy) == (start == "no storage" ? [] : [first]) && message.headers == [first], "\(start)")
        }
    }
}

import Testing

@testable import WireTally

/// `HTTPMessage` keeps its fields in one box shared by copies: a copy behaves as an independent value.
@Suite struct HTTPMessageTests {
    static func message() -> HTTPMessage {
        let origin = PacketOrigin(frameNumber: 1, timestamp: Timestamp(nanoseconds: 0))
        return HTTPMessage(
            kind: .request, exchangeIndex: 0, streamRange: 0..<40, method: "GET", target: "/a", version: "HTTP/1.1",
            headers: [HTTPHeader(name: "Host", value: "example.org"), HTTPHeader(name: "X-Kelvin", value: "k")],
            bytes: HTTPByteCounts(startLine: 17, headers: 23), firstOrigin: origin, lastOrigin: origin)
    }

    @Test func changingACopyLeavesTheOriginal() {
        let original = Self.message()
        var copy = original
        copy.flags.insert(.gap)
        copy.bytes.body += 5
        copy.headers.append(HTTPHeader(name: "Accept", value: "*/*"))
        copy.target = "/b"
        copy.reencoded = (10, 4)
        #expect(original.flags == [] && original.bytes.body == 0 && original.headers.count == 2)
        #expect(original.target == "/a" && original.reencoded == nil)
        #expect(copy.flags == [.gap] && copy.bytes.body == 5 && copy.headers.count == 3 && copy.target == "/b")
        #expect(copy.reencoded?.encodedSize == 4)
        // A change to the only copy stays in it.
        var only = Self.message()
        only.status = 200
        only.status! += 1
        #expect(only.status == 201)
    }

    /// The header fields lie in the message's own allocation: changed in place through a copy or the
    /// only message, or read after the message is gone, they behave as a value of their own.
    @Test func headerFieldsInTheMessagesAllocationBehaveAsAValue() {
        let original = Self.message()
        var copy = original
        Array("X-New".utf8).withUnsafeBytes { name in Array("1".utf8).withUnsafeBytes { copy.headerFields.append(name: name, value: $0) } }
        #expect(original.headers.count == 2 && copy.headers.count == 3 && copy.header("x-new") == "1")
        var only = Self.message()
        only.headerFields.removeAll()
        #expect(only.headers.isEmpty && only.header("Host") == nil)
        // Taken from a message that then goes, and changed: the fields read as the message had them.
        var kept = Self.message().headerFields
        #expect(Array(kept) == [HTTPHeader(name: "Host", value: "example.org"), HTTPHeader(name: "X-Kelvin", value: "k")])
        Array("A".utf8).withUnsafeBytes { kept.continueLastValue($0) }
        #expect(kept[1].value == "k A" && kept.count == 2)
        let none = HTTPMessage(kind: .response, exchangeIndex: 0, streamRange: 0..<0, version: "HTTP/1.1",
                               firstOrigin: original.firstOrigin, lastOrigin: original.lastOrigin)
        #expect(none.headers.isEmpty && none.headerFields.byteCount == 0 && none.header("Host") == nil)
    }

    /// Trailers, a retained body, the HTTP/2 and HTTP/3 infos and changed header fields lie apart from
    /// the other fields, boxed only once one is set: set at the start or later, through a copy or the
    /// only message, back to their defaults, each reads as it was set and copies stay independent.
    @Test func rareFieldsBehaveAsValues() {
        let plain = Self.message()
        #expect(plain.trailers.isEmpty && plain.retainedBody == nil && plain.http2 == nil && plain.http3 == nil)
        let origin = plain.firstOrigin
        let trailer = HTTPHeader(name: "X-Checksum", value: "1")
        let framed = HTTPMessage(
            kind: .response, exchangeIndex: 1, streamRange: 0..<9, status: 200, version: "HTTP/2",
            trailers: [trailer], firstOrigin: origin, lastOrigin: origin, retainedBody: [1, 2],
            http2: HTTP2StreamInfo(streamID: 3), http3: HTTP3StreamInfo(streamID: 4))
        #expect(framed.trailers == [trailer] && framed.retainedBody == [1, 2])
        #expect(framed.http2?.streamID == 3 && framed.http3?.streamID == 4)
        // Set later on a message without them, through a copy: the original keeps its defaults.
        var copy = plain
        copy.trailers.append(trailer)
        copy.retainedBody = [7]
        copy.http2 = HTTP2StreamInfo(streamID: 5)
        copy.http3 = HTTP3StreamInfo(streamID: 6)
        #expect(plain.trailers.isEmpty && plain.retainedBody == nil && plain.http2 == nil && plain.http3 == nil)
        #expect(copy.trailers == [trailer] && copy.retainedBody == [7] && copy.http2?.streamID == 5 && copy.http3?.streamID == 6)
        // A copy of a message with them set shares them until one changes.
        var second = copy
        second.retainedBody = nil
        second.http2?.frames += 1
        second.trailers.removeAll()
        #expect(copy.retainedBody == [7] && copy.http2?.frames == 0 && copy.trailers == [trailer])
        #expect(second.retainedBody == nil && second.http2?.frames == 1 && second.trailers.isEmpty && second.http3?.streamID == 6)
        // Changed header fields sit beside the others: a copy made before keeps the box's fields.
        let before = second
        second.headers = [HTTPHeader(name: "Via", value: "x")]
        #expect(second.header("Via") == "x" && second.header("Host") == nil && second.http3?.streamID == 6)
        #expect(before.header("Host") == "example.org" && before.header("Via") == nil)
        second.http3 = nil
        #expect(second.header("Via") == "x" && second.http3 == nil && before.http3?.streamID == 6)
    }

    @Test func headerLookupIgnoresASCIICaseOnly() {
        let message = Self.message()
        #expect(message.header("host") == "example.org")
        #expect(message.header("HOST") == "example.org")
        #expect(message.header("x-kelvin") == "k")
        #expect(message.header("Hos") == nil && message.header("Hosts") == nil)
        // "[" and "{" differ from "{" and "[" by the case bit but are not letters.
        let origin = PacketOrigin(frameNumber: 1, timestamp: Timestamp(nanoseconds: 0))
        let odd = HTTPMessage(
            kind: .request, exchangeIndex: 0, streamRange: 0..<1, version: "HTTP/1.1",
            headers: [HTTPHeader(name: "a[b", value: "1"), HTTPHeader(name: "A{B", value: "2")],
            firstOrigin: origin, lastOrigin: origin)
        #expect(odd.header("A{B") == "2")
        #expect(odd.header("a[B") == "1")
    }
}

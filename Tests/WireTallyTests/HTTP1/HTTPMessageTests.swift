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

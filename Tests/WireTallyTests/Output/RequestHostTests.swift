import Testing
@testable import WireTally

/// The `host` of an `http` record, written from the Host header's bytes (`RecordEncoding.withHost`): the
/// first Host header in any case, else (none, or an empty one) the authority of an absolute target,
/// else the fallback; escaped as any JSON string.
@Suite struct RequestHostTests {
    private func request(target: String, headers: HTTPHeaderFields) -> HTTPMessage {
        let origin = PacketOrigin(frameNumber: 1, timestamp: Timestamp(nanoseconds: 0))
        return HTTPMessage(
            kind: .request, exchangeIndex: 0, streamRange: 0..<0, method: "GET", target: target, version: "HTTP/1.1",
            headers: headers, firstOrigin: origin, lastOrigin: origin)
    }

    /// The host as the JSON text encoder writes it.
    private func hostText(_ request: HTTPMessage, fallback: String) -> String {
        var encoder = JSONTextEncoder()
        RecordEncoding.withHost(of: request, fallback: fallback) { encoder.string(utf8: $0) }
        return encoder.buffer.text
    }

    @Test func theFirstHostHeaderInAnyCase() {
        let message = request(target: "http://other.test/a", headers: [
            HTTPHeader(name: "Accept", value: "*/*"), HTTPHeader(name: "hOsT", value: "api.test:8080"),
            HTTPHeader(name: "Host", value: "second.test"),
        ])
        #expect(hostText(message, fallback: "fallback") == #""api.test:8080""#)
        #expect(RecordEncoding.host(of: message, fallback: "fallback") == "api.test:8080")
    }

    @Test func anEmptyOrMissingHostFallsBackToTheTargetThenTheFallback() {
        let empty = request(target: "http://authority.test:81/path?q", headers: [HTTPHeader(name: "Host", value: "")])
        #expect(hostText(empty, fallback: "fallback") == #""authority.test:81""#)
        let none = request(target: "/path", headers: [HTTPHeader(name: "Accept", value: "*/*")])
        #expect(hostText(none, fallback: "192.0.2.1") == #""192.0.2.1""#)
        #expect(RecordEncoding.host(of: none, fallback: "192.0.2.1") == "192.0.2.1")
    }

    @Test func aHostThatNeedsEscapesIsEscaped() {
        let message = request(target: "/", headers: [HTTPHeader(name: "Host", value: "a\"b\\c")])
        #expect(hostText(message, fallback: "") == #""a\"b\\c""#)
    }
}

import Testing
@testable import WireTally

/// The host a request without `Host` is reported under (`ExchangeConnection.fallbackHost`), the one
/// helper the JSON encoder, the table and the endpoint summary share: the exchange's server name (TLS
/// SNI or the DNS name the server was looked up by), else the server's address.
struct ExchangeConnectionTests {
    @Test func theServerNameComesBeforeTheAddress() {
        let server = IPAddress("192.0.2.7")!
        #expect(ExchangeConnection.fallbackHost(serverName: "example.org", server: server) == "example.org")
        #expect(ExchangeConnection.fallbackHost(serverName: nil, server: server) == "192.0.2.7")
        #expect(ExchangeConnection.fallbackHost(serverName: nil, server: IPAddress("2001:db8::1")!) == "2001:db8::1")
    }

    /// A request with an origin-form target and no `Host` header is named by the fallback.
    @Test func aRequestWithoutHostIsNamedByTheFallback() {
        let origin = PacketOrigin(frameNumber: 1, timestamp: Timestamp(nanoseconds: 0))
        let request = HTTPMessage(
            kind: .request, exchangeIndex: 0, streamRange: 0..<0, method: "GET", target: "/a", version: "HTTP/1.1",
            firstOrigin: origin, lastOrigin: origin)
        let server = IPAddress("198.51.100.4")!
        #expect(RecordEncoding.host(of: request, fallback: ExchangeConnection.fallbackHost(serverName: nil, server: server))
            == "198.51.100.4")
        #expect(RecordEncoding.host(of: request, fallback: ExchangeConnection.fallbackHost(serverName: "api.test", server: server))
            == "api.test")
    }
}

import Foundation
import Testing
@testable import WireTally

/// A 1 MB header block: past the header cap (256 KiB, `--max-header-bytes`) the request is flagged
/// `headers_too_large`, the direction is no longer parsed, and every byte is still accounted for.
@Suite struct HeaderBlockLimitTests {
    static let response = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)

    /// One header line of 1 MiB, or 20,000 header lines of 53 bytes.
    static let requests: [[UInt8]] = [
        Array(("GET /big HTTP/1.1\r\nHost: a\r\nX-Big: " + String(repeating: "a", count: 1 << 20) + "\r\n\r\n").utf8),
        Array(("GET /many HTTP/1.1\r\nHost: a\r\n"
            + (0..<20_000).map { "X-Header-\(10_000 + $0): " + String(repeating: "v", count: 35) + "\r\n" }.joined()
            + "\r\n").utf8),
    ]

    @Test(arguments: requests.indices)
    func megabyteHeaderBlockHitsTheCap(index: Int) throws {
        let request = Self.requests[index]
        #expect(request.count > 1_000_000)
        let (exchange, connection, _) = try LimitTestSupport.analyzeConversation(
            LimitTestSupport.conversation(request: request, response: Self.response))
        #expect(exchange.flagNames.contains("request_headers_too_large"), "\(exchange.flagNames)")
        let owned = (exchange.int("wire.up.payload_bytes") ?? 0) + (connection.int("unattributed.up.payload_bytes") ?? 0)
        #expect(owned == request.count)
        #expect(exchange.int("response.status") == 200)
    }

    /// With the cap raised above the block (`HTTPLimits.maxHeaderBytes`, `--max-header-bytes`) the
    /// same request parses whole.
    @Test(arguments: requests.indices)
    func raisedCapParsesIt(index: Int) throws {
        let request = Self.requests[index]
        var limits = HTTPLimits()
        limits.maxHeaderBytes = 2 << 20
        let (exchange, _, _) = try LimitTestSupport.analyzeConversation(
            LimitTestSupport.conversation(request: request, response: Self.response), options: .init(http: limits))
        #expect(exchange.flagNames.isEmpty)
        #expect(exchange.int("request.bytes.total") == request.count)
        #expect(exchange.int("wire.up.payload_bytes") == request.count)
    }

    /// The binary: `--max-header-bytes` moves the cap.
    @Test func commandLineFlag() throws {
        let path = try LimitTestSupport.write(
            FrameBuilder.pcap(frames: LimitTestSupport.conversation(request: Self.requests[0], response: Self.response), link: .ethernet),
            name: "big-headers.pcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let capped = try LimitTestSupport.analyzeJSONLines(path)
        #expect(capped.status == 0)
        #expect(capped.records.filter { $0.contains("\"request_headers_too_large\"") }.count == 1)
        let raised = try LimitTestSupport.analyzeJSONLines(path, ["--max-header-bytes", "2097152"])
        #expect(raised.status == 0)
        #expect(raised.records.count == 2)
        #expect(!raised.records.contains { $0.contains("headers_too_large") })
    }
}

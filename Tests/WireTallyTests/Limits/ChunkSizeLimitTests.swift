import Foundation
import Testing
@testable import WireTally

/// Chunk sizes that do not fit 64 bits (or are not hex at all): the response is flagged malformed,
/// nothing traps; the exchange keeps the bytes up to the bad chunk-size line, the rest of the
/// direction (no longer parsed) is the connection's unattributed bytes.
@Suite struct ChunkSizeLimitTests {
    static let request = Array("GET /chunks HTTP/1.1\r\nHost: a\r\n\r\n".utf8)

    /// The response's head and first chunk, before the chunk-size line under test.
    static let validPrefix = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n".utf8)

    static func response(chunkLine: String) -> [UInt8] {
        Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n\(chunkLine)\r\nabcdef\r\n0\r\n\r\n".utf8)
    }

    @Test(arguments: [
        "10000000000000000",  // 2^64
        "ffffffffffffffff",  // 2^64 - 1
        "8000000000000000",  // 2^63
        "4000000000000001",  // just above the 2^62 cap
        "1" + String(repeating: "0", count: 64),  // 2^256
        String(repeating: "f", count: 1000),
        "-1", "+5", "0x10", "", " 5", "g",
    ])
    func oversizedOrInvalidChunkSizeIsMalformed(chunkLine: String) throws {
        let response = Self.response(chunkLine: chunkLine)
        let (exchange, connection, _) = try LimitTestSupport.analyzeConversation(
            LimitTestSupport.conversation(request: Self.request, response: response))
        #expect(exchange.flagNames.contains("response_malformed"), "\(chunkLine.prefix(20)): \(exchange.flagNames)")
        #expect(exchange.int("response.status") == 200)
        #expect(exchange.int("response.bytes.total") == Self.validPrefix.count)
        #expect(exchange.int("wire.down.payload_bytes") == Self.validPrefix.count)
        #expect(connection.int("unattributed.down.payload_bytes") == response.count - Self.validPrefix.count)
    }

    /// Leading zeros are allowed (`1*HEXDIG`): many digits of value 6 are a 6-byte chunk.
    @Test func manyLeadingZerosAreAValidSize() throws {
        let response = Self.response(chunkLine: String(repeating: "0", count: 200) + "6")
        let (exchange, _, _) = try LimitTestSupport.analyzeConversation(
            LimitTestSupport.conversation(request: Self.request, response: response))
        #expect(exchange.flagNames.isEmpty)
        #expect(exchange.int("response.bytes.body") == 11)
        #expect(exchange.int("response.bytes.total") == response.count)
    }

    /// 2^62 is within the cap: the chunk simply never ends (the response is incomplete, not malformed).
    @Test func hugeButRepresentableChunkIsIncomplete() throws {
        let response = Self.response(chunkLine: "4000000000000000")
        let (exchange, _, _) = try LimitTestSupport.analyzeConversation(
            LimitTestSupport.conversation(request: Self.request, response: response))
        #expect(exchange.flagNames.contains("response_incomplete"))
        #expect(exchange.int("wire.down.payload_bytes") == response.count)
    }
}

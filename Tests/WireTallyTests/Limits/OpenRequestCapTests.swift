import Foundation
import Testing
@testable import WireTally

/// A client pipelining requests to a server that never answers (a hostile capture: hundreds of
/// thousands of tiny requests on one connection): each request is an open exchange, kept until its
/// response comes. Past `HTTPLimits.maxOpenRequests` (`--max-open-requests`, 1,000) the client
/// direction is no longer parsed: the connection is flagged `too_many_open_requests`, the rest of its
/// bytes are unattributed, and memory stays bounded however many requests follow.
@Suite(.serialized) struct OpenRequestCapTests {
    static let requestCount = 200_000

    static func request(_ index: Int) -> [UInt8] { Array("GET /r/\(index) HTTP/1.1\r\nHost: a\r\n\r\n".utf8) }

    /// The response to request `index`: its body is `index + 1` bytes, so a record shows which
    /// request a response was paired with.
    static func response(_ index: Int) -> [UInt8] {
        Array("HTTP/1.1 200 OK\r\nContent-Length: \(index + 1)\r\n\r\n\(String(repeating: "x", count: index + 1))".utf8)
    }

    /// Writes one connection: `requests` pipelined requests, `perSegment` to a segment (each segment
    /// acknowledged by the server), then the responses to the first `responses` of them (each
    /// acknowledged by the client), then FIN both ways.
    static func writePipelined(to path: String, requests: Int, perSegment: Int = 1, responses: Int = 0) throws {
        let connection = try StreamedConnectionWriter(path: path)
        try connection.handshake()
        for first in stride(from: 0, to: requests, by: perSegment) {
            try connection.send(.up, (first..<min(first + perSegment, requests)).flatMap(request))
            try connection.acknowledge(from: .down)
        }
        for index in 0..<responses {
            try connection.send(.down, response(index))
            try connection.acknowledge(from: .up)
        }
        try connection.close()
    }

    @Test func unansweredPipeliningStopsAtTheCap() throws {
        let path = LimitTestSupport.temporaryPath("pipelined.pcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Self.writePipelined(to: path, requests: Self.requestCount, perSegment: 10)
        let cap = HTTPLimits().maxOpenRequests
        let unparsed = (cap..<Self.requestCount).reduce(0) { $0 + Self.request($1).count }

        // In process: the first `cap` requests are exchanges (no response), the rest of the client's
        // bytes unattributed; the connection never held more than `cap` exchanges.
        let (writer, result) = LimitTestSupport.analyzeConserved(path)
        #expect(result.summary.errors.isEmpty && result.summary.isConserved)
        #expect(writer.exchanges.count == cap)
        #expect(writer.exchanges.allSatisfy { $0["response"] == .null })
        #expect(writer.exchanges.last?.string("request.target") == "/r/\(cap - 1)")
        let connection = try #require(writer.connections.first)
        #expect(connection.flagNames.contains("too_many_open_requests"), "\(connection.flagNames)")
        #expect(connection.int("unattributed.up.payload_bytes") == unparsed)
        #expect(writer.summary?.int("too_many_open_requests") == 1)
        let application = try #require(writer.rawConnections.first?.consumer as? ApplicationLayerAnalysis)
        #expect(application.exchanges.count == cap)

        // The binary: peak memory under 48 MB (19 MB in release; keeping an exchange for every request
        // took about 1.3 KB each, 285 MB in all).
        let output = LimitTestSupport.temporaryPath("pipelined.jsonl")
        defer { try? FileManager.default.removeItem(atPath: output) }
        let run = try SYNFloodTests.runMeasured(["analyze", "--format", "jsonl", path], output: output)
        #expect(run.status == 0)
        #expect(run.peakKilobytes < 48 << 10, "peak RSS \(run.peakKilobytes / 1024) MB")
        let lines = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("{\"type\":\"http\"") }.count == cap)
        #expect(lines.filter { $0.contains("\"flags\":[") && $0.contains("\"too_many_open_requests\"") }.count == 1)
        #expect(lines.last?.contains("\"too_many_open_requests\":1") == true)
        #expect(lines.last?.contains("\"conserved\":true") == true)
    }

    /// `--max-open-requests` moves the cap.
    @Test func commandLineFlag() throws {
        let path = LimitTestSupport.temporaryPath("pipelined-small.pcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Self.writePipelined(to: path, requests: 30)
        let capped = try LimitTestSupport.analyzeJSONLines(path, ["--max-open-requests", "20"])
        #expect(capped.status == 0)
        #expect(capped.records.filter { $0.hasPrefix("{\"type\":\"http\"") }.count == 20)
        #expect(capped.records.filter { $0.contains("\"too_many_open_requests\"") }.count == 1)
        let raised = try LimitTestSupport.analyzeJSONLines(path, ["--max-open-requests", "30"])
        #expect(raised.records.filter { $0.hasPrefix("{\"type\":\"http\"") }.count == 30)
        #expect(!raised.records.contains { $0.contains("too_many_open_requests") })
    }
}

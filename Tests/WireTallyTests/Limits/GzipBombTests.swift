import Foundation
import Testing
@testable import WireTally

/// Decompression bombs sent as a `Content-Encoding: gzip` response body: decoding stops at the cap
/// (decoded size or ratio), the response is flagged `decompression_bomb`, the wire bytes stay exact.
@Suite struct GzipBombTests {
    static let request = Array("GET /bomb HTTP/1.1\r\nHost: a\r\nAccept-Encoding: gzip\r\n\r\n".utf8)

    static func response(encoding: String, body: [UInt8]) -> [UInt8] {
        Array("HTTP/1.1 200 OK\r\nContent-Encoding: \(encoding)\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
    }

    static func analyze(encoding: String, body: [UInt8], http: HTTPLimits = HTTPLimits())
        throws -> (exchange: JSONValue, response: [UInt8])
    {
        let response = response(encoding: encoding, body: body)
        let (exchange, connection, _) = try LimitTestSupport.analyzeConversation(
            LimitTestSupport.conversation(request: request, response: response), options: .init(http: http))
        #expect(exchange.int("response.bytes.body") == body.count)
        #expect(exchange.int("response.bytes.total") == response.count)
        #expect(exchange.int("wire.down.payload_bytes") == response.count)
        #expect(connection.int("unattributed.down.payload_bytes") == 0)
        return (exchange, response)
    }

    /// 10 MB of zeros gzipped to about 10 KB: past 1 MiB decoded the ratio cap (1000) stops it.
    @Test func tenMegabytesOfZeros() throws {
        let body = Compression.compress([UInt8](repeating: 0, count: 10 << 20), .gzip, level: 9)
        #expect(body.count < 12_000)
        let (exchange, _) = try Self.analyze(encoding: "gzip", body: body)
        #expect(exchange.flagNames.contains("response_decompression_bomb"))
        let decoded = try #require(exchange.int("response.decoded_body"))
        #expect(decoded > 1 << 20 && decoded < 10 << 20)
    }

    /// gzip inside gzip (`Content-Encoding: gzip, gzip`), 64 MiB of zeros in a few hundred bytes.
    @Test func nestedGzip() throws {
        let inner = Compression.compress([UInt8](repeating: 0, count: 64 << 20), .gzip, level: 9)
        let body = Compression.compress(inner, .gzip, level: 9)
        let (exchange, _) = try Self.analyze(encoding: "gzip, gzip", body: body)
        #expect(exchange.flagNames.contains("response_decompression_bomb"))
        let decoded = try #require(exchange.int("response.decoded_body"))
        #expect(decoded < 64 << 20)
    }

    /// A body that compresses badly stops at the decoded-size cap (`--max-decoded-body-bytes`).
    @Test func decodedSizeCap() throws {
        var generator = SeededGenerator(state: 3)
        let plain = (0..<(3 << 20)).map { _ in UInt8.random(in: 0...15, using: &generator) }
        let body = Compression.compress(plain, .gzip)
        var limits = HTTPLimits()
        limits.maxDecodedBodyBytes = 1 << 20
        let (exchange, _) = try Self.analyze(encoding: "gzip", body: body, http: limits)
        #expect(exchange.flagNames.contains("response_decompression_bomb"))
        let decoded = try #require(exchange.int("response.decoded_body"))
        #expect(decoded > 1 << 20 && decoded <= (1 << 20) + (64 << 10))
        let (whole, _) = try Self.analyze(encoding: "gzip", body: body)
        #expect(whole.flagNames.isEmpty)
        #expect(whole.int("response.decoded_body") == plain.count)
    }

    /// The binary: `--max-decoded-body-bytes` and `--max-decoding-ratio` move the caps (of `--decode`;
    /// without it bodies are not decoded at all).
    @Test func commandLineFlags() throws {
        let body = Compression.compress([UInt8](repeating: 0, count: 10 << 20), .gzip, level: 9)
        let frames = LimitTestSupport.conversation(request: Self.request, response: Self.response(encoding: "gzip", body: body))
        let path = try LimitTestSupport.write(FrameBuilder.pcap(frames: frames, link: .ethernet), name: "bomb.pcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let undecoded = try LimitTestSupport.analyzeJSONLines(path)
        #expect(!undecoded.records.contains { $0.contains("decompression_bomb") })
        let bomb = try LimitTestSupport.analyzeJSONLines(path, ["--decode"])
        #expect(bomb.records.filter { $0.contains("\"response_decompression_bomb\"") }.count == 1)
        let allowed = try LimitTestSupport.analyzeJSONLines(path, ["--decode", "--max-decoding-ratio", "100000"])
        #expect(allowed.records.contains { $0.contains("\"decoded_body\":\(10 << 20)") })
        #expect(!allowed.records.contains { $0.contains("decompression_bomb") })
        let capped = try LimitTestSupport.analyzeJSONLines(path, ["--decode", "--max-decoding-ratio", "100000", "--max-decoded-body-bytes", "65536"])
        #expect(capped.records.filter { $0.contains("\"response_decompression_bomb\"") }.count == 1)
        #expect(capped.status == 0)
    }

    /// Thousands of stacked codings (each layer a real gzip member): more than
    /// `ContentDecoder.maximumCodings` are not decoded at all (flagged undecodable). Before that cap
    /// all 3000 layers were decoded, each with its own zlib stream and 32 KiB buffer (about 150 MB);
    /// the 256 KiB header cap allows some 50,000 layers, several GB for one message.
    @Test func thousandsOfStackedCodings() throws {
        var body = Array("x".utf8)
        for _ in 0..<3000 { body = Compression.compress(body, .gzip, level: 1) }
        let encoding = Array(repeating: "gzip", count: 3000).joined(separator: ", ")
        let (exchange, _) = try Self.analyze(encoding: encoding, body: body)
        #expect(exchange.flagNames.contains("response_undecodable"))
        #expect(exchange.int("response.decoded_body") == nil)
    }
}

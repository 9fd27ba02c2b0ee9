import Foundation
import Testing
@testable import WireTally

/// Decompression bombs sent as `Content-Encoding: br` and `zstd` (and stacked): the same caps as gzip
/// (`GzipBombTests`) stop them — decoded size or ratio, the total over the whole stack — the response is
/// flagged `decompression_bomb`, and the wire bytes stay exact.
@Suite struct BrotliZstdBombTests {
    static let zeros = [UInt8](repeating: 0, count: 64 << 20)

    static func encode(_ input: [UInt8], _ coding: String) -> [UInt8] {
        coding == "br" ? Compression.brotli(input) : Compression.zstd(input, level: 19)
    }

    /// 64 MiB of zeros in a few KB: past 1 MiB decoded the ratio cap (1000) stops it, long before the
    /// end; with the ratio allowed, the decoded-size cap stops it.
    @Test(arguments: ["br", "zstd"])
    func zerosStopAtTheCaps(coding: String) throws {
        let body = Self.encode(Self.zeros, coding)
        #expect(body.count < 64 << 10)
        let (exchange, _) = try GzipBombTests.analyze(encoding: coding, body: body)
        #expect(exchange.flagNames.contains("response_decompression_bomb"))
        let decoded = try #require(exchange.int("response.decoded_body"))
        #expect(decoded > 1 << 20 && decoded <= (1 << 20) + (64 << 10))

        var limits = HTTPLimits()
        limits.maxDecodingRatio = 1 << 30
        limits.maxDecodedBodyBytes = 8 << 20
        let (capped, _) = try GzipBombTests.analyze(encoding: coding, body: body, http: limits)
        #expect(capped.flagNames.contains("response_decompression_bomb"))
        let cappedSize = try #require(capped.int("response.decoded_body"))
        #expect(cappedSize > 8 << 20 && cappedSize <= (8 << 20) + (64 << 10))
    }

    /// Stacked: zeros → zstd → br → gzip. Each layer is small; the caps apply to what the last stage
    /// produces, against the body as sent.
    @Test func stackedBomb() throws {
        let body = Compression.compress(Compression.brotli(Compression.zstd(Self.zeros, level: 19)), .gzip, level: 9)
        let (exchange, _) = try GzipBombTests.analyze(encoding: "zstd, br, gzip", body: body)
        #expect(exchange.flagNames.contains("response_decompression_bomb"))
        let decoded = try #require(exchange.int("response.decoded_body"))
        #expect(decoded > 1 << 20 && decoded < 2 << 20)
    }

    /// A body that compresses badly stops at the decoded-size cap with the ratio far below its cap.
    @Test(arguments: ["br", "zstd"])
    func decodedSizeCap(coding: String) throws {
        var generator = SeededGenerator(state: 5)
        let plain = (0..<(3 << 20)).map { _ in UInt8.random(in: 0...15, using: &generator) }
        let body = Self.encode(plain, coding)
        var limits = HTTPLimits()
        limits.maxDecodedBodyBytes = 1 << 20
        let (exchange, _) = try GzipBombTests.analyze(encoding: coding, body: body, http: limits)
        #expect(exchange.flagNames.contains("response_decompression_bomb"))
        let decoded = try #require(exchange.int("response.decoded_body"))
        #expect(decoded > 1 << 20 && decoded <= (1 << 20) + (64 << 10))
        let (whole, _) = try GzipBombTests.analyze(encoding: coding, body: body)
        #expect(whole.flagNames.isEmpty && whole.int("response.decoded_body") == plain.count)
    }

    /// The binary: `--decode` flags the br and zstd bombs; `--max-decoding-ratio` and
    /// `--max-decoded-body-bytes` move the caps as for gzip.
    @Test(arguments: ["br", "zstd"])
    func commandLineFlags(coding: String) throws {
        let plain = [UInt8](repeating: 0, count: 10 << 20)
        let frames = LimitTestSupport.conversation(
            request: GzipBombTests.request, response: GzipBombTests.response(encoding: coding, body: Self.encode(plain, coding)))
        let path = try LimitTestSupport.write(FrameBuilder.pcap(frames: frames, link: .ethernet), name: "bomb-\(coding).pcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let undecoded = try LimitTestSupport.analyzeJSONLines(path)
        #expect(!undecoded.records.contains { $0.contains("decompression_bomb") })
        let bomb = try LimitTestSupport.analyzeJSONLines(path, ["--decode"])
        #expect(bomb.records.filter { $0.contains("\"response_decompression_bomb\"") }.count == 1)
        let allowed = try LimitTestSupport.analyzeJSONLines(path, ["--decode", "--max-decoding-ratio", "10000000"])
        #expect(allowed.records.contains { $0.contains("\"decoded_body\":\(plain.count)") })
        #expect(!allowed.records.contains { $0.contains("decompression_bomb") })
        let capped = try LimitTestSupport.analyzeJSONLines(
            path, ["--decode", "--max-decoding-ratio", "10000000", "--max-decoded-body-bytes", "65536"])
        #expect(capped.records.filter { $0.contains("\"response_decompression_bomb\"") }.count == 1)
        #expect(capped.status == 0)
    }
}

import Testing

@testable import WireTally

/// `Content-Encoding: br` and `zstd` decoded to their exact size like gzip: whole, chunked, fed in
/// small pieces, stacked with each other and with gzip (undone in reverse order); corrupt, truncated
/// and trailing data; zstd frames back to back and its 8 MiB window cap. Bodies are made by libbrotlienc
/// and libzstd; the recorded proof against a python server and curl is `RecordedCodingsTests`.
@Suite struct BrotliZstdDecodingTests {
    static let plain = HTTP1ContentDecodingTests.text(150_000)

    static func encode(_ input: [UInt8], _ coding: String) -> [UInt8] {
        switch coding {
        case "br": Compression.brotli(input)
        case "zstd": Compression.zstd(input)
        default: Compression.compress(input, .gzip)
        }
    }

    /// `input` encoded with each of `codings` (comma-separated) in order, as a server stacks them.
    static func encode(_ input: [UInt8], stack codings: String) -> [UInt8] {
        codings.split(separator: ",").reduce(input) { encode($0, $1.trimmingHTTPWhitespace()) }
    }

    @Test(arguments: ["br", "zstd"])
    func decodesWithExactDecodedSize(coding: String) throws {
        let encoded = Self.encode(Self.plain, coding)
        #expect(encoded.count < Self.plain.count / 5)
        for chunked in [false, true] {
            let message = try #require(HTTP1ContentDecodingTests.decode(encoded, coding: coding, chunked: chunked))
            #expect(message.contentEncoding == coding && message.bytes.body == encoded.count)
            #expect(message.decodedBodyBytes == Self.plain.count && message.flags == [])
        }
        // Incremental: segments of 1 byte at the start (the parser sees each piece alone), then 81.
        for piece in [1, 81, 1460] {
            let message = try #require(HTTP1ContentDecodingTests.decode(encoded, coding: coding, piece: piece))
            #expect(message.decodedBodyBytes == Self.plain.count && message.flags == [], "pieces of \(piece)")
        }
        let upper = try #require(HTTP1ContentDecodingTests.decode(encoded, coding: coding.uppercased()))
        #expect(upper.decodedBodyBytes == Self.plain.count)
    }

    /// Decoded bodies are retained exactly (HAR text, duplicate detection) whatever the coding.
    @Test(arguments: ["br", "zstd", "gzip, br", "br, zstd"])
    func retainedBodyIsTheDecodedBody(coding: String) throws {
        var limits = HTTPLimits()
        limits.retainedBodyBytes = 1 << 20
        let message = try #require(
            HTTP1ContentDecodingTests.decode(Self.encode(Self.plain, stack: coding), coding: coding, limits: limits, piece: 500))
        #expect(message.retainedBody == Self.plain)
    }

    @Test(arguments: ["gzip, br", "br, gzip", "br, zstd", "zstd, br", "zstd, gzip", "deflate, zstd", "br, br, zstd, gzip"])
    func stackedCodingsDecodeInReverseOrder(codings: String) throws {
        let encoded = codings.split(separator: ",").reduce(Self.plain) {
            let name = $1.trimmingHTTPWhitespace()
            return name == "deflate" ? Compression.compress($0, .zlib) : Self.encode($0, name)
        }
        for chunked in [false, true] {
            let message = try #require(HTTP1ContentDecodingTests.decode(encoded, coding: codings, chunked: chunked))
            #expect(message.decodedBodyBytes == Self.plain.count && message.flags == [], "\(codings)")
        }
    }

    /// Listed in the wrong order, the outer stage sees the wrong format: zstd (which checks its magic
    /// number) refuses br data.
    @Test func stackListedInTheWrongOrder() throws {
        let encoded = Self.encode(Self.plain, stack: "zstd, br")
        let wrong = try #require(HTTP1ContentDecodingTests.decode(encoded, coding: "br, zstd"))
        #expect(wrong.flags == [.undecodable] && wrong.decodedBodyBytes == nil)
    }

    /// A zstd body may be several frames (each decoded in turn) and skippable frames (ignored).
    @Test func zstdFramesBackToBack() throws {
        let skippable: [UInt8] = [0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 1, 2, 3, 4]
        let body = Compression.zstd(Self.plain) + skippable + Compression.zstd(Array(Self.plain.prefix(1000)))
        let message = try #require(HTTP1ContentDecodingTests.decode(body, coding: "zstd", piece: 333))
        #expect(message.decodedBodyBytes == Self.plain.count + 1000 && message.flags == [])
    }

    /// Bytes after a br stream are ignored (as after a gzip member); after a zstd frame they must be
    /// another frame, so garbage there is corrupt.
    @Test func trailingBytes() throws {
        let garbage: [UInt8] = Array("trailing garbage".utf8)
        let br = try #require(HTTP1ContentDecodingTests.decode(Compression.brotli(Self.plain) + garbage, coding: "br"))
        #expect(br.decodedBodyBytes == Self.plain.count && br.flags == [])
        let zstd = try #require(HTTP1ContentDecodingTests.decode(Compression.zstd(Self.plain) + garbage, coding: "zstd"))
        #expect(zstd.decodedBodyBytes == nil && zstd.flags == [.undecodable])
    }

    /// Hostile bodies: flipped bytes, a stream cut short, a body of random bytes, an empty body. Never
    /// a crash; corrupt data is `undecodable`, a cut stream counts what it decoded (as gzip does).
    @Test(arguments: ["br", "zstd"])
    func corruptAndTruncatedStreams(coding: String) throws {
        let encoded = Self.encode(Self.plain, coding)
        var flipped = encoded
        for index in stride(from: 8, to: flipped.count - 8, by: 61) { flipped[index] ^= 0xa5 }
        let corrupt = try #require(HTTP1ContentDecodingTests.decode(flipped, coding: coding))
        #expect(corrupt.flags == [.undecodable] && corrupt.decodedBodyBytes == nil && corrupt.bytes.body == flipped.count)

        for cut in [1, 3, encoded.count / 2, encoded.count - 1] {
            let truncated = try #require(HTTP1ContentDecodingTests.decode(Array(encoded.prefix(cut)), coding: coding, piece: 97))
            #expect(truncated.bytes.body == cut)
            #expect(truncated.flags.isSubset(of: [.undecodable]), "cut at \(cut): \(truncated.flags)")
            #expect((truncated.decodedBodyBytes ?? 0) <= Self.plain.count, "cut at \(cut)")
        }

        var generator = SeededGenerator(state: 18)
        let random = (0..<5000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let noise = try #require(HTTP1ContentDecodingTests.decode(random, coding: coding))
        #expect(noise.bytes.body == random.count && noise.flags.isSubset(of: [.undecodable]))

        let empty = try #require(HTTP1ContentDecodingTests.decode([], coding: coding))
        #expect(empty.bytes.body == 0 && empty.decodedBodyBytes == 0 && empty.flags == [])
    }

    /// RFC 9659: an HTTP zstd decoder need not accept windows over 8 MiB, and wiretally does not (a
    /// frame asking for 16 MiB would have the decoder allocate them): such a body is undecodable. A
    /// body whose window fits is decoded whatever its size.
    @Test func zstdWindowOverEightMebibytesIsRefused() throws {
        var generator = SeededGenerator(state: 9)
        let random = (0..<(12 << 20) / 8).map { _ in UInt64.random(in: 0...UInt64.max, using: &generator) }
        let input = random.withUnsafeBytes { Array($0) }
        let wide = Compression.zstd(input, level: 1, windowLog: 24)
        let refused = try #require(HTTP1ContentDecodingTests.decode(wide, coding: "zstd"))
        #expect(refused.flags == [.undecodable] && refused.decodedBodyBytes == nil)
        let narrow = Compression.zstd(input, level: 1, windowLog: 23)
        let decoded = try #require(HTTP1ContentDecodingTests.decode(narrow, coding: "zstd"))
        #expect(decoded.flags == [] && decoded.decodedBodyBytes == input.count)
    }
}

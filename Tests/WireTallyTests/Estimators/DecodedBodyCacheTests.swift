import Testing

@testable import WireTally

/// `compare` decodes each distinct encoded body once (`ContentDecoder` with the analysis's
/// `BodyReencoder`): a repeated body gives what decoding it again gives, whatever pieces it came in;
/// only the very same bytes hit; results that depend on the pieces (caps, errors) are never reused,
/// and bodies past the bound are decoded as they stream.
@Suite struct DecodedBodyCacheTests {
    static let plain = HTTP1ContentDecodingTests.text(100_000)

    /// Limits of a `compare` analysis: bodies retained, one re-encoder shared by every decoder.
    static func compareLimits(_ reencoder: BodyReencoder) -> HTTPLimits {
        var limits = EstimatorRun.requiredHTTPLimits()
        limits.bodyReencoder = reencoder
        return limits
    }

    /// Decodes `body` fed in pieces of `piece` bytes (nil: one piece).
    static func decode(_ body: [UInt8], coding: String = "gzip", limits: HTTPLimits, piece: Int? = nil)
        throws -> (decoded: Int?, flags: HTTPMessageFlags, retained: [UInt8])
    {
        let decoder = try #require(ContentDecoder(contentEncoding: coding, limits: limits))
        decoder.retainLimit = limits.retainedBodyBytes
        let size = max(1, piece ?? body.count)
        body.withUnsafeBytes { raw in
            for start in stride(from: 0, to: raw.count, by: size) {
                decoder.feed(UnsafeRawBufferPointer(rebasing: raw[start..<min(start + size, raw.count)]))
            }
        }
        let result = decoder.result(bodyBytes: body.count)
        return (result.decoded, result.flags, decoder.retained)
    }

    @Test func repeatedBodyIsDecodedOnceWithTheSameResult() throws {
        let encoded = Compression.compress(Self.plain, .gzip)
        let plainLimits = EstimatorRun.requiredHTTPLimits()
        let expected = try Self.decode(encoded, limits: plainLimits, piece: 1000)
        #expect(expected.decoded == Self.plain.count && expected.flags == [] && expected.retained == Self.plain)

        let reencoder = BodyReencoder()
        let limits = Self.compareLimits(reencoder)
        #expect(reencoder.decodedBody(of: encoded, [.gzip]) == nil)
        for piece in [1000, nil, 1, 4096] {
            let got = try Self.decode(encoded, limits: limits, piece: piece)
            #expect(got.decoded == expected.decoded && got.flags == expected.flags && got.retained == expected.retained)
            #expect(reencoder.decodedBody(of: encoded, [.gzip]) == Self.plain)
        }
        // the same bytes under another coding list are another body
        #expect(reencoder.decodedBody(of: encoded, [.gzip, .gzip]) == nil)
        #expect(reencoder.decodedBody(of: encoded, [.zstd]) == nil)
    }

    /// A remembered body answers only for the very same bytes: one byte changed is decoded again.
    @Test func onlyTheSameBytesHit() throws {
        let encoded = Compression.compress(Self.plain, .gzip)
        let reencoder = BodyReencoder()
        let limits = Self.compareLimits(reencoder)
        var other = encoded
        other[other.count / 2] ^= 0x01  // the same length; not a valid stream any more
        reencoder.rememberDecodedBody([1, 2, 3], of: other, [.gzip])
        let got = try Self.decode(encoded, limits: limits)
        #expect(got.decoded == Self.plain.count && got.retained == Self.plain)
        #expect(reencoder.decodedBody(of: other, [.gzip]) == [1, 2, 3])
    }

    /// Corrupt bodies, bombs and bodies decoding past 1 MiB (where the ratio test depends on the
    /// pieces) are not remembered; a gap makes the body undecodable as before.
    @Test func piecewiseResultsAreNotRemembered() throws {
        let reencoder = BodyReencoder()
        let limits = Self.compareLimits(reencoder)
        var corrupt = Compression.compress(Self.plain, .gzip)
        corrupt[20] ^= 0xff
        corrupt[21] ^= 0xff
        let bad = try Self.decode(corrupt, limits: limits)
        #expect(bad.decoded == nil && bad.flags == .undecodable)
        #expect(reencoder.decodedBody(of: corrupt, [.gzip]) == nil)

        let large = HTTP1ContentDecodingTests.text(3 << 20)
        let largeEncoded = Compression.compress(large, .gzip)
        let big = try Self.decode(largeEncoded, limits: limits, piece: 1500)
        #expect(big.decoded == large.count && big.flags == [])
        #expect(reencoder.decodedBody(of: largeEncoded, [.gzip]) == nil)

        let zeros = Compression.compress([UInt8](repeating: 0, count: 10 << 20), .gzip, level: 9)
        let plainLimits = EstimatorRun.requiredHTTPLimits()
        for piece in [nil, 100] {
            let bomb = try Self.decode(zeros, limits: limits, piece: piece)
            let expected = try Self.decode(zeros, limits: plainLimits, piece: piece)
            #expect(bomb.flags == .decompressionBomb && bomb.decoded == expected.decoded)
        }
        #expect(reencoder.decodedBody(of: zeros, [.gzip]) == nil)

        let encoded = Compression.compress(Self.plain, .gzip)
        let decoder = try #require(ContentDecoder(contentEncoding: "gzip", limits: limits))
        encoded.withUnsafeBytes { decoder.feed(UnsafeRawBufferPointer(rebasing: $0[..<100])) }
        decoder.noteGap()
        let cut = decoder.result(bodyBytes: encoded.count)
        #expect(cut.decoded == nil && cut.flags == .undecodable)
        #expect(reencoder.decodedBody(of: encoded, [.gzip]) == nil)
    }

    /// Encoded bodies past `BodyBytesCache.largestBody` are not held: decoded as they stream.
    @Test func bodiesPastTheBoundStream() throws {
        var noise = [UInt8](repeating: 0, count: BodyBytesCache<[UInt8]>.largestBody + 4096)
        var state: UInt32 = 12345
        for i in noise.indices {
            state = state &* 1_103_515_245 &+ 12345
            noise[i] = UInt8(truncatingIfNeeded: state >> 16)
        }
        let encoded = Compression.compress(noise, .gzip)
        #expect(encoded.count > BodyBytesCache<[UInt8]>.largestBody)
        let reencoder = BodyReencoder()
        let got = try Self.decode(encoded, limits: Self.compareLimits(reencoder), piece: 64 << 10)
        #expect(got.decoded == noise.count && got.flags == [] && got.retained == noise)
        #expect(reencoder.decodedBody(of: encoded, [.gzip]) == nil)
    }
}

import Foundation
import Testing
@testable import WireTally

/// The `rebuilt` estimator's re-encoder: encoder states kept from body to body give the bytes a new
/// state gives, and the size cache answers only for the very same bytes.
@Suite struct BodyReencoderTests {
    /// Bodies of different sizes and content, each twice, through one encoder.
    static let bodies: [[UInt8]] = {
        let json = EstimatorFormulaTests.json, text = EstimatorFormulaTests.text
        let samples = [json, text, Array(json.prefix(100)), [], ascii("a"), text + json]
        return samples + samples.reversed()
    }()

    @Test func reusedGzipStreamEqualsNewStreams() throws {
        let gzip = Gzip()
        for body in Self.bodies {
            let reused = try #require(gzip.compress(body))
            #expect(reused == (try #require(Gzip.compress(body))))
            #expect(reused.count == Compression.compress(body, .gzip, level: 6).count)
        }
    }

    @Test(.requires(.python3))
    func reusedGzipStreamMatchesPython() throws {
        let gzip = Gzip()
        for body in Self.bodies {
            #expect((try #require(gzip.compress(body))).count == (try EstimatorFormulaTests.pythonGzipSize(body)))
        }
    }

    @Test func reusedZstdContextEqualsNewContexts() throws {
        let zstd = Zstd()
        for body in Self.bodies {
            #expect((try #require(zstd.compress(body))) == (try #require(Zstd().compress(body))))
        }
    }

    @Test func sizesEqualEncodingEachBodyAlone() throws {
        let reencoder = BodyReencoder()
        for codings: [ContentCoding] in [[.gzip], [.brotli], [.zstd], [.gzip, .brotli], [.zstd, .gzip]] {
            for body in Self.bodies where !body.isEmpty {
                var encoded = body
                for coding in codings {
                    switch coding {
                    case .gzip: encoded = try #require(Gzip.compress(encoded))
                    case .brotli: encoded = try #require(Brotli.compress(encoded))
                    case .zstd: encoded = try #require(Zstd().compress(encoded))
                    case .deflate: Issue.record("deflate is not re-encoded")
                    }
                }
                #expect(reencoder.reencodedSize(body, codings) == encoded.count, "\(codings) \(body.count) bytes")
            }
        }
    }

    /// Two bodies of one length that differ only in a word the slot hash does not sample share a slot;
    /// the bytes tell them apart.
    @Test func cacheComparesTheBytes() throws {
        let zeros = [UInt8](repeating: 0, count: 2048)  // 256 words: the hash samples every 4th
        var other = zeros
        for offset in 8..<16 { other[offset] = UInt8(offset * 37 % 251) }
        var cache = BodyBytesCache<Int>()
        cache.insert(zeros, [.gzip], 1)
        #expect(cache.value(for: zeros, [.gzip]) == 1)
        #expect(cache.value(for: other, [.gzip]) == nil)
        #expect(cache.value(for: zeros, [.zstd]) == nil)
        cache.insert(other, [.gzip], 2)
        #expect(cache.value(for: zeros, [.gzip]) == 1 && cache.value(for: other, [.gzip]) == 2)
        let reencoder = BodyReencoder()
        #expect(reencoder.reencodedSize(zeros, [.gzip]) == Gzip.compress(zeros)?.count)
        #expect(reencoder.reencodedSize(other, [.gzip]) == Gzip.compress(other)?.count)
        #expect(Gzip.compress(zeros)?.count != Gzip.compress(other)?.count)
    }

    @Test func cacheIsBounded() {
        var cache = BodyBytesCache<Int>()
        let large = [UInt8](repeating: 7, count: BodyBytesCache<Int>.largestBody + 1)
        cache.insert(large, [.gzip], 1)
        #expect(cache.value(for: large, [.gzip]) == nil)
        let body = [UInt8](repeating: 1, count: BodyBytesCache<Int>.largestBody)
        cache.insert(body, [.gzip], 1)
        for n in 0..<(BodyBytesCache<Int>.capacityBytes / body.count) {
            var next = body
            next[0] = UInt8(n + 2)
            cache.insert(next, [.gzip], 2)
        }
        // the 17th MiB did not fit: the cache started again from it
        #expect(cache.value(for: body, [.gzip]) == nil)
    }
}

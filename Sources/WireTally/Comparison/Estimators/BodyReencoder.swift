/// Re-encodes decoded bodies for the `rebuilt` estimator, one per analysis: each coding's encoder
/// state is kept from body to body (`Gzip`, `Zstd`; brotli's one-shot encoder has no reset), and the
/// sizes of bodies seen before come from `ReencodedSizeCache` — apps send the same bodies again and
/// again (polling, a leaked timer), so a repeated body costs a byte comparison instead of a re-encoding.
///
/// `CaptureAnalyzer` makes one for an analysis that measures re-encoded bodies
/// (`HTTPLimits.bodyReencoder`); it is used on the analysis's thread only.
package final class BodyReencoder: @unchecked Sendable {
    private let gzip = Gzip()
    private let zstd = Zstd()
    private var cache = ReencodedSizeCache()

    package init() {}

    /// The size of `body` with `codings` applied in order (nil if an encoder fails): gzip with zlib's
    /// default level (`Gzip`), br with quality 6 (`Brotli`), zstd with level 3 (`Zstd`).
    package func reencodedSize(_ body: [UInt8], _ codings: [ContentCoding]) -> Int? {
        if let size = cache.size(of: body, codings) { return size }
        var encoded = body
        for coding in codings {
            guard let next = reencode(encoded, coding) else { return nil }
            encoded = next
        }
        cache.insert(body, codings, size: encoded.count)
        return encoded.count
    }

    private func reencode(_ body: [UInt8], _ coding: ContentCoding) -> [UInt8]? {
        switch coding {
        case .gzip: gzip.compress(body)
        case .brotli: Brotli.compress(body)
        case .zstd: zstd.compress(body)
        case .deflate: nil
        }
    }
}

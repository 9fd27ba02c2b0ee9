/// Re-encodes decoded bodies for the `rebuilt` estimator, one per analysis: each coding's encoder
/// state is kept from body to body (`Gzip`, `Zstd`; brotli's one-shot encoder has no reset), and the
/// sizes of bodies seen before come from a `BodyBytesCache` — apps send the same bodies again and
/// again (polling, a leaked timer), so a repeated body costs a byte comparison instead of a re-encoding.
/// For the same reason it remembers what decoding gave for the encoded bodies seen before
/// (`decodedBody(of:_:)`), so that `ContentDecoder` inflates a repeated body once.
///
/// `CaptureAnalyzer` makes one for an analysis that measures re-encoded bodies
/// (`HTTPLimits.bodyReencoder`); it is used on the analysis's thread only.
package final class BodyReencoder: @unchecked Sendable {
    private let gzip = Gzip()
    private let zstd = Zstd()
    private var sizes = BodyBytesCache<Int>()
    private var decodedBodies = BodyBytesCache<[UInt8]>()

    package init() {}

    /// The size of `body` with `codings` applied in order (nil if an encoder fails): gzip with zlib's
    /// default level (`Gzip`), br with quality 6 (`Brotli`), zstd with level 3 (`Zstd`).
    package func reencodedSize(_ body: [UInt8], _ codings: [ContentCoding]) -> Int? {
        if let size = sizes.value(for: body, codings) { return size }
        var encoded = body
        for coding in codings {
            guard let next = reencode(encoded, coding) else { return nil }
            encoded = next
        }
        sizes.insert(body, codings, encoded.count)
        return encoded.count
    }

    /// The whole decoded body remembered for the encoded `body` with `codings` (as sent, codings in
    /// `Content-Encoding` order), nil when not seen.
    func decodedBody(of body: [UInt8], _ codings: [ContentCoding]) -> [UInt8]? {
        decodedBodies.value(for: body, codings)
    }

    /// Remembers that the encoded `body` with `codings` decodes, without error or cap, to `decoded`.
    func rememberDecodedBody(_ decoded: [UInt8], of body: [UInt8], _ codings: [ContentCoding]) {
        decodedBodies.insert(body, codings, decoded, valueBytes: decoded.count)
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

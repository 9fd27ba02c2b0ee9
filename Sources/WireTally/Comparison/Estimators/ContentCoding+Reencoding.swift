extension ContentCoding {
    /// `body` encoded as the `rebuilt` estimator re-encodes this coding: gzip (zlib's default level,
    /// `Gzip`), br (quality 6, `Brotli`), zstd (level 3, `Zstd`); nil for deflate, whose wrapper (zlib
    /// or raw) and level a client cannot know, and if the encoder fails.
    func reencode(_ body: [UInt8]) -> [UInt8]? {
        switch self {
        case .gzip: Gzip.compress(body)
        case .brotli: Brotli.compress(body)
        case .zstd: Zstd.compress(body)
        case .deflate: nil
        }
    }

    /// The codings of `contentEncoding` the `rebuilt` estimator re-applies, in the order they were
    /// applied; nil when the body is not encoded or one of its codings is unknown or not re-encoded.
    static func reencoded(_ contentEncoding: String?) -> [ContentCoding]? {
        guard let codings = contentEncoding.flatMap(ContentCoding.list), !codings.isEmpty,
            codings.count <= ContentDecoder.maximumCodings, !codings.contains(.deflate)
        else { return nil }
        return codings
    }

    /// The size of `body` with `codings` applied in order (nil if an encoder fails).
    static func reencodedSize(_ body: [UInt8], _ codings: [ContentCoding]) -> Int? {
        var encoded = body
        for coding in codings {
            guard let next = coding.reencode(encoded) else { return nil }
            encoded = next
        }
        return encoded.count
    }
}

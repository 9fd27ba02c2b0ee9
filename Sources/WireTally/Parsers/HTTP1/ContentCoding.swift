/// A content coding wiretally decodes (`Content-Encoding`, RFC 9110 §8.4.1), each undone by a
/// `ContentDecodingStage` of its own kind.
package enum ContentCoding: Sendable, Equatable {
    /// `gzip` and `x-gzip`: zlib, gzip members back to back.
    case gzip
    /// `deflate`: zlib, the wrapper sniffed (zlib header, gzip magic, else raw deflate).
    case deflate
    /// `br` (RFC 7932): libbrotlidec, window up to 16 MiB as the format allows.
    case brotli
    /// `zstd` (RFC 8878): libzstd, frames back to back, window capped at 8 MiB as RFC 9659 asks of
    /// HTTP decoders (a frame asking for more is corrupt data).
    case zstd

    /// The coding named `name` (lowercased, as `ContentDecoder` hands it over), nil when unknown.
    init?(name: String) {
        switch name {
        case "gzip", "x-gzip": self = .gzip
        case "deflate": self = .deflate
        case "br": self = .brotli
        case "zstd": self = .zstd
        default: return nil
        }
    }

    /// The codings listed in a `Content-Encoding` value, in the order they were applied (`identity` and
    /// empty elements left out); nil when one of them is unknown.
    package static func list(_ contentEncoding: String) -> [ContentCoding]? {
        var codings: [ContentCoding] = []
        for element in contentEncoding.split(separator: ",") {
            let name = element.trimmingHTTPWhitespace().lowercased()
            if name.isEmpty || name == "identity" { continue }
            guard let coding = ContentCoding(name: name) else { return nil }
            codings.append(coding)
        }
        return codings
    }

    /// A new stage undoing this coding.
    func decodingStage() -> any ContentDecodingStage {
        switch self {
        case .gzip: ZlibInflater(gzipMembers: true)
        case .deflate: ZlibInflater(gzipMembers: false)
        case .brotli: BrotliDecodingStage()
        case .zstd: ZstdDecodingStage()
        }
    }
}

/// One coding being undone, fed the encoded bytes in pieces as they arrive; what it produces goes to
/// a sink in pieces of at most one scratch buffer, never kept.
protocol ContentDecodingStage: AnyObject {
    /// Input bytes consumed so far (for the decoding ratio).
    var consumed: Int { get }
    /// The input was corrupt: nothing more is decoded.
    var failed: Bool { get }
    /// Decodes `input` through `scratch` (`size` bytes), handing each produced piece to `sink` (false:
    /// stop). Returns false when stopped by the sink or on corrupt data. Bytes after the end of a gzip,
    /// deflate or br stream are consumed and ignored; a zstd body is frames back to back, so anything
    /// else after a frame is corrupt data.
    func feed(
        _ input: UnsafeRawBufferPointer, scratch: UnsafeMutablePointer<UInt8>, size: Int,
        sink: (UnsafeRawBufferPointer) -> Bool
    ) -> Bool
}

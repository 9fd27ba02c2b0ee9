/// The header fields the parser acts on once a header block is complete (body framing, upgrades,
/// content codings), recognised from the raw bytes of each header line as it is parsed, so the block
/// need not be searched by name afterwards.
enum NotableHeader {
    case transferEncoding
    case contentLength
    case upgrade
    case contentEncoding

    /// The notable header a header name (raw bytes, any case) names; nil for any other name.
    init?(name: UnsafeRawBufferPointer) {
        switch name.count {
        case 17 where HTTP1Syntax.bytesEqual(name, "transfer-encoding"): self = .transferEncoding
        case 14 where HTTP1Syntax.bytesEqual(name, "content-length"): self = .contentLength
        case 7 where HTTP1Syntax.bytesEqual(name, "upgrade"): self = .upgrade
        case 16 where HTTP1Syntax.bytesEqual(name, "content-encoding"): self = .contentEncoding
        default: return nil
        }
    }
}

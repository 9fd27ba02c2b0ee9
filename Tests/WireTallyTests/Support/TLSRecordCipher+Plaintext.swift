@testable import WireTally

/// The tests' way to open one TLS 1.3 record from byte collections into its own plaintext (the
/// analysis opens every record from its buffers in place: `openTLS13(header:sealed:sequence:)` on raw buffers).
extension TLSRecordCipher {
    /// What opening a TLS 1.3 record gave: the inner content type and the content without padding.
    struct TLS13Plaintext: Sendable, Equatable {
        /// The real content type (21 alert, 22 handshake, 23 application data).
        var contentType: UInt8
        var content: [UInt8]
    }

    /// Opens TLS 1.3 record number `sequence` of this direction: `header` is its 5-byte header,
    /// `body` the encrypted content and the 16-byte tag. Nil when it does not authenticate (wrong key,
    /// wrong sequence number, damaged bytes) or has no content type (all padding).
    func openTLS13(header: some Collection<UInt8>, body: some Collection<UInt8>, sequence: UInt64) -> TLS13Plaintext? {
        var sealed = [UInt8](repeating: 0, count: Self.nonceRoom) + body
        let opened = Array(header).withUnsafeBytes { header in
            sealed.withUnsafeMutableBytes { openTLS13(header: header, sealed: $0, sequence: sequence) }
        }
        return opened.map { TLS13Plaintext(contentType: $0.contentType, content: [UInt8]($0.content)) }
    }
}

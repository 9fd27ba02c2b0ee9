import Crypto

/// The AEAD protection of TLS records for one direction of one connection, and the keys it is built
/// from: TLS 1.3 traffic keys from a traffic secret (RFC 8446 §7.3, HKDF-Expand-Label), records opened
/// with the per-record nonce (RFC 8446 §5.3: the IV XOR the 64-bit sequence number) and the record
/// header as additional data (§5.2). All cryptography is swift-crypto's.
public struct TLSRecordCipher {
    /// An AEAD algorithm of the record layer.
    public enum Algorithm: Sendable, Equatable {
        case aes128GCM, aes256GCM, chaCha20Poly1305

        var keyLength: Int { self == .aes128GCM ? 16 : 32 }
    }

    public let algorithm: Algorithm
    let key: SymmetricKey
    let iv: [UInt8]

    /// The cipher of a TLS 1.3 direction whose traffic secret is `secret` (handshake or application);
    /// nil for a suite whose records wiretally cannot open (CCM).
    public init?(tls13 suite: TLSCipherSuite, trafficSecret secret: [UInt8]) {
        guard suite.protection == .tls13AEAD, let algorithm = suite.aeadAlgorithm else { return nil }
        self.algorithm = algorithm
        key = SymmetricKey(data: Self.expandLabel(secret, "key", length: algorithm.keyLength, sha384: suite.usesSHA384))
        iv = Self.expandLabel(secret, "iv", length: 12, sha384: suite.usesSHA384)
    }

    /// HKDF-Expand-Label(secret, label, "", length) of RFC 8446 §7.1.
    static func expandLabel(_ secret: [UInt8], _ label: String, length: Int, sha384: Bool) -> [UInt8] {
        let fullLabel = Array("tls13 \(label)".utf8)
        let info = [UInt8(length >> 8), UInt8(length & 0xff), UInt8(fullLabel.count)] + fullLabel + [0]
        let key = SymmetricKey(data: secret)
        let output = sha384
            ? HKDF<SHA384>.expand(pseudoRandomKey: key, info: info, outputByteCount: length)
            : HKDF<SHA256>.expand(pseudoRandomKey: key, info: info, outputByteCount: length)
        return output.withUnsafeBytes { Array($0) }
    }

    /// The nonce of record number `sequence`: the IV XOR the sequence number, right-aligned.
    func nonce(_ sequence: UInt64) -> [UInt8] {
        var nonce = iv
        for index in 0 ..< 8 { nonce[nonce.count - 1 - index] ^= UInt8(truncatingIfNeeded: sequence >> (8 * UInt64(index))) }
        return nonce
    }

    /// What opening a TLS 1.3 record gave: the inner content type and the content without padding.
    public struct TLS13Plaintext: Sendable, Equatable {
        /// The real content type (21 alert, 22 handshake, 23 application data).
        public var contentType: UInt8
        public var content: [UInt8]
    }

    /// Opens TLS 1.3 record number `sequence` of this direction: `header` is its 5-byte header,
    /// `body` the encrypted content and the 16-byte tag. Nil when it does not authenticate (wrong key,
    /// wrong sequence number, damaged bytes) or has no content type (all padding).
    public func openTLS13(header: some Collection<UInt8>, body: some Collection<UInt8>, sequence: UInt64) -> TLS13Plaintext? {
        guard body.count >= 17, let plaintext = open(body, additionalData: Array(header), sequence: sequence),
              let typeIndex = plaintext.lastIndex(where: { $0 != 0 }) else { return nil }
        return TLS13Plaintext(contentType: plaintext[typeIndex], content: Array(plaintext[..<typeIndex]))
    }

    /// AEAD-opens ciphertext followed by its 16-byte tag with the nonce of `sequence`.
    func open(_ sealed: some Collection<UInt8>, additionalData: [UInt8], sequence: UInt64) -> [UInt8]? {
        let bytes = Array(sealed)
        guard bytes.count >= 16 else { return nil }
        let ciphertext = bytes[..<(bytes.count - 16)], tag = bytes[(bytes.count - 16)...]
        let nonce = nonce(sequence)
        do {
            switch algorithm {
            case .aes128GCM, .aes256GCM:
                let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: nonce), ciphertext: ciphertext, tag: tag)
                return Array(try AES.GCM.open(box, using: key, authenticating: additionalData))
            case .chaCha20Poly1305:
                let box = try ChaChaPoly.SealedBox(nonce: ChaChaPoly.Nonce(data: nonce), ciphertext: ciphertext, tag: tag)
                return Array(try ChaChaPoly.open(box, using: key, authenticating: additionalData))
            }
        } catch {
            return nil
        }
    }
}

extension TLSCipherSuite {
    /// The AEAD that protects the suite's records, when swift-crypto has it (AES-GCM, ChaCha20-Poly1305;
    /// not CCM, not CBC or stream suites).
    public var aeadAlgorithm: TLSRecordCipher.Algorithm? {
        guard let name else { return nil }
        if name.contains("CHACHA20_POLY1305") { return .chaCha20Poly1305 }
        if name.contains("AES_128_GCM") { return .aes128GCM }
        if name.contains("AES_256_GCM") { return .aes256GCM }
        return nil
    }

    /// The suite's hash (HKDF in TLS 1.3, the PRF in TLS 1.2) is SHA-384 rather than SHA-256.
    public var usesSHA384: Bool { name?.hasSuffix("SHA384") == true }
}

import Crypto

/// The AEAD protection of TLS records for one direction of one connection, and the keys it is built
/// from. All cryptography is swift-crypto's.
/// - TLS 1.3: traffic keys from a traffic secret (RFC 8446 §7.3, HKDF-Expand-Label), the per-record
///   nonce the IV XOR the 64-bit sequence number (§5.3), the record header as additional data (§5.2).
/// - TLS 1.2 AEAD suites: keys from the key block (RFC 5246 §6.3, the PRF over the master secret and
///   both randoms); AES-GCM nonce = 4-byte implicit salt + the record's 8-byte explicit nonce
///   (RFC 5288 §3), ChaCha20-Poly1305 nonce = IV XOR sequence number (RFC 7905 §2); additional data =
///   sequence number, type, version, plaintext length (RFC 5246 §6.2.3.3).
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

    /// The cipher of one TLS 1.2 direction (`client`: the client's writes) of a connection with an AEAD
    /// suite; nil for other suites.
    public init?(tls12 suite: TLSCipherSuite, masterSecret: [UInt8], clientRandom: [UInt8], serverRandom: [UInt8], client: Bool) {
        guard suite.protection != .tls13AEAD, let algorithm = suite.aeadAlgorithm else { return nil }
        self.algorithm = algorithm
        let ivLength = algorithm == .chaCha20Poly1305 ? 12 : 4
        let block = Self.prf(masterSecret, "key expansion", seed: serverRandom + clientRandom,
                             length: 2 * (algorithm.keyLength + ivLength), sha384: suite.usesSHA384)
        let keys = client ? 0 : algorithm.keyLength, ivs = 2 * algorithm.keyLength + (client ? 0 : ivLength)
        key = SymmetricKey(data: block[keys ..< keys + algorithm.keyLength])
        iv = Array(block[ivs ..< ivs + ivLength])
    }

    /// The TLS 1.2 PRF (RFC 5246 §5): P_hash(secret, label + seed) with HMAC-SHA256 or HMAC-SHA384.
    static func prf(_ secret: [UInt8], _ label: String, seed: [UInt8], length: Int, sha384: Bool) -> [UInt8] {
        let labelAndSeed = Array(label.utf8) + seed
        return sha384 ? pHash(SHA384.self, secret, labelAndSeed, length) : pHash(SHA256.self, secret, labelAndSeed, length)
    }

    private static func pHash<Hash: HashFunction>(_: Hash.Type, _ secret: [UInt8], _ seed: [UInt8], _ length: Int) -> [UInt8] {
        let key = SymmetricKey(data: secret)
        var output: [UInt8] = [], a = seed
        while output.count < length {
            a = Array(HMAC<Hash>.authenticationCode(for: a, using: key))
            output += Array(HMAC<Hash>.authenticationCode(for: a + seed, using: key))
        }
        return Array(output.prefix(length))
    }

    /// Opens TLS 1.2 record number `sequence` of this direction (`header`: its 5 bytes; `body`: for
    /// AES-GCM the explicit nonce, ciphertext and tag, for ChaCha20-Poly1305 ciphertext and tag); nil
    /// when it does not authenticate.
    public func openTLS12(header: some Collection<UInt8>, body: some Collection<UInt8>, sequence: UInt64) -> [UInt8]? {
        let header = Array(header), body = Array(body)
        let explicitNonce = algorithm == .chaCha20Poly1305 ? 0 : 8
        guard header.count == 5, body.count >= explicitNonce + 16 else { return nil }
        let length = body.count - explicitNonce - 16
        let additionalData = Self.bigEndian(sequence) + [header[0], header[1], header[2], UInt8(length >> 8), UInt8(length & 0xff)]
        let nonce = explicitNonce == 0 ? nonce(sequence) : iv + body[..<explicitNonce]
        return open(body[explicitNonce...], nonce: nonce, additionalData: additionalData)
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

    /// The nonce of record number `sequence` (TLS 1.3, TLS 1.2 ChaCha20): the IV XOR the sequence
    /// number, right-aligned.
    func nonce(_ sequence: UInt64) -> [UInt8] {
        var nonce = iv
        for (index, byte) in Self.bigEndian(sequence).enumerated() { nonce[nonce.count - 8 + index] ^= byte }
        return nonce
    }

    /// The 8 bytes of a record sequence number, most significant first.
    static func bigEndian(_ sequence: UInt64) -> [UInt8] {
        (0 ..< 8).reversed().map { UInt8(truncatingIfNeeded: sequence >> (8 * UInt64($0))) }
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
        guard body.count >= 17, let plaintext = open(body, nonce: nonce(sequence), additionalData: Array(header)),
              let typeIndex = plaintext.lastIndex(where: { $0 != 0 }) else { return nil }
        return TLS13Plaintext(contentType: plaintext[typeIndex], content: Array(plaintext[..<typeIndex]))
    }

    /// AEAD-opens ciphertext followed by its 16-byte tag.
    func open(_ sealed: some Collection<UInt8>, nonce: [UInt8], additionalData: [UInt8]) -> [UInt8]? {
        let bytes = Array(sealed)
        guard bytes.count >= 16 else { return nil }
        let ciphertext = bytes[..<(bytes.count - 16)], tag = bytes[(bytes.count - 16)...]
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

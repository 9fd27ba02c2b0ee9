import Crypto
import FoundationEssentials

/// Opens AEAD-sealed bytes with swift-crypto: the one place TLS records (`TLSRecordCipher`) and QUIC
/// packets (`QUICPacketProtection`) are authenticated and decrypted. The bytes are read in place from
/// the caller's buffer, nonce, ciphertext and tag laid out together (`sealed`) as swift-crypto's
/// `SealedBox(combined:)` takes them: the box copies them into its `Data` once, in one `memcpy` (its
/// `init(nonce:ciphertext:tag:)` appends the three parts through generic `Data` appends, each a
/// run-time protocol cast, and ChaCha20-Poly1305's concatenates them with `+`, copying the ciphertext
/// twice). The plaintext is the `Data` swift-crypto returns, handed on as it is (TLS records are parsed
/// from it without a copy). Per record the only allocations left are swift-crypto's own: no
/// swift-crypto release (3.12 to 4.5) has an in-place open or a kept AEAD context — its sealed box
/// copies the bytes into a `Data`, `open` sets up a BoringSSL `EVP_AEAD_CTX` and returns a new `Data`
/// — and BoringSSL itself (`CCryptoBoringSSL`) is not a product of the package.
enum AEADOpening {
    /// Length of the nonce at the start of `sealed`.
    static let nonceLength = 12

    /// Opens `sealed` — the 12-byte nonce, the ciphertext and the `algorithm`'s tag, in that order —
    /// under `key` (the `algorithm`'s AEAD) with `additionalData`: the plaintext, or nil when it does not
    /// authenticate or `algorithm` is not an AEAD.
    static func open(_ algorithm: TLSRecordCipher.Algorithm, key: SymmetricKey, sealed: UnsafeRawBufferPointer,
                     additionalData: UnsafeRawBufferPointer) -> Data? {
        let tagLength = algorithm.tagLength
        guard algorithm.isAEAD, sealed.count >= nonceLength + tagLength else { return nil }
        do {
            switch algorithm {
            case .aes128GCM, .aes256GCM:
                return try AES.GCM.open(AES.GCM.SealedBox(combined: sealed), using: key, authenticating: additionalData)
            case .chaCha20Poly1305:
                return try ChaChaPoly.open(ChaChaPoly.SealedBox(combined: sealed), using: key, authenticating: additionalData)
            case .aes128CCM, .aes256CCM, .aes128CCM8, .aes256CCM8:
                let tagStart = sealed.count - tagLength
                return AESCCM.open(ArraySlice(sealed[nonceLength ..< tagStart]), tag: ArraySlice(sealed[tagStart...]), key: key,
                                   nonce: Array(sealed[..<nonceLength]), additionalData: Array(additionalData)).map { Data($0) }
            case .aes128CBC, .aes256CBC:
                return nil  // not an AEAD: TLSRecordCipher.openCBC
            }
        } catch {
            return nil
        }
    }

    /// Opens `ciphertext` sealed with `tag` under `key` with `nonce` (12 bytes) and `additionalData`,
    /// the three apart in the caller's buffers (a QUIC packet): laid out together in a temporary
    /// buffer, then opened as `open(_:key:sealed:additionalData:)` does.
    static func open(_ algorithm: TLSRecordCipher.Algorithm, key: SymmetricKey, nonce: UnsafeRawBufferPointer,
                     ciphertext: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer,
                     additionalData: UnsafeRawBufferPointer) -> Data? {
        guard nonce.count == nonceLength else { return nil }
        return withUnsafeTemporaryAllocation(byteCount: nonce.count + ciphertext.count + tag.count, alignment: 16) { sealed in
            var index = 0
            func put(_ part: UnsafeRawBufferPointer) {
                UnsafeMutableRawBufferPointer(rebasing: sealed[index ..< index + part.count]).copyMemory(from: part)
                index += part.count
            }
            put(nonce)
            put(ciphertext)
            put(tag)
            return open(algorithm, key: key, sealed: UnsafeRawBufferPointer(sealed), additionalData: additionalData)
        }
    }
}

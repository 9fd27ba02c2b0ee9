import Crypto
import Foundation

/// Opens AEAD-sealed bytes with swift-crypto: the one place TLS records (`TLSRecordCipher`) and QUIC
/// packets (`QUICPacketProtection`) are authenticated and decrypted. Everything is read in place from
/// the caller's buffers (record body, packet, nonce and additional data built on the stack), and the
/// plaintext is the `Data` swift-crypto returns, handed on as it is (TLS records are parsed from it
/// without a copy). Per record the only allocations left are swift-crypto's own: no swift-crypto
/// release (3.12 to 4.5) has an in-place open or a kept AEAD context — its sealed box copies the
/// ciphertext into a `Data`, `open` sets up a BoringSSL `EVP_AEAD_CTX` and returns a new `Data` —
/// and BoringSSL itself (`CCryptoBoringSSL`) is not a product of the package.
enum AEADOpening {
    /// Opens `ciphertext` sealed with `tag` under `key` (the `algorithm`'s AEAD) with `nonce` (12 bytes)
    /// and `additionalData`: the plaintext, or nil when it does not authenticate or `algorithm` is not
    /// an AEAD.
    static func open(_ algorithm: TLSRecordCipher.Algorithm, key: SymmetricKey, nonce: UnsafeRawBufferPointer,
                     ciphertext: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer,
                     additionalData: UnsafeRawBufferPointer) -> Data? {
        do {
            switch algorithm {
            case .aes128GCM, .aes256GCM:
                let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: nonce), ciphertext: ciphertext, tag: tag)
                return try AES.GCM.open(box, using: key, authenticating: additionalData)
            case .chaCha20Poly1305:
                let box = try ChaChaPoly.SealedBox(nonce: ChaChaPoly.Nonce(data: nonce), ciphertext: ciphertext, tag: tag)
                return try ChaChaPoly.open(box, using: key, authenticating: additionalData)
            case .aes128CCM, .aes256CCM, .aes128CCM8, .aes256CCM8:
                return AESCCM.open(ArraySlice(ciphertext), tag: ArraySlice(tag), key: key, nonce: Array(nonce),
                                   additionalData: Array(additionalData)).map { Data($0) }
            case .aes128CBC, .aes256CBC:
                return nil  // not an AEAD: TLSRecordCipher.openCBC
            }
        } catch {
            return nil
        }
    }
}

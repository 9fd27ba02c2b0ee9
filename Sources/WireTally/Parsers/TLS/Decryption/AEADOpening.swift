import Crypto
import Foundation

/// Opens AEAD-sealed bytes with swift-crypto: the one place TLS records (`TLSRecordCipher`) and QUIC
/// packets (`QUICPacketProtection`) are authenticated and decrypted. Everything is read in place from
/// the caller's buffers (record body, packet, nonce and additional data built on the stack), and the
/// plaintext is appended to a buffer the caller may reuse from record to record: per record the only
/// allocations left are swift-crypto's own (3.12 has no in-place open: its sealed box copies the
/// ciphertext into a `Data`, and `open` returns a new `Data`).
enum AEADOpening {
    /// Opens `ciphertext` sealed with `tag` under `key` (the `algorithm`'s AEAD) with `nonce` (12 bytes)
    /// and `additionalData`, appending the plaintext to `plaintext`. False when it does not authenticate
    /// (`plaintext` is then unchanged) or `algorithm` is not an AEAD.
    static func open(_ algorithm: TLSRecordCipher.Algorithm, key: SymmetricKey, nonce: UnsafeRawBufferPointer,
                     ciphertext: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer,
                     additionalData: UnsafeRawBufferPointer, appendingTo plaintext: inout [UInt8]) -> Bool {
        do {
            switch algorithm {
            case .aes128GCM, .aes256GCM:
                let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: nonce), ciphertext: ciphertext, tag: tag)
                try AES.GCM.open(box, using: key, authenticating: additionalData).withUnsafeBytes { plaintext.append(contentsOf: $0) }
            case .chaCha20Poly1305:
                let box = try ChaChaPoly.SealedBox(nonce: ChaChaPoly.Nonce(data: nonce), ciphertext: ciphertext, tag: tag)
                try ChaChaPoly.open(box, using: key, authenticating: additionalData).withUnsafeBytes { plaintext.append(contentsOf: $0) }
            case .aes128CCM, .aes256CCM, .aes128CCM8, .aes256CCM8:
                guard let opened = AESCCM.open(ArraySlice(ciphertext), tag: ArraySlice(tag), key: key, nonce: Array(nonce),
                                               additionalData: Array(additionalData)) else { return false }
                plaintext.append(contentsOf: opened)
            case .aes128CBC, .aes256CBC:
                return false  // not an AEAD: TLSRecordCipher.openCBC
            }
            return true
        } catch {
            return false
        }
    }
}

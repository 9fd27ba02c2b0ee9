import Crypto
import _CryptoExtras
import FoundationEssentials

/// AES-CCM for the TLS CCM suites (RFC 6655 for TLS 1.2, RFC 8446 for TLS 1.3's
/// TLS_AES_128_CCM_SHA256 and TLS_AES_128_CCM_8_SHA256), which swift-crypto has no AEAD for.
///
/// CCM (NIST SP 800-38C, RFC 3610) is CTR-mode encryption plus a CBC-MAC, both with the same AES key;
/// it is composed here from swift-crypto's AES primitives, no cipher is written by hand: the payload
/// is decrypted with `AES._CTR` from counter block A1, the CBC-MAC is the last block of
/// `AES._CBC.encrypt(noPadding:)` under a zero IV over the formatted blocks B0 ‖ AAD ‖ payload, and the
/// tag is encrypted with the block function `AES.permute` of counter block A0. TLS uses a 12-byte nonce,
/// so the length field is L = 3 bytes (15 − 12) and the tag M is 16 bytes, or 8 for the `_CCM_8` suites.
enum AESCCM {
    /// Opens CCM `ciphertext` whose tag (16 or 8 bytes) is `tag`, under `key` (AES-128 or AES-256) with
    /// a 12-byte `nonce`; nil when the tag does not match.
    static func open(_ ciphertext: ArraySlice<UInt8>, tag: ArraySlice<UInt8>, key: SymmetricKey, nonce: [UInt8],
                     additionalData: [UInt8]) -> [UInt8]? {
        let tagLength = tag.count, lengthFieldBytes = 3
        guard tagLength == 16 || tagLength == 8, nonce.count == 12, additionalData.count < 0xFF00 else { return nil }
        guard ciphertext.count < 1 << (8 * lengthFieldBytes) else { return nil }
        do {
            // counter blocks A_i = flags (L − 1) ‖ nonce ‖ i (3 bytes)
            var counter0 = [UInt8(lengthFieldBytes - 1)] + nonce + [0, 0, 0]
            var counter1 = counter0
            counter1[15] = 1
            let plaintext = Array(try AES._CTR.decrypt(ciphertext, using: key, nonce: AES._CTR.Nonce(nonceBytes: counter1)))
            // B0 = flags (Adata, (M − 2) / 2, L − 1) ‖ nonce ‖ payload length; then the AAD with its 2-byte
            // length, zero-padded to a block; then the payload, zero-padded
            let flags = UInt8(additionalData.isEmpty ? 0 : 0x40) | UInt8((tagLength - 2) / 2) << 3 | UInt8(lengthFieldBytes - 1)
            let length = plaintext.count
            var blocks = [flags] + nonce + [UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
            if !additionalData.isEmpty {
                blocks += [UInt8(additionalData.count >> 8), UInt8(additionalData.count & 0xFF)] + additionalData
                blocks += [UInt8](repeating: 0, count: (16 - blocks.count % 16) % 16)
            }
            blocks += plaintext
            blocks += [UInt8](repeating: 0, count: (16 - blocks.count % 16) % 16)
            let chain = try AES._CBC.encrypt(blocks, using: key, iv: AES._CBC.IV(ivBytes: [UInt8](repeating: 0, count: 16)),
                                             noPadding: true)
            try AES.permute(&counter0, key: key)  // E(A0): the tag's key stream
            var difference: UInt8 = 0
            for index in 0 ..< tagLength {
                difference |= chain[chain.count - 16 + index] ^ counter0[index] ^ tag[tag.startIndex + index]
            }
            return difference == 0 ? plaintext : nil
        } catch {
            return nil
        }
    }
}

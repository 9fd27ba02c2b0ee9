import Crypto
import _CryptoExtras

/// TLS 1.1/1.2 block-cipher records: AES-CBC with an explicit IV per record and an HMAC
/// (RFC 5246 §6.2.3.1–6.2.3.2), MAC-then-encrypt or encrypt-then-MAC (RFC 7366 §3). The AES and HMAC
/// computations are swift-crypto's (`_CryptoExtras` `AES._CBC` without its PKCS#7 unpadding, `Crypto`
/// `HMAC`); this file only lays the record out and checks the TLS padding.
extension TLSRecordCipher {
    /// Opens a CBC record: `body` is the explicit IV (16 bytes) followed by
    /// - MAC-then-encrypt: CBC(content + MAC + padding + padding length), the MAC over
    ///   seq_num + type + version + content length + content;
    /// - encrypt-then-MAC: CBC(content + padding + padding length) + MAC, the MAC over
    ///   seq_num + type + version + length of IV and ciphertext + IV + ciphertext, checked first.
    /// Padding: `padding length` bytes each equal to `padding length` (0…255), then that byte.
    /// Nil when the lengths do not fit the block size, the padding is malformed or the MAC is wrong.
    /// `implicitIV`: TLS 1.0, whose records carry no IV (the previous record's last ciphertext block
    /// is it); then the body starts with the ciphertext and an encrypt-then-MAC MAC covers only that.
    func openCBC(header: [UInt8], body: [UInt8], sequence: UInt64, implicitIV: [UInt8]? = nil) -> [UInt8]? {
        guard let mac else { return nil }
        let blockSize = 16, macLength = mac.length
        let ivInBody = implicitIV == nil ? blockSize : 0
        let encryptedLength = encryptThenMAC ? body.count - macLength - ivInBody : body.count - ivInBody
        // at least one block of ciphertext, whole blocks only; MtE: room for the MAC and the length byte
        guard encryptedLength >= blockSize, encryptedLength % blockSize == 0,
              encryptThenMAC || encryptedLength >= macLength + 1 else { return nil }
        let sequenceAndHeader = Self.bigEndian(sequence) + header[0 ..< 3]
        if encryptThenMAC {
            let protected = body[..<(ivInBody + encryptedLength)], length = protected.count
            let macInput = sequenceAndHeader + [UInt8(length >> 8), UInt8(length & 0xff)] + protected
            guard authenticate(mac, macInput, code: body[(ivInBody + encryptedLength)...]) else { return nil }
        }
        guard let decrypted = decryptCBC(iv: implicitIV.map { $0[...] } ?? body[..<blockSize],
                                         body[ivInBody ..< (ivInBody + encryptedLength)]),
              let paddingLength = decrypted.last.map(Int.init) else { return nil }
        let contentAndMAC = decrypted.count - paddingLength - 1
        guard contentAndMAC >= (encryptThenMAC ? 0 : macLength),
              decrypted[contentAndMAC ..< (decrypted.count - 1)].allSatisfy({ Int($0) == paddingLength }) else { return nil }
        if encryptThenMAC { return Array(decrypted[..<contentAndMAC]) }
        let contentLength = contentAndMAC - macLength
        let content = decrypted[..<contentLength]
        let macInput = sequenceAndHeader + [UInt8(contentLength >> 8), UInt8(contentLength & 0xff)] + content
        guard authenticate(mac, macInput, code: decrypted[contentLength ..< contentAndMAC]) else { return nil }
        return Array(content)
    }

    /// AES-CBC decryption of whole blocks, no padding removed (TLS padding is not PKCS#7).
    private func decryptCBC(iv: ArraySlice<UInt8>, _ ciphertext: ArraySlice<UInt8>) -> [UInt8]? {
        guard let iv = try? AES._CBC.IV(ivBytes: iv),
              let plaintext = try? AES._CBC.decrypt(ciphertext, using: key, iv: iv, noPadding: true) else { return nil }
        return Array(plaintext)
    }

    /// Whether `code` is the HMAC of `data` under this direction's MAC key (swift-crypto compares).
    private func authenticate(_ mac: MAC, _ data: [UInt8], code: ArraySlice<UInt8>) -> Bool {
        let code = Array(code)
        switch mac {
        case .hmacSHA1: return HMAC<Insecure.SHA1>.isValidAuthenticationCode(code, authenticating: data, using: macKey)
        case .hmacSHA256: return HMAC<SHA256>.isValidAuthenticationCode(code, authenticating: data, using: macKey)
        case .hmacSHA384: return HMAC<SHA384>.isValidAuthenticationCode(code, authenticating: data, using: macKey)
        }
    }
}

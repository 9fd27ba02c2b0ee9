import Crypto
import FoundationEssentials

/// The protection of TLS records for one direction of one connection, and the keys it is built from.
/// All cryptography is swift-crypto's (`Crypto`, and `_CryptoExtras` for AES-CBC and the AES-CTR, AES-CBC and
/// AES block function CCM is composed of: `AESCCM`).
/// - TLS 1.3: traffic keys from a traffic secret (RFC 8446 §7.3, HKDF-Expand-Label), the per-record
///   nonce the IV XOR the 64-bit sequence number (§5.3), the record header as additional data (§5.2);
///   after a KeyUpdate the next secret is `nextTrafficSecret` (§7.2).
/// - TLS 1.2 AEAD suites: keys from the key block (RFC 5246 §6.3, the PRF over the master secret and
///   both randoms); AES-GCM nonce = 4-byte implicit salt + the record's 8-byte explicit nonce
///   (RFC 5288 §3), ChaCha20-Poly1305 nonce = IV XOR sequence number (RFC 7905 §2); additional data =
///   sequence number, type, version, plaintext length (RFC 5246 §6.2.3.3).
/// - TLS 1.2 (and 1.1) CBC suites: AES-128/256-CBC with HMAC-SHA1/SHA256/SHA384 and a per-record
///   explicit IV (RFC 5246 §6.2.3.2); MAC-then-encrypt by default, encrypt-then-MAC when the
///   extension was negotiated (RFC 7366). See `TLSRecordCipher+CBC.swift`.
/// A class, not a struct: the decryptor hands its direction's cipher on for every record, and a struct
/// copy retained and released each of its keys and IV.
package final class TLSRecordCipher {
    /// The bulk cipher of the record layer: an AEAD, or AES in CBC mode (then `mac` is its HMAC).
    package enum Algorithm: Sendable, Equatable {
        case aes128GCM, aes256GCM, chaCha20Poly1305
        /// AES-CCM with a 16-byte tag, and with an 8-byte tag (the `_CCM_8` suites).
        case aes128CCM, aes256CCM, aes128CCM8, aes256CCM8
        /// AES in CBC mode with an explicit IV per record (TLS 1.1 and later) and an HMAC.
        case aes128CBC, aes256CBC

        var keyLength: Int {
            switch self {
            case .aes128GCM, .aes128CCM, .aes128CCM8, .aes128CBC: return 16
            case .aes256GCM, .aes256CCM, .aes256CCM8, .aes256CBC, .chaCha20Poly1305: return 32
            }
        }

        /// The AEAD tag's length: 16, 8 for the `_CCM_8` suites, 0 for CBC (its MAC is `MAC.length`).
        var tagLength: Int {
            switch self {
            case .aes128CCM8, .aes256CCM8: return 8
            case .aes128CBC, .aes256CBC: return 0
            default: return 16
            }
        }

        /// Whether it is an AEAD (GCM, CCM, ChaCha20-Poly1305) rather than CBC + HMAC.
        package var isAEAD: Bool { self != .aes128CBC && self != .aes256CBC }
    }

    /// The HMAC of a CBC suite (RFC 5246 §6.2.3.1; SHA-1 in the `_SHA` suites).
    package enum MAC: Sendable, Equatable {
        case hmacSHA1, hmacSHA256, hmacSHA384

        /// The MAC's length on the wire, which is also its key's length (RFC 5246 §6.3).
        package var length: Int {
            switch self {
            case .hmacSHA1: return 20
            case .hmacSHA256: return 32
            case .hmacSHA384: return 48
            }
        }
    }

    package let algorithm: Algorithm
    /// The HMAC of a CBC suite; nil for the AEAD suites.
    package let mac: MAC?
    /// CBC only: records are encrypted then MACed (RFC 7366, the `encrypt_then_mac` extension was in
    /// both hellos); false for the AEAD suites, to which the extension does not apply.
    package let encryptThenMAC: Bool
    let key: SymmetricKey
    let iv: [UInt8]
    /// The HMAC key of a CBC suite (empty for the AEAD suites).
    let macKey: SymmetricKey
    /// Bytes of a record body before the ciphertext: the TLS 1.2 AES-GCM explicit nonce (8), the CBC
    /// explicit IV (16); 0 for ChaCha20-Poly1305, TLS 1.0 CBC and TLS 1.3.
    let explicitIVLength: Int
    /// TLS 1.0 CBC: no explicit IV, each record's IV is the previous record's last ciphertext block.
    package let chainedIV: Bool

    /// The cipher of a TLS 1.3 direction whose traffic secret is `secret` (handshake or application);
    /// nil for a suite that is not a TLS 1.3 AEAD suite.
    package init?(tls13 suite: TLSCipherSuite, trafficSecret secret: [UInt8]) {
        guard suite.protection == .tls13AEAD, let algorithm = suite.aeadAlgorithm else { return nil }
        self.algorithm = algorithm
        mac = nil
        encryptThenMAC = false
        macKey = SymmetricKey(data: [UInt8]())
        explicitIVLength = 0
        chainedIV = false
        key = SymmetricKey(data: Self.expandLabel(secret, "key", length: algorithm.keyLength, sha384: suite.usesSHA384))
        iv = Self.expandLabel(secret, "iv", length: 12, sha384: suite.usesSHA384)
    }

    /// The traffic secret that follows `secret` after a KeyUpdate (RFC 8446 §7.2):
    /// HKDF-Expand-Label(secret, "traffic upd", "", hash length), with the suite's hash (`sha384`:
    /// TLS_AES_256_GCM_SHA384, else SHA-256). The sequence number starts again at 0 under it.
    package static func nextTrafficSecret(_ secret: [UInt8], sha384: Bool) -> [UInt8] {
        expandLabel(secret, "traffic upd", length: sha384 ? 48 : 32, sha384: sha384)
    }

    /// The cipher of one TLS 1.2 direction (`client`: the client's writes) of a connection with an AEAD
    /// suite (AES-GCM, ChaCha20-Poly1305) or an AES-CBC suite with HMAC-SHA1/SHA256/SHA384.
    /// `encryptThenMAC`: the connection negotiated RFC 7366 (extension 22 in the ClientHello and the
    /// ServerHello); it only changes CBC suites. `version`: the negotiated version's wire code — TLS 1.0
    /// and 1.1 derive the key block with their PRF (MD5 ⊕ SHA-1, RFC 4346 §5), and TLS 1.0 CBC records
    /// have no explicit IV: each chains from the previous record's last ciphertext block, the first from
    /// the key block's IV (`chainedIV`; open with `openChainedCBC`). Nil for other suites (3DES,
    /// RC4, NULL, Camellia…).
    package convenience init?(tls12 suite: TLSCipherSuite, masterSecret: [UInt8], clientRandom: [UInt8], serverRandom: [UInt8], client: Bool,
                 encryptThenMAC: Bool = false, version: UInt16 = 0x0303) {
        guard let block = Self.keyBlock(tls12: suite, masterSecret: masterSecret, clientRandom: clientRandom,
                                        serverRandom: serverRandom, version: version) else { return nil }
        self.init(tls12: suite, keyBlock: block, client: client, encryptThenMAC: encryptThenMAC, version: version)
    }

    /// The key block of a TLS 1.2 (1.1, 1.0) connection (RFC 5246 §6.3): client MAC key, server MAC
    /// key, client key, server key, client IV, server IV — both directions' keys, derived once per
    /// connection. AEAD suites have no MAC keys; CBC suites' IVs are used only in TLS 1.0. Nil for a
    /// suite whose records are not opened (see `init(tls12:keyBlock:client:encryptThenMAC:version:)`).
    static func keyBlock(tls12 suite: TLSCipherSuite, masterSecret: [UInt8], clientRandom: [UInt8], serverRandom: [UInt8],
                         version: UInt16) -> [UInt8]? {
        guard let layout = TLS12KeyLayout(suite: suite, version: version) else { return nil }
        let length = 2 * (layout.macLength + layout.algorithm.keyLength + layout.ivLength)
        return version < 0x0303
            ? Self.legacyPRF(masterSecret, "key expansion", seed: serverRandom + clientRandom, length: length)
            : Self.prf(masterSecret, "key expansion", seed: serverRandom + clientRandom, length: length, sha384: suite.usesSHA384)
    }

    /// The cipher of one TLS 1.2 direction taken from the connection's `keyBlock` (`keyBlock(tls12:…)`,
    /// the same suite and version); see `init(tls12:masterSecret:…)`.
    init?(tls12 suite: TLSCipherSuite, keyBlock block: [UInt8], client: Bool, encryptThenMAC: Bool, version: UInt16) {
        guard let layout = TLS12KeyLayout(suite: suite, version: version) else { return nil }
        let algorithm = layout.algorithm, macLength = layout.macLength, ivLength = layout.ivLength
        guard block.count == 2 * (macLength + algorithm.keyLength + ivLength) else { return nil }
        self.algorithm = algorithm
        mac = layout.mac
        chainedIV = layout.chainedIV
        self.encryptThenMAC = encryptThenMAC && !algorithm.isAEAD
        explicitIVLength = algorithm == .chaCha20Poly1305 || chainedIV ? 0 : algorithm.isAEAD ? 8 : 16
        let macs = client ? 0 : macLength
        let keys = 2 * macLength + (client ? 0 : algorithm.keyLength)
        let ivs = 2 * (macLength + algorithm.keyLength) + (client ? 0 : ivLength)
        macKey = SymmetricKey(data: block[macs ..< macs + macLength])
        key = SymmetricKey(data: block[keys ..< keys + algorithm.keyLength])
        iv = Array(block[ivs ..< ivs + ivLength])
    }

    /// What a TLS 1.2 suite's key block holds per direction.
    private struct TLS12KeyLayout {
        var algorithm: Algorithm
        var mac: MAC?
        var chainedIV: Bool
        var macLength: Int { mac?.length ?? 0 }
        /// The AEAD implicit IV (4, ChaCha20-Poly1305: 12); the TLS 1.0 CBC first IV (16); else 0.
        var ivLength: Int { algorithm.isAEAD ? (algorithm == .chaCha20Poly1305 ? 12 : 4) : chainedIV ? 16 : 0 }

        init?(suite: TLSCipherSuite, version: UInt16) {
            guard suite.protection != .tls13AEAD, let algorithm = suite.aeadAlgorithm ?? suite.cbcAlgorithm else { return nil }
            let mac = algorithm.isAEAD ? nil : suite.recordMAC
            guard algorithm.isAEAD || mac != nil else { return nil }
            self.algorithm = algorithm
            self.mac = mac
            chainedIV = !algorithm.isAEAD && version < 0x0302
        }
    }

    /// The TLS 1.0/1.1 PRF (RFC 4346 §5): P_MD5 over the secret's first half XOR P_SHA-1 over its
    /// second half (the halves overlap by a byte when the length is odd).
    static func legacyPRF(_ secret: [UInt8], _ label: String, seed: [UInt8], length: Int) -> [UInt8] {
        let half = (secret.count + 1) / 2
        let labelAndSeed = Array(label.utf8) + seed
        let md5 = pHash(Insecure.MD5.self, Array(secret.prefix(half)), labelAndSeed, length)
        let sha1 = pHash(Insecure.SHA1.self, Array(secret.suffix(half)), labelAndSeed, length)
        return zip(md5, sha1).map { $0 ^ $1 }
    }

    /// The TLS 1.2 PRF (RFC 5246 §5): P_hash(secret, label + seed) with HMAC-SHA256 or HMAC-SHA384.
    static func prf(_ secret: [UInt8], _ label: String, seed: [UInt8], length: Int, sha384: Bool) -> [UInt8] {
        let labelAndSeed = Array(label.utf8) + seed
        return sha384 ? pHash(SHA384.self, secret, labelAndSeed, length) : pHash(SHA256.self, secret, labelAndSeed, length)
    }

    private static func pHash<Hash: HashFunction>(_: Hash.Type, _ secret: [UInt8], _ seed: [UInt8], _ length: Int) -> [UInt8] {
        let key = SymmetricKey(data: secret)
        var output: [UInt8] = [], a = seed
        while output.count < length {  // the codes' bytes read in place (a generic copy is slow)
            a = HMAC<Hash>.authenticationCode(for: a, using: key).withUnsafeBytes { Array($0) }
            HMAC<Hash>.authenticationCode(for: a + seed, using: key).withUnsafeBytes { output.append(contentsOf: $0) }
        }
        return Array(output.prefix(length))
    }

    /// Opens a TLS 1.0 CBC record (`chainedIV`): `iv` is the previous record's last ciphertext block
    /// of this direction (the key block's IV, `initialIV`, for the first).
    package func openChainedCBC(header: [UInt8], body: [UInt8], sequence: UInt64, iv: [UInt8]) -> [UInt8]? {
        guard chainedIV, iv.count == 16 else { return nil }
        return openCBC(header: header, body: body, sequence: sequence, implicitIV: iv)
    }

    /// The first IV of a TLS 1.0 CBC direction (from the key block); empty otherwise.
    package var initialIV: [UInt8] { chainedIV ? iv : [] }

    /// Opens TLS 1.2 record number `sequence` of this direction (`header`: its 5 bytes; `body`: for
    /// AES-GCM the explicit nonce, ciphertext and tag, for ChaCha20-Poly1305 ciphertext and tag, for
    /// AES-CBC the explicit IV then the ciphertext of content + MAC + padding, or with encrypt-then-MAC
    /// the IV, the ciphertext of content + padding, then the MAC) and returns its content. Nil when it
    /// does not authenticate: a wrong key or sequence number, a damaged byte, a CBC record whose
    /// padding is malformed (every padding byte must equal the padding length) or whose MAC is wrong.
    package func openTLS12(header: some Collection<UInt8>, body: some Collection<UInt8>, sequence: UInt64) -> [UInt8]? {
        let header = Array(header)
        guard header.count == 5 else { return nil }
        if !algorithm.isAEAD { return openCBC(header: header, body: Array(body), sequence: sequence) }
        var sealed = [UInt8](repeating: 0, count: Self.nonceRoom) + body
        let opened = header.withUnsafeBytes { header in
            sealed.withUnsafeMutableBytes { openAEAD12(header: header, sealed: $0, sequence: sequence) }
        }
        return opened?.withUnsafeBytes { Array($0) }
    }

    /// Bytes of room a record body needs before it to be opened in place (`TLSProtectedRecord.sealed`):
    /// the 12-byte AEAD nonce is written there (TLS 1.2 AES-GCM and AES-CCM: the 4-byte implicit salt,
    /// just before the record's explicit nonce), so that nonce, ciphertext and tag lie together as
    /// swift-crypto's sealed box takes them.
    static let nonceRoom = 12

    /// Opens TLS 1.2 AEAD record number `sequence` (`header`: its 5 bytes; `sealed`: `nonceRoom` bytes
    /// of room, then the body: the explicit nonce of AES-GCM and AES-CCM, ciphertext, tag): its content,
    /// as swift-crypto returned it. Writes the nonce into the room. Nil when it does not authenticate or
    /// the suite is not an AEAD.
    func openAEAD12(header: UnsafeRawBufferPointer, sealed: UnsafeMutableRawBufferPointer, sequence: UInt64) -> Data? {
        let room = Self.nonceRoom, explicitNonce = explicitIVLength, tagLength = algorithm.tagLength
        guard algorithm.isAEAD, header.count == 5, sealed.count >= room + explicitNonce + tagLength,
              explicitNonce == 0 || iv.count + explicitNonce == room else { return nil }
        let length = sealed.count - room - explicitNonce - tagLength
        // the nonce: IV XOR sequence number in the room; or the implicit salt just before the explicit nonce
        let nonceStart = room + explicitNonce - 12
        if explicitNonce == 0 {
            writeNonce(sequence, into: UnsafeMutableRawBufferPointer(rebasing: sealed[..<room]))
        } else {
            iv.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: sealed[nonceStart ..< room]).copyMemory(from: $0) }
        }
        // additional data (RFC 5246 §6.2.3.3): sequence number, type, version, plaintext length
        return withUnsafeTemporaryAllocation(byteCount: 13, alignment: 8) { additionalData in
            for index in 0 ..< 8 { additionalData[index] = UInt8(truncatingIfNeeded: sequence >> (8 * UInt64(7 - index))) }
            UnsafeMutableRawBufferPointer(rebasing: additionalData[8 ..< 11]).copyMemory(
                from: UnsafeRawBufferPointer(rebasing: header[..<3]))
            additionalData[11] = UInt8(length >> 8)
            additionalData[12] = UInt8(length & 0xff)
            return AEADOpening.open(algorithm, key: key, sealed: UnsafeRawBufferPointer(rebasing: sealed[nonceStart...]),
                                    additionalData: UnsafeRawBufferPointer(additionalData))
        }
    }

    /// Where the content of a protected record sits in its body: `leading` bytes come before it (the
    /// AES-GCM explicit nonce: 8; the CBC explicit IV: 16; nothing for ChaCha20-Poly1305 and TLS 1.3),
    /// then the `plaintextLength` content bytes, then `trailing` bytes (the AEAD tag: 16, in TLS 1.3
    /// preceded by the inner content type and any zero padding; CBC: MAC + padding + the padding
    /// length byte, or with encrypt-then-MAC padding + padding length + MAC). Content byte `i` (as
    /// returned by `openTLS12`/`openTLS13`) is encrypted at body offset `leading + i` — for CBC too,
    /// where the content is the first part of the encrypted data — so `leading + plaintextLength +
    /// trailing == bodyLength`. `bodyLength` is the record's length field (the bytes after its 5-byte header);
    /// `plaintextLength` what opening it gave. Nil when the content cannot fit in the body.
    package func protectedLayout(bodyLength: Int, plaintextLength: Int) -> (leading: Int, trailing: Int)? {
        let leading = explicitIVLength
        guard plaintextLength >= 0, leading + plaintextLength <= bodyLength else { return nil }
        return (leading, bodyLength - leading - plaintextLength)
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

    /// Writes the nonce of record number `sequence` (TLS 1.3, TLS 1.2 ChaCha20) into `nonce` (12
    /// bytes): the IV XOR the sequence number, right-aligned.
    private func writeNonce(_ sequence: UInt64, into nonce: UnsafeMutableRawBufferPointer) {
        iv.withUnsafeBytes { nonce.copyMemory(from: $0) }
        for index in 0 ..< 8 { nonce[nonce.count - 1 - index] ^= UInt8(truncatingIfNeeded: sequence >> (8 * UInt64(index))) }
    }

    /// The 8 bytes of a record sequence number, most significant first.
    static func bigEndian(_ sequence: UInt64) -> [UInt8] {
        (0 ..< 8).reversed().map { UInt8(truncatingIfNeeded: sequence >> (8 * UInt64($0))) }
    }

    /// Opens TLS 1.3 record number `sequence` (`header`: its 5 bytes, the additional data; `sealed`:
    /// `nonceRoom` bytes of room, then the body: the encrypted content and the tag): the inner content
    /// type, and the record's content without it and its padding (a slice of what swift-crypto returned:
    /// no copy). Writes the nonce into the room. Nil when the record does not authenticate or has no
    /// content type (all padding).
    func openTLS13(header: UnsafeRawBufferPointer, sealed: UnsafeMutableRawBufferPointer, sequence: UInt64)
        -> (contentType: UInt8, content: Data)? {
        let room = Self.nonceRoom
        guard algorithm.isAEAD, sealed.count > room + algorithm.tagLength else { return nil }
        writeNonce(sequence, into: UnsafeMutableRawBufferPointer(rebasing: sealed[..<room]))
        let opened = AEADOpening.open(algorithm, key: key, sealed: UnsafeRawBufferPointer(sealed), additionalData: header)
        guard let opened else { return nil }
        // the inner type is the last byte that is not padding (zeros)
        let typeIndex = opened.withUnsafeBytes { bytes in
            var index = bytes.count - 1
            while index >= 0 && bytes[index] == 0 { index -= 1 }
            return index
        }
        guard typeIndex >= 0 else { return nil }
        let start = opened.startIndex
        return (opened[start + typeIndex], opened[start ..< start + typeIndex])
    }
}

extension TLSCipherSuite {
    /// The AES-CBC cipher of a CBC suite (`…_WITH_AES_128_CBC_…`, `…_AES_256_CBC_…`); nil for others
    /// (AEAD, 3DES, Camellia, SEED… in CBC mode are not opened).
    package var cbcAlgorithm: TLSRecordCipher.Algorithm? {
        guard protection == .cbc, let name else { return nil }
        if TLSCipherSuite.suiteName(name, contains: "_AES_128_CBC_") { return .aes128CBC }
        if TLSCipherSuite.suiteName(name, contains: "_AES_256_CBC_") { return .aes256CBC }
        return nil
    }

    /// The record HMAC of a CBC suite, from the name's last part (`_SHA` SHA-1, `_SHA256`, `_SHA384`);
    /// nil for AEAD suites (their hash is the PRF's only) and MD5 suites.
    package var recordMAC: TLSRecordCipher.MAC? {
        guard protection == .cbc, let name else { return nil }
        if name.hasSuffix("_SHA384") { return .hmacSHA384 }
        if name.hasSuffix("_SHA256") { return .hmacSHA256 }
        if name.hasSuffix("_SHA") { return .hmacSHA1 }
        return nil
    }

    /// The suite's hash (HKDF in TLS 1.3, the PRF in TLS 1.2) is SHA-384 rather than SHA-256.
    package var usesSHA384: Bool { name?.hasSuffix("SHA384") == true }
}

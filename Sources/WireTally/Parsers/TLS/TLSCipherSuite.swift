/// A TLS cipher suite: its IANA number, name (for the common suites) and what it adds to each
/// protected record, estimated without keys.
package struct TLSCipherSuite: Hashable, Sendable {
    /// How records are protected.
    package enum Protection: String, Sendable {
        /// TLS 1.3 AEAD (AES-GCM, AES-CCM, ChaCha20-Poly1305): tag + inner content type byte.
        case tls13AEAD
        /// TLS 1.2 AES/ARIA/Camellia-GCM or AES-CCM: 8-byte explicit nonce + tag.
        case aeadExplicitNonce
        /// TLS 1.2 ChaCha20-Poly1305: tag only (implicit nonce).
        case chacha20Poly1305
        /// Block cipher in CBC mode with HMAC: explicit IV (TLS 1.1+), MAC, padding.
        case cbc
        /// Stream cipher (RC4) or NULL cipher with HMAC: MAC only.
        case streamOrNull
        /// Not known to wiretally.
        case unknown
    }

    package let code: UInt16
    /// IANA name (`TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256`), nil for suites not in the table.
    package let name: String?
    /// How records are protected.
    package let protection: Protection
    /// AEAD tag length (16, or 8 for the `_CCM_8` suites); 0 for non-AEAD suites.
    package let tagLength: Int
    /// HMAC length of the non-AEAD suites (MD5 16, SHA-1 20, SHA-256 32, SHA-384 48).
    package let macLength: Int
    /// Cipher block size of the CBC suites (8 for DES/3DES/IDEA, else 16).
    package let blockSize: Int
    /// The AEAD that protects the suite's records (AES-GCM, AES-CCM, ChaCha20-Poly1305; not ARIA or
    /// Camellia, not CBC or stream suites); nil for the others. Stored: every connection's key setup
    /// asks for it, and finding it in the name is a string search.
    package let aeadAlgorithm: TLSRecordCipher.Algorithm?

    /// The suite of IANA number `code`; what it adds to records is worked out once, from its name
    /// (records ask for it one by one).
    package init(code: UInt16) {
        self.code = code
        let name = TLSCipherSuite.names[code]
        self.name = name
        protection = Self.protection(code: code, name: name)
        switch protection {
        case .tls13AEAD, .aeadExplicitNonce, .chacha20Poly1305:
            tagLength = (name?.hasSuffix("CCM_8") ?? false) || (name.map { Self.suiteName($0, contains: "CCM_8_") } ?? false) ? 8 : 16
        default:
            tagLength = 0
        }
        macLength = Self.macLength(protection: protection, name: name)
        aeadAlgorithm = Self.aeadAlgorithm(name: name, tagLength: tagLength)
        blockSize = protection == .cbc && ["DES", "IDEA", "RC2"].contains { part in name.map { Self.suiteName($0, contains: part) } ?? false } ? 8
            : protection == .cbc ? 16 : 0
    }

    /// `0x1301`-style text.
    package var hexCode: String {
        let digits = String(code, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// The name, or the hex code for a suite not in the table.
    package var displayName: String { name ?? hexCode }

    private static func protection(code: UInt16, name: String?) -> Protection {
        guard let name else { return .unknown }
        if code >= 0x1301 && code <= 0x1305 { return .tls13AEAD }
        if Self.suiteName(name, contains: "CHACHA20_POLY1305") { return .chacha20Poly1305 }
        if Self.suiteName(name, contains: "_GCM_") || Self.suiteName(name, contains: "_CCM") { return .aeadExplicitNonce }
        if Self.suiteName(name, contains: "_CBC_") { return .cbc }
        if Self.suiteName(name, contains: "RC4") || Self.suiteName(name, contains: "WITH_NULL") { return .streamOrNull }
        return .unknown
    }

    /// Whether `part` occurs in the suite name `name`, their UTF-8 bytes compared (`String.contains`
    /// is Foundation's NSString search here: thousands of instructions a call, and a suite is made per
    /// connection).
    static func suiteName(_ name: String, contains part: String) -> Bool {
        var name = name, part = part
        return name.withUTF8 { name in
            part.withUTF8 { part in
                part.count <= name.count && (0 ... name.count - part.count).contains { name[$0 ..< $0 + part.count].elementsEqual(part) }
            }
        }
    }

    private static func aeadAlgorithm(name: String?, tagLength: Int) -> TLSRecordCipher.Algorithm? {
        guard let name else { return nil }
        if Self.suiteName(name, contains: "CHACHA20_POLY1305") { return .chaCha20Poly1305 }
        if Self.suiteName(name, contains: "AES_128_GCM") { return .aes128GCM }
        if Self.suiteName(name, contains: "AES_256_GCM") { return .aes256GCM }
        if Self.suiteName(name, contains: "AES_128_CCM") { return tagLength == 8 ? .aes128CCM8 : .aes128CCM }
        if Self.suiteName(name, contains: "AES_256_CCM") { return tagLength == 8 ? .aes256CCM8 : .aes256CCM }
        return nil
    }

    private static func macLength(protection: Protection, name: String?) -> Int {
        guard protection == .cbc || protection == .streamOrNull, let name else { return 0 }
        if name.hasSuffix("_SHA384") { return 48 }
        if name.hasSuffix("_SHA256") { return 32 }
        if name.hasSuffix("_SHA") { return 20 }
        if name.hasSuffix("_MD5") { return 16 }
        return 0
    }

    /// Estimated bytes one protected record of `recordLength` bytes (after the 5-byte header) spends on
    /// protection rather than content, under `version` (the negotiated protocol version's wire code):
    /// - TLS 1.3: tag (16) + 1 inner content-type byte; padding cannot be seen and is not counted;
    /// - TLS 1.2 GCM/CCM: 8 explicit nonce + tag (16, CCM_8: 8);
    /// - ChaCha20-Poly1305: 16 tag;
    /// - CBC + HMAC: explicit IV (block size, TLS 1.1 and later) + MAC + padding estimated as half a
    ///   block (the padding length byte plus 0…block−1 padding bytes; the real value is encrypted);
    /// - RC4 / NULL: MAC only.
    /// Never more than `recordLength`; 0 for an unknown suite.
    package func protectionOverhead(recordLength: Int, version: UInt16) -> Int {
        let estimate: Int
        switch protection {
        case .tls13AEAD: estimate = tagLength + 1
        case .aeadExplicitNonce: estimate = 8 + tagLength
        case .chacha20Poly1305: estimate = tagLength
        case .cbc: estimate = (version >= 0x0302 ? blockSize : 0) + macLength + blockSize / 2
        case .streamOrNull: estimate = macLength
        case .unknown: estimate = 0
        }
        return min(max(0, recordLength), estimate)
    }

    /// IANA names of the common suites (RFC 8446, 5246, 5288, 5289, 7905, 4492, 6655, 5932, 4279…).
    static let names: [UInt16: String] = [
        0x0000: "TLS_NULL_WITH_NULL_NULL",
        0x0001: "TLS_RSA_WITH_NULL_MD5", 0x0002: "TLS_RSA_WITH_NULL_SHA", 0x003B: "TLS_RSA_WITH_NULL_SHA256",
        0x0003: "TLS_RSA_EXPORT_WITH_RC4_40_MD5", 0x0004: "TLS_RSA_WITH_RC4_128_MD5", 0x0005: "TLS_RSA_WITH_RC4_128_SHA",
        0x0006: "TLS_RSA_EXPORT_WITH_RC2_CBC_40_MD5", 0x0007: "TLS_RSA_WITH_IDEA_CBC_SHA",
        0x0008: "TLS_RSA_EXPORT_WITH_DES40_CBC_SHA", 0x0009: "TLS_RSA_WITH_DES_CBC_SHA",
        0x000A: "TLS_RSA_WITH_3DES_EDE_CBC_SHA", 0x000D: "TLS_DH_DSS_WITH_3DES_EDE_CBC_SHA",
        0x0010: "TLS_DH_RSA_WITH_3DES_EDE_CBC_SHA", 0x0012: "TLS_DHE_DSS_WITH_DES_CBC_SHA",
        0x0013: "TLS_DHE_DSS_WITH_3DES_EDE_CBC_SHA", 0x0015: "TLS_DHE_RSA_WITH_DES_CBC_SHA",
        0x0016: "TLS_DHE_RSA_WITH_3DES_EDE_CBC_SHA", 0x0018: "TLS_DH_anon_WITH_RC4_128_MD5",
        0x001B: "TLS_DH_anon_WITH_3DES_EDE_CBC_SHA",
        0x002F: "TLS_RSA_WITH_AES_128_CBC_SHA", 0x0030: "TLS_DH_DSS_WITH_AES_128_CBC_SHA",
        0x0031: "TLS_DH_RSA_WITH_AES_128_CBC_SHA", 0x0032: "TLS_DHE_DSS_WITH_AES_128_CBC_SHA",
        0x0033: "TLS_DHE_RSA_WITH_AES_128_CBC_SHA", 0x0034: "TLS_DH_anon_WITH_AES_128_CBC_SHA",
        0x0035: "TLS_RSA_WITH_AES_256_CBC_SHA", 0x0036: "TLS_DH_DSS_WITH_AES_256_CBC_SHA",
        0x0037: "TLS_DH_RSA_WITH_AES_256_CBC_SHA", 0x0038: "TLS_DHE_DSS_WITH_AES_256_CBC_SHA",
        0x0039: "TLS_DHE_RSA_WITH_AES_256_CBC_SHA", 0x003A: "TLS_DH_anon_WITH_AES_256_CBC_SHA",
        0x003C: "TLS_RSA_WITH_AES_128_CBC_SHA256", 0x003D: "TLS_RSA_WITH_AES_256_CBC_SHA256",
        0x003E: "TLS_DH_DSS_WITH_AES_128_CBC_SHA256", 0x003F: "TLS_DH_RSA_WITH_AES_128_CBC_SHA256",
        0x0040: "TLS_DHE_DSS_WITH_AES_128_CBC_SHA256",
        0x0041: "TLS_RSA_WITH_CAMELLIA_128_CBC_SHA", 0x0045: "TLS_DHE_RSA_WITH_CAMELLIA_128_CBC_SHA",
        0x0067: "TLS_DHE_RSA_WITH_AES_128_CBC_SHA256", 0x0068: "TLS_DH_DSS_WITH_AES_256_CBC_SHA256",
        0x0069: "TLS_DH_RSA_WITH_AES_256_CBC_SHA256", 0x006A: "TLS_DHE_DSS_WITH_AES_256_CBC_SHA256",
        0x006B: "TLS_DHE_RSA_WITH_AES_256_CBC_SHA256", 0x006C: "TLS_DH_anon_WITH_AES_128_CBC_SHA256",
        0x006D: "TLS_DH_anon_WITH_AES_256_CBC_SHA256",
        0x0084: "TLS_RSA_WITH_CAMELLIA_256_CBC_SHA", 0x0088: "TLS_DHE_RSA_WITH_CAMELLIA_256_CBC_SHA",
        0x008C: "TLS_PSK_WITH_AES_128_CBC_SHA", 0x008D: "TLS_PSK_WITH_AES_256_CBC_SHA",
        0x0096: "TLS_RSA_WITH_SEED_CBC_SHA",
        0x009C: "TLS_RSA_WITH_AES_128_GCM_SHA256", 0x009D: "TLS_RSA_WITH_AES_256_GCM_SHA384",
        0x009E: "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256", 0x009F: "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384",
        0x00A0: "TLS_DH_RSA_WITH_AES_128_GCM_SHA256", 0x00A1: "TLS_DH_RSA_WITH_AES_256_GCM_SHA384",
        0x00A2: "TLS_DHE_DSS_WITH_AES_128_GCM_SHA256", 0x00A3: "TLS_DHE_DSS_WITH_AES_256_GCM_SHA384",
        0x00A4: "TLS_DH_DSS_WITH_AES_128_GCM_SHA256", 0x00A5: "TLS_DH_DSS_WITH_AES_256_GCM_SHA384",
        0x00A6: "TLS_DH_anon_WITH_AES_128_GCM_SHA256", 0x00A7: "TLS_DH_anon_WITH_AES_256_GCM_SHA384",
        0x00A8: "TLS_PSK_WITH_AES_128_GCM_SHA256", 0x00A9: "TLS_PSK_WITH_AES_256_GCM_SHA384",
        0x00FF: "TLS_EMPTY_RENEGOTIATION_INFO_SCSV", 0x5600: "TLS_FALLBACK_SCSV",
        0x1301: "TLS_AES_128_GCM_SHA256", 0x1302: "TLS_AES_256_GCM_SHA384",
        0x1303: "TLS_CHACHA20_POLY1305_SHA256", 0x1304: "TLS_AES_128_CCM_SHA256",
        0x1305: "TLS_AES_128_CCM_8_SHA256",
        0xC002: "TLS_ECDH_ECDSA_WITH_RC4_128_SHA", 0xC003: "TLS_ECDH_ECDSA_WITH_3DES_EDE_CBC_SHA",
        0xC004: "TLS_ECDH_ECDSA_WITH_AES_128_CBC_SHA", 0xC005: "TLS_ECDH_ECDSA_WITH_AES_256_CBC_SHA",
        0xC007: "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA", 0xC008: "TLS_ECDHE_ECDSA_WITH_3DES_EDE_CBC_SHA",
        0xC009: "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", 0xC00A: "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
        0xC00C: "TLS_ECDH_RSA_WITH_RC4_128_SHA", 0xC00D: "TLS_ECDH_RSA_WITH_3DES_EDE_CBC_SHA",
        0xC00E: "TLS_ECDH_RSA_WITH_AES_128_CBC_SHA", 0xC00F: "TLS_ECDH_RSA_WITH_AES_256_CBC_SHA",
        0xC011: "TLS_ECDHE_RSA_WITH_RC4_128_SHA", 0xC012: "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA",
        0xC013: "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", 0xC014: "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
        0xC016: "TLS_ECDH_anon_WITH_RC4_128_SHA", 0xC017: "TLS_ECDH_anon_WITH_3DES_EDE_CBC_SHA",
        0xC018: "TLS_ECDH_anon_WITH_AES_128_CBC_SHA", 0xC019: "TLS_ECDH_anon_WITH_AES_256_CBC_SHA",
        0xC023: "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", 0xC024: "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384",
        0xC025: "TLS_ECDH_ECDSA_WITH_AES_128_CBC_SHA256", 0xC026: "TLS_ECDH_ECDSA_WITH_AES_256_CBC_SHA384",
        0xC027: "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", 0xC028: "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384",
        0xC029: "TLS_ECDH_RSA_WITH_AES_128_CBC_SHA256", 0xC02A: "TLS_ECDH_RSA_WITH_AES_256_CBC_SHA384",
        0xC02B: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", 0xC02C: "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
        0xC02D: "TLS_ECDH_ECDSA_WITH_AES_128_GCM_SHA256", 0xC02E: "TLS_ECDH_ECDSA_WITH_AES_256_GCM_SHA384",
        0xC02F: "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", 0xC030: "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
        0xC031: "TLS_ECDH_RSA_WITH_AES_128_GCM_SHA256", 0xC032: "TLS_ECDH_RSA_WITH_AES_256_GCM_SHA384",
        0xC09C: "TLS_RSA_WITH_AES_128_CCM", 0xC09D: "TLS_RSA_WITH_AES_256_CCM",
        0xC0A0: "TLS_RSA_WITH_AES_128_CCM_8", 0xC0A1: "TLS_RSA_WITH_AES_256_CCM_8",
        0xC0AC: "TLS_ECDHE_ECDSA_WITH_AES_128_CCM", 0xC0AD: "TLS_ECDHE_ECDSA_WITH_AES_256_CCM",
        0xC0AE: "TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8", 0xC0AF: "TLS_ECDHE_ECDSA_WITH_AES_256_CCM_8",
        0xCCA8: "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", 0xCCA9: "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
        0xCCAA: "TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256", 0xCCAB: "TLS_PSK_WITH_CHACHA20_POLY1305_SHA256",
        0xCCAC: "TLS_ECDHE_PSK_WITH_CHACHA20_POLY1305_SHA256",
    ]
}

/// Names of protocol versions by wire code.
package enum TLSVersion {
    /// `SSL 3.0`, `TLS 1.0` … `TLS 1.3`, or `0x7f1c`-style text for drafts and unknown codes.
    package static func name(_ code: UInt16) -> String {
        switch code {
        case 0x0002: return "SSL 2.0"
        case 0x0300: return "SSL 3.0"
        case 0x0301: return "TLS 1.0"
        case 0x0302: return "TLS 1.1"
        case 0x0303: return "TLS 1.2"
        case 0x0304: return "TLS 1.3"
        default:
            let digits = String(code, radix: 16)
            return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        }
    }
}

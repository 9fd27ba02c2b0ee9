import Crypto

/// The AEAD of QUIC packet protection (RFC 9001 §5.3), which also fixes the header-protection cipher
/// (§5.4.3 AES, §5.4.4 ChaCha20): the three TLS 1.3 suites QUIC uses.
enum QUICAEAD: Sendable, Equatable {
    case aes128GCM, aes256GCM, chaCha20Poly1305

    /// The AEAD of the TLS 1.3 suite (0x1301 AES-128-GCM, 0x1302 AES-256-GCM, 0x1303 ChaCha20-Poly1305);
    /// nil for any other suite.
    init?(suite: TLSCipherSuite) {
        guard suite.protection == .tls13AEAD else { return nil }
        switch suite.aeadAlgorithm {
        case .aes128GCM: self = .aes128GCM
        case .aes256GCM: self = .aes256GCM
        case .chaCha20Poly1305: self = .chaCha20Poly1305
        default: return nil
        }
    }

    /// The record-layer AEAD it is (packets are opened by `AEADOpening`, as TLS records are).
    var algorithm: TLSRecordCipher.Algorithm {
        switch self {
        case .aes128GCM: .aes128GCM
        case .aes256GCM: .aes256GCM
        case .chaCha20Poly1305: .chaCha20Poly1305
        }
    }

    /// Bytes of the packet key and of the header-protection key.
    var keyLength: Int { self == .aes128GCM ? 16 : 32 }
}

/// The packet-protection keys of one direction and one encryption level (RFC 9001 §5.1): the AEAD, its
/// key and IV, and the header-protection key, derived from a TLS 1.3 traffic secret with the suite's
/// hash:
///
///     key = HKDF-Expand-Label(secret, "quic key", "", key length)   ("quicv2 key" for v2, RFC 9369 §3.3.2)
///     iv  = HKDF-Expand-Label(secret, "quic iv", "", 12)            ("quicv2 iv")
///     hp  = HKDF-Expand-Label(secret, "quic hp", "", key length)    ("quicv2 hp")
///
/// HKDF-Expand-Label is `TLSRecordCipher.expandLabel` (swift-crypto's HKDF).
struct QUICPacketKeys {
    let aead: QUICAEAD
    let key: SymmetricKey
    let iv: [UInt8]
    let headerProtectionKey: SymmetricKey
    /// The secret the keys derive from, SHA-384 or SHA-256 as `sha384` says: the next key phase's
    /// secret derives from it (`nextPhase`).
    let secret: [UInt8]
    let sha384: Bool
    let version: QUICVersion

    /// The keys of `secret` for `aead` (hash SHA-384 when `sha384`, else SHA-256).
    init(secret: [UInt8], aead: QUICAEAD, sha384: Bool, version: QUICVersion) {
        self.init(secret: secret, aead: aead, sha384: sha384, version: version,
                  headerProtectionKey: SymmetricKey(data: Self.expand(secret, "hp", aead.keyLength, sha384, version)))
    }

    /// The keys of `secret` under the TLS 1.3 `suite`; nil for a suite QUIC does not use.
    init?(secret: [UInt8], suite: TLSCipherSuite, version: QUICVersion) {
        guard let aead = QUICAEAD(suite: suite) else { return nil }
        self.init(secret: secret, aead: aead, sha384: suite.usesSHA384, version: version)
    }

    private init(secret: [UInt8], aead: QUICAEAD, sha384: Bool, version: QUICVersion, headerProtectionKey: SymmetricKey) {
        self.aead = aead
        self.secret = secret
        self.sha384 = sha384
        self.version = version
        key = SymmetricKey(data: Self.expand(secret, "key", aead.keyLength, sha384, version))
        iv = Self.expand(secret, "iv", 12, sha384, version)
        self.headerProtectionKey = headerProtectionKey
    }

    /// The keys of the next key phase (RFC 9001 §6.1): secret = HKDF-Expand-Label(secret, "quic ku",
    /// "", hash length) ("quicv2 ku"); the header-protection key stays.
    var nextPhase: QUICPacketKeys {
        let next = Self.expand(secret, "ku", secret.count, sha384, version)
        return QUICPacketKeys(secret: next, aead: aead, sha384: sha384, version: version,
                              headerProtectionKey: headerProtectionKey)
    }

    /// HKDF-Expand-Label(secret, version prefix + `label`, "", length).
    private static func expand(_ secret: [UInt8], _ label: String, _ length: Int, _ sha384: Bool,
                               _ version: QUICVersion) -> [UInt8] {
        TLSRecordCipher.expandLabel(secret, version.labelPrefix + label, length: length, sha384: sha384)
    }
}

import Crypto
import Foundation

/// The packet-protection keys of one direction: AEAD key and IV, header-protection key.
struct QUICPacketKeys {
    let key: SymmetricKey
    let iv: [UInt8]
    let headerProtectionKey: SymmetricKey
}

/// Initial packet keys (RFC 9001 §5.2, RFC 9369 §3.3): derived from the Destination Connection ID of
/// the client's first Initial packet alone, so any observer can compute them.
///
///     initial_secret = HKDF-Extract(version salt, client DCID)
///     client_initial_secret = HKDF-Expand-Label(initial_secret, "client in", "", 32)
///     server_initial_secret = HKDF-Expand-Label(initial_secret, "server in", "", 32)
///     key = HKDF-Expand-Label(secret, "quic key", "", 16)   ("quicv2 key" for v2)
///     iv  = HKDF-Expand-Label(secret, "quic iv", "", 12)    ("quicv2 iv")
///     hp  = HKDF-Expand-Label(secret, "quic hp", "", 16)    ("quicv2 hp")
///
/// Initial packets are protected with AEAD_AES_128_GCM and AES-128 header protection. All of it is
/// swift-crypto's `HKDF<SHA256>`.
struct QUICInitialKeys {
    let version: QUICVersion
    let client: QUICPacketKeys
    let server: QUICPacketKeys

    /// Nil for versions without known Initial salt (anything but v1 and v2).
    init?(version: QUICVersion, clientDestinationConnectionID dcid: [UInt8]) {
        guard let salt = version.initialSalt else { return nil }
        self.version = version
        let initialSecret = HKDF<SHA256>.extract(inputKeyMaterial: SymmetricKey(data: dcid), salt: salt)
        let clientSecret = Self.expandLabel(initialSecret, label: "client in", length: 32)
        let serverSecret = Self.expandLabel(initialSecret, label: "server in", length: 32)
        client = Self.packetKeys(from: clientSecret, version: version)
        server = Self.packetKeys(from: serverSecret, version: version)
    }

    static func packetKeys<Secret: ContiguousBytes>(from secret: Secret, version: QUICVersion) -> QUICPacketKeys {
        let prefix = version.labelPrefix
        return QUICPacketKeys(
            key: SymmetricKey(data: expandLabel(secret, label: prefix + "key", length: 16)),
            iv: expandLabel(secret, label: prefix + "iv", length: 12),
            headerProtectionKey: SymmetricKey(data: expandLabel(secret, label: prefix + "hp", length: 16)))
    }

    /// TLS 1.3 HKDF-Expand-Label (RFC 8446 §7.1) with an empty context, over SHA-256.
    static func expandLabel<Secret: ContiguousBytes>(_ secret: Secret, label: String, length: Int) -> [UInt8] {
        let fullLabel = Array("tls13 \(label)".utf8)
        let info = [UInt8(length >> 8), UInt8(length & 0xff), UInt8(fullLabel.count)] + fullLabel + [0]
        let output = HKDF<SHA256>.expand(pseudoRandomKey: secret, info: info, outputByteCount: length)
        return output.withUnsafeBytes { Array($0) }
    }
}

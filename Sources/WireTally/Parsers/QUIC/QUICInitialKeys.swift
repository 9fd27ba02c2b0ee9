import Crypto

/// Initial packet keys (RFC 9001 §5.2, RFC 9369 §3.3): derived from the Destination Connection ID of
/// the client's first Initial packet alone, so any observer can compute them.
///
///     initial_secret = HKDF-Extract(version salt, client DCID)
///     client_initial_secret = HKDF-Expand-Label(initial_secret, "client in", "", 32)
///     server_initial_secret = HKDF-Expand-Label(initial_secret, "server in", "", 32)
///
/// then the packet keys of each secret as for every level (`QUICPacketKeys`, SHA-256): Initial packets
/// are protected with AEAD_AES_128_GCM and AES-128 header protection.
struct QUICInitialKeys {
    let version: QUICVersion
    let client: QUICPacketKeys
    let server: QUICPacketKeys

    /// Nil for versions without known Initial salt (anything but v1 and v2).
    init?(version: QUICVersion, clientDestinationConnectionID dcid: [UInt8]) {
        guard let salt = version.initialSalt else { return nil }
        self.version = version
        let initialSecret = Self.initialSecret(salt: salt, dcid: dcid)
        client = Self.keys(TLSRecordCipher.expandLabel(initialSecret, "client in", length: 32, sha384: false), version)
        server = Self.keys(TLSRecordCipher.expandLabel(initialSecret, "server in", length: 32, sha384: false), version)
    }

    /// HKDF-Extract(salt, dcid) with SHA-256.
    static func initialSecret(salt: [UInt8], dcid: [UInt8]) -> [UInt8] {
        HKDF<SHA256>.extract(inputKeyMaterial: SymmetricKey(data: dcid), salt: salt).withUnsafeBytes { Array($0) }
    }

    private static func keys(_ secret: [UInt8], _ version: QUICVersion) -> QUICPacketKeys {
        QUICPacketKeys(secret: secret, aead: .aes128GCM, sha384: false, version: version)
    }
}

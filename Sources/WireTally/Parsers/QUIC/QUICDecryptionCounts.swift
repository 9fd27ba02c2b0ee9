/// What decryption with a key log did to one connection's Handshake, 0-RTT and 1-RTT packets (Initial
/// packets open without keys and are not counted here).
package struct QUICDecryptionCounts: Equatable, Sendable {
    /// Packets opened.
    package var decrypted = 0
    /// Packets whose keys were there but which did not open (wrong key, damaged bytes).
    package var failed = 0
    /// Packets with no secret in the key log (yet), or no cipher suite known.
    package var withoutKey = 0
    /// 1-RTT key updates (RFC 9001 §6) each side made.
    package var keyUpdatesUp = 0
    package var keyUpdatesDown = 0

    /// As TLS over TCP reports `tls.decryption`: `decrypted` (every protected packet opened), `partial`
    /// (some opened, some failed or had no key), `failed` (none opened, some failed), `no_key` (none
    /// opened, none tried: the key log has no secret for the connection).
    package var status: String {
        if decrypted == 0 { return failed > 0 ? TLSDecryption.failed.rawValue : TLSDecryption.noKey.rawValue }
        return failed + withoutKey > 0 ? "partial" : TLSDecryption.decrypted.rawValue
    }

    mutating func note(_ result: QUICDecryptResult) {
        switch result {
        case .opened: decrypted += 1
        case .failed: failed += 1
        case .noKey: withoutKey += 1
        }
    }
}

/// Guesses a connection's application protocol from the first bytes the client sent.
package enum ApplicationProtocolGuess {
    /// True when `firstBytes` start like a TLS ClientHello: a handshake record `16 03 0x` (x ≤ 4) with a
    /// plausible length (4…2^14+2048) whose first message is a ClientHello (type 1), or an SSL 2.0-format
    /// ClientHello (`80 LL 01 03 0x` / `80 LL 01 00 02`); false when they cannot be one; nil when more bytes
    /// are needed to tell (fewer than 6).
    package static func looksLikeTLS(_ firstBytes: UnsafeRawBufferPointer) -> Bool? {
        let count = firstBytes.count
        guard count > 0 else { return nil }
        let b0 = firstBytes[0]
        if b0 & 0x80 != 0 {
            // SSL 2.0-format record header: 2-byte length, then msg type 1 and the version.
            if count < 5 { return firstBytes.count < 3 || firstBytes[2] == 1 ? nil : false }
            let length = Int(b0 & 0x7f) << 8 | Int(firstBytes[1])
            let major = firstBytes[3], minor = firstBytes[4]
            return firstBytes[2] == 1 && length >= 9 && ((major == 3 && minor <= 4) || (major == 0 && minor == 2))
        }
        guard b0 == 0x16 else { return false }
        if count >= 2 && firstBytes[1] != 3 { return false }
        if count >= 3 && firstBytes[2] > 4 { return false }
        if count >= 5 {
            let length = Int(firstBytes[3]) << 8 | Int(firstBytes[4])
            if length < 4 || length > TLSRecordReader.maxRecordLength { return false }
        }
        guard count >= 6 else { return nil }
        return firstBytes[5] == 1
    }
}

import Crypto
import _CryptoExtras
import FoundationEssentials

/// A packet's first byte and packet number once header protection is removed (RFC 9001 §5.4).
struct QUICUnprotectedHeader {
    /// The first byte with its protected bits (long: low 4, short: low 5) restored.
    let firstByte: UInt8
    /// 1 to 4 bytes.
    let packetNumberLength: Int
    /// The packet number as encoded (its low `packetNumberLength` bytes).
    let truncatedPacketNumber: UInt64
    /// Offset in the datagram just past the packet number: where the AEAD ciphertext starts.
    let payloadOffset: Int

    /// The key phase bit of a short header (0x04); meaningless for long headers.
    var keyPhase: Bool { firstByte & 0x04 != 0 }
}

/// A packet after header protection was removed and its payload opened.
struct QUICOpenedPacket: Equatable {
    /// The full packet number (decoded against the largest one seen in its space).
    let packetNumber: UInt64
    /// The decrypted frames.
    let plaintext: [UInt8]
    /// Bytes of the packet before its ciphertext: the header through the packet number.
    let headerLength: Int
    /// The key phase bit (short headers; false for long headers).
    let keyPhase: Bool
}

/// Removes header protection (RFC 9001 §5.4) and opens the AEAD payload (§5.3) of Initial, 0-RTT,
/// Handshake and 1-RTT (short header) packets, with AES-128/256-GCM or ChaCha20-Poly1305. The AES
/// mask is AES-ECB of the 16-byte sample, the raw AES block function `AES.permute` of swift-crypto's
/// `_CryptoExtras`; the ChaCha20 mask is its keystream (`Insecure.ChaCha20CTR`) at the sample's counter
/// and nonce; the AEADs are `AES.GCM` and `ChaChaPoly`.
enum QUICPacketProtection {
    /// Every AEAD of QUIC v1/v2 has a 16-byte tag.
    static let tagLength = 16
    /// The header-protection sample starts this far after the packet number's first byte.
    static let sampleOffset = 4
    static let sampleLength = 16

    /// The 5-byte header-protection mask of `sample` (16 bytes) under `key`:
    /// AES-ECB(hp, sample)[0..<5] (§5.4.3), or ChaCha20(hp, counter = sample[0..<4] little-endian,
    /// nonce = sample[4..<16]) applied to 5 zero bytes (§5.4.4).
    static func headerProtectionMask(sample: [UInt8], key: SymmetricKey, aead: QUICAEAD = .aes128GCM) -> [UInt8]? {
        guard sample.count == sampleLength else { return nil }
        do {
            switch aead {
            case .aes128GCM, .aes256GCM:
                var block = sample
                try AES.permute(&block, key: key)
                return Array(block[0 ..< 5])
            case .chaCha20Poly1305:
                let counter = try Insecure.ChaCha20CTR.Counter(data: sample[0 ..< 4])
                let nonce = try Insecure.ChaCha20CTR.Nonce(data: sample[4 ..< 16])
                return Array(try Insecure.ChaCha20CTR.encrypt([UInt8](repeating: 0, count: 5), using: key,
                                                               counter: counter, nonce: nonce))
            }
        } catch {
            return nil
        }
    }

    /// Decodes a truncated packet number of `length` bytes given the largest one seen in the space
    /// (RFC 9000 Appendix A.3); nil as `largest` means none yet.
    static func decodePacketNumber(truncated: UInt64, length: Int, largest: UInt64?) -> UInt64 {
        let bits = UInt64(length * 8)
        let expected = largest.map { $0 &+ 1 } ?? 0
        let window: UInt64 = 1 << bits
        let halfWindow = window / 2
        let mask = window - 1
        let candidate = (expected & ~mask) | truncated
        if candidate <= expected &- halfWindow, expected >= halfWindow, candidate < (1 << 62) - window {
            return candidate + window
        }
        if candidate > expected &+ halfWindow, candidate >= window {
            return candidate - window
        }
        return candidate
    }

    /// Removes the header protection of `header` (Initial, 0-RTT, Handshake or short) with the
    /// header-protection key of `keys`: nil for other packets, a truncated datagram, or a packet too
    /// short to sample or to hold a tag after its packet number.
    static func unprotect(_ header: QUICPacketHeaderView, keys: QUICPacketKeys) -> QUICUnprotectedHeader? {
        let protectedBits: UInt8
        switch header.kind {
        case .long(.initial), .long(.zeroRTT), .long(.handshake): protectedBits = 0x0f
        case .short: protectedBits = 0x1f
        default: return nil
        }
        let pnOffset = header.packetNumberOffset
        let sampleStart = pnOffset + sampleOffset
        guard !header.truncated, sampleStart + sampleLength <= header.end else { return nil }
        let sample = Array(header.bytes[sampleStart ..< sampleStart + sampleLength])
        guard let mask = headerProtectionMask(sample: sample, key: keys.headerProtectionKey, aead: keys.aead)
        else { return nil }
        let firstByte = header.firstByte ^ (mask[0] & protectedBits)
        let length = Int(firstByte & 0x03) + 1
        guard pnOffset + length + tagLength <= header.end else { return nil }
        var truncated: UInt64 = 0
        for index in 0 ..< length { truncated = truncated << 8 | UInt64(header.bytes[pnOffset + index] ^ mask[1 + index]) }
        return QUICUnprotectedHeader(firstByte: firstByte, packetNumberLength: length, truncatedPacketNumber: truncated,
                                     payloadOffset: pnOffset + length)
    }

    /// Opens the payload of `header`, whose header protection `unprotected` removed, as packet number
    /// `packetNumber` with `keys`: the plaintext frames, or nil when the AEAD tag does not match.
    static func openPayload(_ header: QUICPacketHeaderView, _ unprotected: QUICUnprotectedHeader, packetNumber: UInt64,
                            keys: QUICPacketKeys) -> [UInt8]? {
        var aad = Array(header.bytes[header.start ..< unprotected.payloadOffset])
        aad[0] = unprotected.firstByte
        for index in 0 ..< unprotected.packetNumberLength {
            let shift = UInt64(8 * (unprotected.packetNumberLength - 1 - index))
            aad[aad.count - unprotected.packetNumberLength + index] = UInt8(truncatingIfNeeded: unprotected.truncatedPacketNumber >> shift)
        }
        var nonce = keys.iv
        for index in 0 ..< 8 { nonce[nonce.count - 1 - index] ^= UInt8(truncatingIfNeeded: packetNumber >> (8 * index)) }
        let opened = nonce.withUnsafeBytes { nonce in
            aad.withUnsafeBytes { aad in
                AEADOpening.open(
                    keys.aead.algorithm, key: keys.key, nonce: nonce,
                    ciphertext: UnsafeRawBufferPointer(rebasing: header.bytes[unprotected.payloadOffset ..< header.end - tagLength]),
                    tag: UnsafeRawBufferPointer(rebasing: header.bytes[header.end - tagLength ..< header.end]),
                    additionalData: aad)
            }
        }
        return opened?.withUnsafeBytes { Array($0) }
    }

    /// Removes header protection from and opens the packet `header` with `keys`, its packet number
    /// decoded against `largestPacketNumber`: nil when it cannot be sampled or the tag does not match.
    static func open(_ header: QUICPacketHeaderView, keys: QUICPacketKeys, largestPacketNumber: UInt64?)
        -> QUICOpenedPacket?
    {
        guard let unprotected = unprotect(header, keys: keys) else { return nil }
        let packetNumber = decodePacketNumber(truncated: unprotected.truncatedPacketNumber,
                                              length: unprotected.packetNumberLength, largest: largestPacketNumber)
        guard let plaintext = openPayload(header, unprotected, packetNumber: packetNumber, keys: keys) else { return nil }
        return QUICOpenedPacket(unprotected, packetNumber: packetNumber, plaintext: plaintext, header: header)
    }
}

extension QUICOpenedPacket {
    /// The opened packet `header` whose header protection `unprotected` removed.
    init(_ unprotected: QUICUnprotectedHeader, packetNumber: UInt64, plaintext: [UInt8], header: QUICPacketHeaderView) {
        self.init(packetNumber: packetNumber, plaintext: plaintext, headerLength: unprotected.payloadOffset - header.start,
                  keyPhase: header.kind == .short && unprotected.keyPhase)
    }
}

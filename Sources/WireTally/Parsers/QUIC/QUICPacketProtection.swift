import Crypto
import _CryptoExtras
import Foundation

/// A long-header packet after header protection was removed and its payload opened.
struct QUICOpenedPacket {
    /// The full packet number (decoded against the largest one seen in its space).
    let packetNumber: UInt64
    /// The decrypted frames.
    let plaintext: [UInt8]
}

/// Removes header protection (RFC 9001 §5.4) and opens the AEAD payload (§5.3) of Initial (or other
/// AES-128-GCM long-header) packets. The mask is AES-ECB of the 16-byte sample, i.e. the raw AES block
/// function `AES.permute` of swift-crypto's `_CryptoExtras`; the AEAD is `AES.GCM`.
enum QUICPacketProtection {
    /// The 5-byte header-protection mask of `sample` (16 bytes): AES-ECB(hp, sample)[0..<5].
    static func headerProtectionMask(sample: [UInt8], key: SymmetricKey) -> [UInt8]? {
        guard sample.count == 16 else { return nil }
        var block = sample
        do { try AES.permute(&block, key: key) } catch { return nil }
        return Array(block[0 ..< 5])
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

    /// Opens the long-header packet `header` (Initial, 0-RTT or Handshake) with `keys`: nil when it is too
    /// short to sample, the datagram was truncated, or the AEAD tag does not match.
    static func open(_ header: QUICPacketHeaderView, keys: QUICPacketKeys, largestPacketNumber: UInt64?)
        -> QUICOpenedPacket?
    {
        guard case .long = header.kind, !header.truncated else { return nil }
        let pnOffset = header.packetNumberOffset
        // the sample starts 4 bytes after the packet number's start; a 16-byte tag must follow
        guard pnOffset + 4 + 16 <= header.end, header.end - pnOffset >= 1 + 16 + 4 else { return nil }
        let sample = Array(header.bytes[pnOffset + 4 ..< pnOffset + 20])
        guard let mask = headerProtectionMask(sample: sample, key: keys.headerProtectionKey) else { return nil }
        let firstByte = header.firstByte ^ (mask[0] & 0x0f)
        let pnLength = Int(firstByte & 0x03) + 1
        guard pnOffset + pnLength + 16 <= header.end else { return nil }
        var aad = Array(header.bytes[header.start ..< pnOffset + pnLength])
        aad[0] = firstByte
        var truncated: UInt64 = 0
        for index in 0 ..< pnLength {
            let byte = aad[pnOffset - header.start + index] ^ mask[1 + index]
            aad[pnOffset - header.start + index] = byte
            truncated = truncated << 8 | UInt64(byte)
        }
        let packetNumber = decodePacketNumber(truncated: truncated, length: pnLength, largest: largestPacketNumber)
        var nonce = keys.iv
        for index in 0 ..< 8 { nonce[nonce.count - 1 - index] ^= UInt8(truncatingIfNeeded: packetNumber >> (8 * index)) }
        let ciphertext = UnsafeRawBufferPointer(rebasing: header.bytes[pnOffset + pnLength ..< header.end - 16])
        let tag = UnsafeRawBufferPointer(rebasing: header.bytes[header.end - 16 ..< header.end])
        do {
            let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: nonce), ciphertext: ciphertext, tag: tag)
            let plaintext = try AES.GCM.open(box, using: keys.key, authenticating: aad)
            return QUICOpenedPacket(packetNumber: packetNumber, plaintext: Array(plaintext))
        } catch {
            return nil
        }
    }
}

/// A QUIC version number as carried in long headers, with what wiretally knows of it: QUIC v1
/// (RFC 9000, 0x00000001), QUIC v2 (RFC 9369, 0x6b3343cf) and Version Negotiation (0).
package struct QUICVersion: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: UInt32
    package init(rawValue: UInt32) { self.rawValue = rawValue }

    package static let negotiation = QUICVersion(rawValue: 0)
    package static let v1 = QUICVersion(rawValue: 0x0000_0001)
    package static let v2 = QUICVersion(rawValue: 0x6b33_43cf)

    /// v1 or v2: versions whose Initial packets wiretally can decrypt.
    package var isKnown: Bool { self == .v1 || self == .v2 }

    /// Reserved versions of the form 0x?a?a?a?a (RFC 9000 §15), sent to exercise negotiation.
    package var isReservedGrease: Bool { rawValue & 0x0f0f_0f0f == 0x0a0a_0a0a }

    /// `1`, `2`, or the hexadecimal number (`0xff00001d`).
    package var description: String {
        switch self {
        case .v1: return "1"
        case .v2: return "2"
        default: return "0x" + String(rawValue, radix: 16)
        }
    }

    /// The long-header packet type from the two type bits (RFC 9000 §17.2; v2 remaps them, RFC 9369 §3.2).
    func packetType(typeBits: UInt8) -> QUICLongPacketType? {
        switch self {
        case .v1: return [.initial, .zeroRTT, .handshake, .retry][Int(typeBits & 3)]
        case .v2: return [.retry, .initial, .zeroRTT, .handshake][Int(typeBits & 3)]
        default: return nil
        }
    }

    /// The salt of `initial_secret = HKDF-Extract(salt, client DCID)` (RFC 9001 §5.2, RFC 9369 §3.3.1).
    var initialSalt: [UInt8]? {
        switch self {
        case .v1:
            return [0x38, 0x76, 0x2c, 0xf7, 0xf5, 0x59, 0x34, 0xb3, 0x4d, 0x17,
                    0x9a, 0xe6, 0xa4, 0xc8, 0x0c, 0xad, 0xcc, 0xbb, 0x7f, 0x0a]
        case .v2:
            return [0x0d, 0xed, 0xe3, 0xde, 0xf7, 0x00, 0xa6, 0xdb, 0x81, 0x93,
                    0x81, 0xbe, 0x6e, 0x26, 0x9d, 0xcb, 0xf9, 0xbd, 0x2e, 0xd9]
        default: return nil
        }
    }

    /// The prefix of the packet-protection labels: `quic ` (v1) or `quicv2 ` (RFC 9369 §3.3.2).
    var labelPrefix: String { self == .v2 ? "quicv2 " : "quic " }
}

/// The four long-header packet types (their wire bits depend on the version).
package enum QUICLongPacketType: String, Sendable {
    case initial, zeroRTT = "0rtt", handshake, retry
}

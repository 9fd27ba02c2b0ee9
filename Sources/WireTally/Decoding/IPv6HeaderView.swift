/// A read-only view of the fixed 40-byte IPv6 header (RFC 8200).
struct IPv6HeaderView {
    let bytes: UnsafeRawBufferPointer

    init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 40 else { return nil }
        self.bytes = bytes
    }

    var payloadLength: Int { Int(UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: 4, as: UInt16.self))) }
    var nextHeader: UInt8 { bytes[6] }
    var source: IPAddress { address(at: 8) }
    var destination: IPAddress { address(at: 24) }

    private func address(at offset: Int) -> IPAddress {
        IPAddress(
            ipv6High: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)),
            low: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)))
    }
}

/// The IPv6 Fragment extension header fields (RFC 8200 §4.5).
struct IPv6FragmentHeader {
    var nextHeader: UInt8
    /// Fragment offset in bytes.
    var offset: Int
    var moreFragments: Bool
    var identification: UInt32
}

/// Where a walk over IPv6 extension headers stopped.
enum IPv6ExtensionWalk {
    /// The upper-layer header (or ESP / no-next-header, which cannot be walked) starts at `offset`.
    case transport(protocol: UInt8, offset: Int)
    /// A Fragment header starts at `offset`; the fragmentable part follows its 8 bytes.
    case fragment(IPv6FragmentHeader, offset: Int)
    /// An extension header runs past the captured bytes.
    case truncated
    /// An extension header runs past the declared length, or there are too many of them.
    case malformed
}

enum IPv6ExtensionHeaders {
    static let hopByHop: UInt8 = 0
    static let routing: UInt8 = 43
    static let fragment: UInt8 = 44
    static let authentication: UInt8 = 51
    static let destinationOptions: UInt8 = 60

    /// More extension headers than this in one packet is treated as malformed.
    static let maximumCount = 16

    /// Walks extension headers in `bytes` starting at `offset` with `nextHeader`, up to `declaredLength`
    /// (the end of the datagram as the IP header declares it).
    static func walk(
        _ bytes: UnsafeRawBufferPointer, from offset: Int, nextHeader: UInt8, declaredLength: Int
    ) -> IPv6ExtensionWalk {
        var offset = offset
        var nextHeader = nextHeader
        for _ in 0..<maximumCount {
            let headerLength: Int
            switch nextHeader {
            case hopByHop, routing, destinationOptions:
                guard let units = bytes.byte(at: offset + 1) else { return truncatedOrMalformed(offset + 2, declaredLength) }
                headerLength = (Int(units) + 1) * 8
            case authentication:
                guard let units = bytes.byte(at: offset + 1) else { return truncatedOrMalformed(offset + 2, declaredLength) }
                headerLength = (Int(units) + 2) * 4
            case fragment:
                guard offset + 8 <= declaredLength else { return .malformed }
                guard let next = bytes.byte(at: offset), let field = bytes.uint16BigEndian(at: offset + 2),
                    let identification = bytes.uint32BigEndian(at: offset + 4)
                else { return .truncated }
                let header = IPv6FragmentHeader(
                    nextHeader: next, offset: Int(field & 0xfff8), moreFragments: field & 1 != 0,
                    identification: identification)
                return .fragment(header, offset: offset)
            default:
                return .transport(protocol: nextHeader, offset: offset)
            }
            guard offset + headerLength <= declaredLength else { return .malformed }
            guard let next = bytes.byte(at: offset), offset + headerLength <= bytes.count else { return .truncated }
            nextHeader = next
            offset += headerLength
        }
        return .malformed
    }

    private static func truncatedOrMalformed(_ end: Int, _ declaredLength: Int) -> IPv6ExtensionWalk {
        end > declaredLength ? .malformed : .truncated
    }
}

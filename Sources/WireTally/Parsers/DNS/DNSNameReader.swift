/// Reads domain names with compression (RFC 1035 §4.1.4) without ever trapping: a pointer must point
/// strictly before the place it was read from (so no loop is possible), the total number of jumps and
/// the name's length are bounded, and every label must lie inside the message.
enum DNSNameReader {
    /// Names longer than this (RFC 1035: 255 octets on the wire) are malformed.
    static let maximumNameLength = 255
    /// At most this many compression pointers are followed for one name.
    static let maximumJumps = 64

    /// The name starting at `offset` in `message` (lower-cased ASCII labels joined by dots, no trailing
    /// dot; the root is the empty string), and the offset just after it in the original position; nil when
    /// malformed, or when it holds a compression pointer and `allowsCompression` is false (names that
    /// RFC 9460 §2.2 and others require uncompressed).
    static func read(
        _ message: UnsafeRawBufferPointer, at offset: Int, allowsCompression: Bool = true
    ) -> (name: String, end: Int)? {
        var bytes: [UInt8] = []
        var position = offset
        var end: Int?
        var jumps = 0
        var wireLength = 0
        while true {
            guard let length = message.byte(at: position) else { return nil }
            switch length & 0xc0 {
            case 0x00:
                if length == 0 {
                    return (escaped(bytes), end ?? position + 1)
                }
                let labelStart = position + 1
                let labelEnd = labelStart + Int(length)
                guard labelEnd <= message.count else { return nil }
                wireLength += Int(length) + 1
                guard wireLength < maximumNameLength else { return nil }
                if !bytes.isEmpty { bytes.append(UInt8(ascii: ".")) }
                for index in labelStart..<labelEnd { bytes.append(lowercased(message[index])) }
                position = labelEnd
            case 0xc0:
                guard allowsCompression, let low = message.byte(at: position + 1) else { return nil }
                let target = Int(length & 0x3f) << 8 | Int(low)
                guard target < position, jumps < maximumJumps else { return nil }
                if end == nil { end = position + 2 }
                jumps += 1
                position = target
            default:
                return nil  // 0x40 / 0x80: extended and binary labels, obsolete
            }
        }
    }

    /// The offset just after the name at `offset`, checking only its own bytes (a pointer ends it and is
    /// not followed); nil when it runs past the message or uses an obsolete label type.
    static func end(of message: UnsafeRawBufferPointer, at offset: Int) -> Int? {
        var position = offset
        while let length = message.byte(at: position) {
            switch length & 0xc0 {
            case 0x00 where length == 0: return position + 1
            case 0x00: position += 1 + Int(length)
            case 0xc0: return position + 2 <= message.count ? position + 2 : nil
            default: return nil
            }
        }
        return nil
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5a ? byte | 0x20 : byte
    }

    /// Labels (or other DNS character strings) as text; bytes that are not printable ASCII (and
    /// backslashes) are escaped as `\DDD`, as `dig` shows them.
    static func escaped<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        if bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: "\\") }) {
            return String(decoding: bytes, as: UTF8.self)
        }
        var text = ""
        for byte in bytes {
            if byte > 0x20 && byte < 0x7f && byte != UInt8(ascii: "\\") {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let digits = String(byte)
                text += "\\" + String(repeating: "0", count: 3 - digits.count) + digits
            }
        }
        return text
    }
}

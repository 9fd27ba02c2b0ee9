import NIOCore
import NIOHPACK

/// Decodes Huffman-coded string literals (the RFC 7541 Appendix B code, which QPACK uses as is) with
/// NIOHPACK, whose Huffman decoder is internal: the coded bytes are wrapped into a one-field HPACK
/// block — "literal header field without indexing, new name" (0x00), a one-byte literal name, then
/// the value with the H bit and its length as HPACK's 7-bit prefixed integer — that the public
/// `HPACKDecoder` decodes. The block never touches the HPACK dynamic table, so one decoder serves
/// every string. One wrapping buffer is reused.
struct QPACKHuffman {
    private var decoder: HPACKDecoder
    private var block: NIOCore.ByteBuffer
    private static let allocator = ByteBufferAllocator()
    /// The block's fixed start: representation 0x00, name length 1, name "x".
    private static let blockStart: [UInt8] = [0x00, 0x01, UInt8(ascii: "x")]

    init() {
        // A coded string of n bytes decodes to at most 8n/5 bytes; callers cap n, the list cap stays out of the way.
        decoder = HPACKDecoder(allocator: Self.allocator, maxDynamicTableSize: 0, maxHeaderListSize: Int(Int32.max))
        block = Self.allocator.buffer(capacity: 64)
    }

    /// The string `coded` decodes to; nil when it is not valid Huffman code (bad padding, EOS) or not UTF-8.
    mutating func decode(_ coded: UnsafeRawBufferPointer) -> String? {
        block.clear()
        block.writeBytes(Self.blockStart)
        writeLength(coded.count)
        block.writeBytes(coded)
        guard let headers = try? decoder.decodeHeaders(from: &block), headers.count == 1 else { return nil }
        return headers.first?.value
    }

    /// HPACK's 7-bit prefixed integer with the H bit set.
    private mutating func writeLength(_ length: Int) {
        guard length >= 0x7f else {
            block.writeInteger(UInt8(0x80 | length))
            return
        }
        block.writeInteger(UInt8(0xff))
        var rest = length - 0x7f
        while rest >= 0x80 {
            block.writeInteger(UInt8(rest & 0x7f | 0x80))
            rest >>= 7
        }
        block.writeInteger(UInt8(rest))
    }
}

/// String literals (RFC 9204 §4.1.2): an H bit, the length as a prefixed integer in the bits below
/// it, then the bytes, Huffman-coded when H is set.
enum QPACKString {
    /// Reads the literal whose first byte is `p[start]`, with its length in that byte's low
    /// `prefixBits` bits and H just above. Strings longer than `maxLength` bytes (as sent) are invalid.
    static func read(
        _ p: UnsafeRawBufferPointer, at start: Int, prefixBits: Int, maxLength: Int, huffman: inout QPACKHuffman
    ) -> QPACKRead<String> {
        guard start < p.count else { return .needs(start + 1) }
        let coded = p[start] & UInt8(1 << prefixBits) != 0
        switch QPACKInteger.readCount(p, at: start, prefixBits: prefixBits, limit: maxLength) {
        case .invalid: return .invalid
        case .needs(let count): return .needs(count)
        case .value(let length, let begin):
            let end = begin + length
            guard end <= p.count else { return .needs(end) }
            let bytes = UnsafeRawBufferPointer(rebasing: p[begin..<end])
            if !coded { return .value(String(decoding: bytes, as: UTF8.self), end: end) }
            guard let string = huffman.decode(bytes) else { return .invalid }
            return .value(string, end: end)
        }
    }
}

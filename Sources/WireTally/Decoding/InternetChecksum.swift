/// The Internet checksum (RFC 1071): the ones-complement sum of 16-bit big-endian words.
///
/// Summing adds the input as 64-bit words with end-around carry (RFC 1071 §2(C): a ones-complement
/// sum of wide words folds to the same 16-bit sum): 64-byte blocks in a chain of additions each
/// taking the carry of the one before (on x86-64 and arm64 one add-with-carry instruction a word,
/// its memory operand loaded by the instruction itself), whose last carry is counted apart; the rest
/// 8 bytes at a time, then 4, 2 and 1; folded to 16 bits once at the end. It is on the per-packet
/// path (the reading thread verifies every TCP and UDP checksum and every IPv4 header's).
enum InternetChecksum {
    /// The ones-complement sum of `bytes` (odd final byte padded with zero) and of `initial` (a wide
    /// sum of words, such as `pseudoHeaderWideSum`'s), folded to 16 bits.
    static func sum(_ bytes: UnsafeRawBufferPointer, adding initial: UInt64 = 0) -> UInt16 {
        guard let base = bytes.baseAddress else { return UInt16(bigEndian: fold(initial)) }
        // Offsets never exceed `count`: wrapping arithmetic spares the overflow checks.
        let count = bytes.count
        var total = initial
        // Carries out of `total`, each worth 1 (2^64 is 1 in ones-complement arithmetic); they cannot
        // overflow: at most one per 8 bytes.
        var carries: UInt64 = 0
        var offset = 0
        // Words are loaded in the host's byte order; a ones-complement sum commutes with byte
        // swapping, so reading the folded result as big-endian gives the sum of big-endian words.
        while offset &+ 64 <= count {
            var carry: UInt64 = 0
            for word in 0..<8 {
                total = added(total, base.loadUnaligned(fromByteOffset: offset &+ word &* 8, as: UInt64.self), carry: &carry)
            }
            carries &+= carry
            offset &+= 64
        }
        while offset &+ 8 <= count {
            var carry: UInt64 = 0
            total = added(total, base.loadUnaligned(fromByteOffset: offset, as: UInt64.self), carry: &carry)
            carries &+= carry
            offset &+= 8
        }
        var rest: UInt64 = 0
        if offset &+ 4 <= count {
            rest = UInt64(base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            offset &+= 4
        }
        if offset &+ 2 <= count {
            rest &+= UInt64(base.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
            offset &+= 2
        }
        if offset < count {  // an odd last byte: the high byte of a big-endian word padded with zero
            rest &+= UInt64((UInt16(base.load(fromByteOffset: offset, as: UInt8.self)) << 8).bigEndian)
        }
        // `rest` and `carries` are far below 2^63: their sum cannot overflow, and after a carry out of
        // `total` (which leaves it below 2^64 - 1) adding the carry back cannot either
        let (sum, overflow) = total.addingReportingOverflow(rest &+ carries)
        return UInt16(bigEndian: fold(sum &+ (overflow ? 1 : 0)))
    }

    /// `sum` of the 20 bytes at `base` (an IPv4 header without options), inline: five 32-bit words added
    /// into 64 bits (no carry can leave them), then folded.
    @inline(__always)
    static func sumOfHeader(_ base: UnsafeRawPointer) -> UInt16 {
        var total: UInt64 = 0
        for word in 0..<5 { total &+= UInt64(base.loadUnaligned(fromByteOffset: word &* 4, as: UInt32.self)) }
        return UInt16(bigEndian: fold(total))
    }

    /// `lhs + rhs + carry` modulo 2^64, `carry` (0 or 1) becoming the carry out: written so that the
    /// compiler chains such additions into add-with-carry instructions.
    @inline(__always)
    private static func added(_ lhs: UInt64, _ rhs: UInt64, carry: inout UInt64) -> UInt64 {
        let (partial, firstOverflow) = lhs.addingReportingOverflow(rhs)
        let (sum, secondOverflow) = partial.addingReportingOverflow(carry)
        carry = UInt64(firstOverflow ? 1 : 0) | UInt64(secondOverflow ? 1 : 0)
        return sum
    }

    /// Folds a wide ones-complement accumulator to 16 bits.
    @inline(__always)
    static func fold(_ value: UInt64) -> UInt16 {
        var folded = (value & 0xffff_ffff) &+ (value >> 32)
        folded = (folded & 0xffff) &+ (folded >> 16)
        folded = (folded & 0xffff) &+ (folded >> 16)
        folded = (folded & 0xffff) &+ (folded >> 16)
        return UInt16(truncatingIfNeeded: folded)
    }

    /// The sum of the TCP/UDP pseudo-header (RFC 793 for IPv4, RFC 8200 §8.1 for IPv6), folded to 16 bits
    /// in the byte order of the words `sum` adds (swapped on a little-endian host), for `sum(_:adding:)`
    /// to start from.
    @inline(__always)
    static func pseudoHeaderWideSum(
        source: IPAddress, destination: IPAddress, transportProtocol: UInt8, length: Int
    ) -> UInt64 {
        var total = UInt64(transportProtocol) &+ UInt64(UInt32(truncatingIfNeeded: length) >> 16)
            &+ UInt64(UInt32(truncatingIfNeeded: length) & 0xffff)
        total &+= wordSum(source.low) &+ wordSum(destination.low)
        if source.isIPv6 { total &+= wordSum(source.high) &+ wordSum(destination.high) }
        // the big-endian sum as the host-order words `sum` adds
        return UInt64(fold(total).bigEndian)
    }

    @inline(__always)
    private static func wordSum(_ value: UInt64) -> UInt64 {
        (value >> 48) &+ (value >> 32 & 0xffff) &+ (value >> 16 & 0xffff) &+ (value & 0xffff)
    }

    /// True when a transport segment (checksum field included) sums to 0xffff with its pseudo-header.
    static func isValidTransport(
        _ segment: UnsafeRawBufferPointer, source: IPAddress, destination: IPAddress, transportProtocol: UInt8
    ) -> Bool {
        let pseudo = pseudoHeaderWideSum(
            source: source, destination: destination, transportProtocol: transportProtocol, length: segment.count)
        return sum(segment, adding: pseudo) == 0xffff
    }
}

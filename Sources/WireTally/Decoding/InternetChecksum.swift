/// The Internet checksum (RFC 1071): the ones-complement sum of 16-bit big-endian words.
///
/// Summing adds the two 16-bit halves of each 32-bit word of 64-byte blocks into 16 vector lanes of 32
/// bits (no carry handling needed: a lane takes two words per block, so it cannot overflow within
/// 32,768 blocks), the rest 4 bytes at a time into a 64-bit accumulator, and folds to 16 bits once at
/// the end; it is on the per-packet path (the reading thread verifies every TCP and UDP checksum).
enum InternetChecksum {
    /// Blocks summed into the vector lanes before they are added into the 64-bit total.
    private static let blocksPerLaneSum = 32_768

    /// The ones-complement sum of `bytes` (odd final byte padded with zero), folded to 16 bits.
    static func sum(_ bytes: UnsafeRawBufferPointer) -> UInt16 {
        guard let base = bytes.baseAddress else { return 0 }
        // Offsets never exceed `count`: wrapping arithmetic spares the overflow checks.
        let count = bytes.count
        var total: UInt64 = 0
        var offset = 0
        // Words are loaded in the host's byte order; a ones-complement sum commutes with byte
        // swapping, so reading the folded result as big-endian gives the sum of big-endian words.
        while offset &+ 64 <= count {
            var lanes = SIMD16<UInt32>()
            let blocksEnd = min(count, offset &+ 64 &* blocksPerLaneSum)
            while offset &+ 64 <= blocksEnd {
                lanes &+= halvesAdded(base.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt32>.self))
                offset &+= 64
            }
            total &+= lanes.indices.reduce(0) { $0 &+ UInt64(lanes[$1]) }
        }
        var quad = SIMD4<UInt32>()  // at most 3 blocks of 16 bytes: no lane can overflow
        while offset &+ 16 <= count {
            quad &+= halvesAdded(base.loadUnaligned(fromByteOffset: offset, as: SIMD4<UInt32>.self))
            offset &+= 16
        }
        total &+= quad.indices.reduce(0) { $0 &+ UInt64(quad[$1]) }
        while offset &+ 4 <= count {
            total &+= UInt64(base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            offset &+= 4
        }
        if offset &+ 2 <= count {
            total &+= UInt64(base.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
            offset &+= 2
        }
        if offset < count {  // an odd last byte: the high byte of a big-endian word padded with zero
            total &+= UInt64((UInt16(base.load(fromByteOffset: offset, as: UInt8.self)) << 8).bigEndian)
        }
        return UInt16(bigEndian: fold(total))
    }

    /// The two 16-bit halves of every 32-bit lane added.
    @inline(__always)
    private static func halvesAdded<Vector: SIMD>(_ words: Vector) -> Vector where Vector.Scalar == UInt32 {
        (words & 0xffff) &+ (words &>> 16)
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

    /// Adds two folded ones-complement sums.
    @inline(__always)
    static func add(_ lhs: UInt16, _ rhs: UInt16) -> UInt16 {
        fold(UInt64(lhs) &+ UInt64(rhs))
    }

    /// The sum of the TCP/UDP pseudo-header (RFC 793 for IPv4, RFC 8200 §8.1 for IPv6).
    static func pseudoHeaderSum(
        source: IPAddress, destination: IPAddress, transportProtocol: UInt8, length: Int
    ) -> UInt16 {
        var total = UInt64(transportProtocol) &+ UInt64(UInt32(truncatingIfNeeded: length) >> 16)
            &+ UInt64(UInt32(truncatingIfNeeded: length) & 0xffff)
        total &+= wordSum(source.low) &+ wordSum(destination.low)
        if source.isIPv6 { total &+= wordSum(source.high) &+ wordSum(destination.high) }
        return fold(total)
    }

    @inline(__always)
    private static func wordSum(_ value: UInt64) -> UInt64 {
        (value >> 48) &+ (value >> 32 & 0xffff) &+ (value >> 16 & 0xffff) &+ (value & 0xffff)
    }

    /// True when a transport segment (checksum field included) sums to 0xffff with its pseudo-header.
    static func isValidTransport(
        _ segment: UnsafeRawBufferPointer, source: IPAddress, destination: IPAddress, transportProtocol: UInt8
    ) -> Bool {
        let pseudo = pseudoHeaderSum(
            source: source, destination: destination, transportProtocol: transportProtocol, length: segment.count)
        return add(pseudo, sum(segment)) == 0xffff
    }
}

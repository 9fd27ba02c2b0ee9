/// The Internet checksum (RFC 1071): the ones-complement sum of 16-bit big-endian words.
///
/// Summing adds 32-bit little-endian words into two 64-bit accumulators (no carry handling needed:
/// a 64-bit sum of 32-bit words cannot overflow below 2^32 words), 32 bytes per step, folded to 16 bits
/// once at the end; it is on the per-packet path.
enum InternetChecksum {
    /// The ones-complement sum of `bytes` (odd final byte padded with zero), folded to 16 bits.
    static func sum(_ bytes: UnsafeRawBufferPointer) -> UInt16 {
        guard let base = bytes.baseAddress else { return 0 }
        let count = bytes.count
        var even: UInt64 = 0
        var odd: UInt64 = 0
        var offset = 0
        // Words are loaded in little-endian arrangement; a ones-complement sum commutes with byte
        // swapping, so one swap of the folded result gives the big-endian sum.
        while offset + 32 <= count {
            let a = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            let b = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
            let c = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self))
            let d = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self))
            even &+= (a & 0xffff_ffff) &+ (a >> 32) &+ (b & 0xffff_ffff) &+ (b >> 32)
            odd &+= (c & 0xffff_ffff) &+ (c >> 32) &+ (d & 0xffff_ffff) &+ (d >> 32)
            offset += 32
        }
        while offset + 4 <= count {
            even &+= UInt64(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
            offset += 4
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while offset < count {
            tail |= UInt64(base.load(fromByteOffset: offset, as: UInt8.self)) << shift
            shift += 8
            offset += 1
        }
        return fold(even &+ odd &+ tail).byteSwapped
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

import Testing
@testable import WireTally

@Suite struct InternetChecksumTests {
    /// The vector sum equals a byte-pair reference for every length (64-byte blocks, 16-byte and
    /// 4-byte steps, odd tails) and alignment.
    @Test func matchesByteWiseReference() {
        var generator = SeededGenerator(state: 7)
        for length in 0..<200 {
            let bytes = (0..<(length + 7)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            for start in 0..<8 where start + length <= bytes.count {
                let slice = Array(bytes[start..<(start + length)])
                let fast = slice.withUnsafeBytes { InternetChecksum.sum($0) }
                #expect(fast == FrameBuilder.onesComplementSum(slice), "length \(length) start \(start)")
            }
        }
        let ones = [UInt8](repeating: 0xff, count: 4096)
        #expect(ones.withUnsafeBytes { InternetChecksum.sum($0) } == 0xffff)
    }

    /// Random data of every length 0…2,000 at every start alignment against a plain RFC 1071 sum
    /// (`rfc1071Sum`: byte pairs added into 32 bits, carries folded), all-0xFF data, and RFC 1071's
    /// own example (§3: 00 01 f2 03 f4 f5 f6 f7 sums to dd f2).
    @Test func matchesPlainRFC1071Sum() {
        var generator = SeededGenerator(state: 1071)
        let bytes = (0..<2_100).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes.withUnsafeBytes { all in
            for length in 0...2_000 {
                for start in 0..<64 where start % 13 == length % 13 || start < 16 {
                    let slice = UnsafeRawBufferPointer(rebasing: all[start..<(start + length)])
                    #expect(InternetChecksum.sum(slice) == Self.rfc1071Sum(slice), "length \(length) start \(start)")
                }
            }
        }
        let ones = [UInt8](repeating: 0xff, count: 2_100)
        ones.withUnsafeBytes { all in
            for length in 0...2_000 {
                let slice = UnsafeRawBufferPointer(rebasing: all[3..<(3 + length)])
                #expect(InternetChecksum.sum(slice) == Self.rfc1071Sum(slice), "all 0xff, length \(length)")
            }
        }
        let example: [UInt8] = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7]
        #expect(example.withUnsafeBytes { InternetChecksum.sum($0) } == 0xddf2)
    }

    /// The inline sum of a 20-byte IPv4 header equals the plain RFC 1071 sum: random headers at every
    /// start alignment, all 0xff, all zero, and a real header whose checksum is right (sums to 0xffff).
    @Test func headerSumMatchesPlainRFC1071Sum() {
        var generator = SeededGenerator(state: 791)
        for _ in 0..<2_000 {
            let bytes = (0..<28).map { _ in UInt8.random(in: 0...255, using: &generator) }
            bytes.withUnsafeBytes { all in
                for start in 0..<8 {
                    let header = UnsafeRawBufferPointer(rebasing: all[start..<(start + 20)])
                    #expect(InternetChecksum.sumOfHeader(header.baseAddress!) == Self.rfc1071Sum(header))
                }
            }
        }
        for filler: UInt8 in [0x00, 0xff] {
            let header = [UInt8](repeating: filler, count: 20)
            header.withUnsafeBytes { #expect(InternetChecksum.sumOfHeader($0.baseAddress!) == Self.rfc1071Sum($0)) }
        }
        // 192.168.0.1 → 192.168.0.199, UDP, total length 115, checksum b861 (the worked example of Wikipedia's IPv4 page)
        let real: [UInt8] = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01,
            0xc0, 0xa8, 0x00, 0xc7,
        ]
        real.withUnsafeBytes { #expect(InternetChecksum.sumOfHeader($0.baseAddress!) == 0xffff) }
    }

    /// A segment summed from its pseudo-header's wide sum (`sum(_:adding:)`) equals the plain RFC 1071 sum
    /// of the pseudo-header's bytes (RFC 793 for IPv4, RFC 8200 §8.1 for IPv6) followed by the segment's:
    /// random addresses and segments of every length 0…80, odd ones included.
    @Test func segmentSummedFromItsPseudoHeaderMatchesPlainRFC1071Sum() {
        var generator = SeededGenerator(state: 793)
        for length in 0...80 {
            for isIPv6 in [false, true] {
                let segment = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let transportProtocol: UInt8 = Bool.random(using: &generator) ? 6 : 17
                let source: IPAddress, destination: IPAddress
                var pseudo: [UInt8] = []
                func bigEndianBytes<Value: FixedWidthInteger>(_ value: Value) -> [UInt8] {
                    withUnsafeBytes(of: value.bigEndian) { Array($0) }
                }
                if isIPv6 {
                    let words = (0..<4).map { _ in UInt64.random(in: 0...UInt64.max, using: &generator) }
                    source = IPAddress(ipv6High: words[0], low: words[1])
                    destination = IPAddress(ipv6High: words[2], low: words[3])
                    pseudo = words.flatMap(bigEndianBytes) + bigEndianBytes(UInt32(length))
                        + [0, 0, 0, transportProtocol]
                } else {
                    let words = (0..<2).map { _ in UInt32.random(in: 0...UInt32.max, using: &generator) }
                    source = IPAddress(ipv4: words[0])
                    destination = IPAddress(ipv4: words[1])
                    pseudo = words.flatMap(bigEndianBytes) + [0, transportProtocol] + bigEndianBytes(UInt16(length))
                }
                let wide = InternetChecksum.pseudoHeaderWideSum(
                    source: source, destination: destination, transportProtocol: transportProtocol, length: length)
                let expected = (pseudo + segment).withUnsafeBytes { Self.rfc1071Sum($0) }
                segment.withUnsafeBytes {
                    #expect(InternetChecksum.sum($0, adding: wide) == expected, "length \(length) IPv6 \(isIPv6)")
                }
            }
        }
    }

    /// RFC 1071 §4.1's reference loop: 16-bit big-endian words added into a 32-bit sum, an odd last
    /// byte padded with zero, the carries folded back in.
    static func rfc1071Sum(_ bytes: UnsafeRawBufferPointer) -> UInt16 {
        var sum: UInt32 = 0
        var index = 0
        while index + 1 < bytes.count {
            sum += UInt32(bytes[index]) << 8 | UInt32(bytes[index + 1])
            index += 2
        }
        if index < bytes.count { sum += UInt32(bytes[index]) << 8 }
        while sum >> 16 != 0 { sum = (sum & 0xffff) + (sum >> 16) }
        return UInt16(sum)
    }

    /// Inputs past the 1 MiB after which the vector lanes are emptied (they would overflow): all
    /// bytes 0xff (every lane at its largest), and random bytes.
    @Test func longInputsDoNotOverflowTheLanes() {
        let ones = [UInt8](repeating: 0xff, count: (5 << 20) + 6)
        #expect(ones.withUnsafeBytes { InternetChecksum.sum($0) } == 0xffff)
        var generator = SeededGenerator(state: 11)
        let random = (0..<((5 << 20) + 1)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        #expect(random.withUnsafeBytes { InternetChecksum.sum($0) } == FrameBuilder.onesComplementSum(random))
    }
}

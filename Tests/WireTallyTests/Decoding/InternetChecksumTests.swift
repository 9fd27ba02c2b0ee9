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

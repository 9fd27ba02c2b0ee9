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

    /// Inputs past the 2 MiB after which the vector lanes are emptied (they would overflow): all
    /// bytes 0xff (every lane at its largest), and random bytes.
    @Test func longInputsDoNotOverflowTheLanes() {
        let ones = [UInt8](repeating: 0xff, count: (5 << 20) + 6)
        #expect(ones.withUnsafeBytes { InternetChecksum.sum($0) } == 0xffff)
        var generator = SeededGenerator(state: 11)
        let random = (0..<((5 << 20) + 1)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        #expect(random.withUnsafeBytes { InternetChecksum.sum($0) } == FrameBuilder.onesComplementSum(random))
    }
}

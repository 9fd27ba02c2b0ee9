import Testing
@testable import WireTally

@Suite struct InternetChecksumTests {
    /// The 8-bytes-at-a-time sum equals a byte-pair reference for every length and alignment.
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
}

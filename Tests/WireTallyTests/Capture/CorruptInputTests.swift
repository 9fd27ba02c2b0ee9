import Testing
@testable import WireTally

/// Randomly damaged captures must end in an error or a clean end, never a trap.
@Suite struct CorruptInputTests {
    /// A small deterministic pseudo-random generator (SplitMix64), so failures can be replayed.
    struct SplitMix64: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func originals() throws -> [[UInt8]] {
        let pcapng = PcapNGReaderTests.mixedFile()
        return [pcapng, try PcapReaderTests.threePacketFile().bytes, try gzipped(pcapng)]
    }

    @Test func mutatedFilesNeverTrap() throws {
        let scratch = try TemporaryDirectory()
        var random = SplitMix64(state: 42)
        for original in try Self.originals() {
            for round in 0..<300 {
                var bytes = original
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let position = Int.random(in: 0..<bytes.count, using: &random)
                    bytes[position] = UInt8.random(in: 0...255, using: &random)
                }
                let result = readAll(path: try scratch.file("mutated-\(round)", bytes))
                #expect(result.packets.allSatisfy { $0.bytes.count <= $0.originalLength })
            }
        }
    }
}

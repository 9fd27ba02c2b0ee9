import Testing
@testable import WireTally

/// Randomly damaged captures must end in an error or a clean end, never a trap.
@Suite struct CorruptInputTests {
    static func originals() throws -> [[UInt8]] {
        let pcapng = PcapNGReaderTests.mixedFile()
        return [pcapng, try PcapReaderTests.threePacketFile().bytes, try gzipped(pcapng)]
    }

    @Test func mutatedFilesNeverTrap() throws {
        let scratch = try TemporaryDirectory()
        var random = SeededGenerator(state: 42)
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

import Testing
@testable import WireTally

@Suite struct PcapNGReaderTests {
    static let ethernetFrame = ethernet(ipv4TCP(sourcePort: 40000, destinationPort: 80))
    static let rawFrame = ipv4TCP(sourcePort: 80, destinationPort: 40000)

    /// Two sections (the second big-endian), mixed link types, 2^-n resolution with an offset,
    /// SPBs, an obsolete Packet Block and blocks of unknown types.
    static func mixedFile() -> [UInt8] {
        var builder = PcapNGBuilder()
        builder.sectionHeader()
        builder.interface(linkType: 1, snaplen: 10)
        builder.block(0x0000_0BAD) { $0.raw([1, 2, 3, 4, 5]) }
        builder.interface(linkType: 101, tsresol: 0x80 | 20, tsoffset: 1000)
        builder.enhancedPacket(interface: 0, units: 1_700_000_000_000_001, data: Array(ethernetFrame[..<10]), originalLength: 54)
        builder.enhancedPacket(interface: 1, units: 3 << 20 | 1 << 19, data: rawFrame)
        builder.simplePacket(originalLength: 100, data: Array(repeating: 0xee, count: 10))
        builder.simplePacket(originalLength: 7, data: Array(repeating: 0xdd, count: 7))
        builder.block(4) { $0.u32(0) } // Name Resolution Block, skipped
        builder.obsoletePacket(interface: 1, units: 1 << 20, data: [9, 9, 9])
        builder.sectionHeader(.bigEndian)
        builder.interface(linkType: 228, tsresol: 9)
        builder.block(0x4000_0BAD) { $0.u32(7) } // custom block, skipped
        builder.enhancedPacket(interface: 0, units: 1_700_000_000_123_456_789, data: rawFrame)
        return builder.bytes
    }

    @Test func readsMixedSectionsInterfacesAndBlockTypes() throws {
        let scratch = try TemporaryDirectory()
        let result = readAll(path: try scratch.file("mixed.pcapng", Self.mixedFile()))
        #expect(result.error == nil)
        let expected = [
            OwnedPacket(frameNumber: 1, nanoseconds: 1_700_000_000_000_001_000, linkType: 1, originalLength: 54,
                        bytes: Array(Self.ethernetFrame[..<10]), interfaceIndex: 0),
            OwnedPacket(frameNumber: 2, nanoseconds: 1_003_500_000_000, linkType: 101, originalLength: 40,
                        bytes: Self.rawFrame, interfaceIndex: 1),
            OwnedPacket(frameNumber: 3, nanoseconds: 1_003_500_000_000, linkType: 1, originalLength: 100,
                        bytes: Array(repeating: 0xee, count: 10), interfaceIndex: 0),
            OwnedPacket(frameNumber: 4, nanoseconds: 1_003_500_000_000, linkType: 1, originalLength: 7,
                        bytes: Array(repeating: 0xdd, count: 7), interfaceIndex: 0),
            OwnedPacket(frameNumber: 5, nanoseconds: 1_001_000_000_000, linkType: 101, originalLength: 3,
                        bytes: [9, 9, 9], interfaceIndex: 1),
            OwnedPacket(frameNumber: 6, nanoseconds: 1_700_000_000_123_456_789, linkType: 228, originalLength: 40,
                        bytes: Self.rawFrame, interfaceIndex: 0),
        ]
        #expect(result.packets == expected)
        #expect(result.timestampDigits == 9)
    }

    @Test func timestampDigitsAreKnownBeforeTheFirstPacket() throws {
        let scratch = try TemporaryDirectory()
        let source = try CaptureFile.open(path: try scratch.file("mixed.pcapng", Self.mixedFile()))
        #expect(source.timestampDigits == 7) // 2^-20 s needs 7 decimals; microseconds need 6
    }

    @Test func readsBigEndianFirstSection() throws {
        let scratch = try TemporaryDirectory()
        var builder = PcapNGBuilder()
        builder.sectionHeader(.bigEndian)
        builder.interface(linkType: 1, tsresol: 3)
        builder.enhancedPacket(interface: 0, units: 1_234_567, data: Self.ethernetFrame)
        let result = readAll(path: try scratch.file("be.pcapng", builder.bytes))
        #expect(result.error == nil)
        #expect(result.packets.map(\.nanoseconds) == [1_234_567_000_000])
        #expect(result.packets.map(\.bytes) == [Self.ethernetFrame])
        #expect(result.timestampDigits == 3)
    }

    @Test func headerOnlyFileHasNoPackets() throws {
        let scratch = try TemporaryDirectory()
        var builder = PcapNGBuilder()
        builder.sectionHeader()
        builder.interface(linkType: 1)
        let result = readAll(path: try scratch.file("header.pcapng", builder.bytes))
        #expect(result.error == nil && result.packets.isEmpty)
    }

    @Test func truncationAtEveryOffsetKeepsCompletePackets() throws {
        let scratch = try TemporaryDirectory()
        var builder = PcapNGBuilder()
        builder.sectionHeader()
        var blockEnds = [builder.bytes.count]
        builder.interface(linkType: 1, tsresol: 9)
        blockEnds.append(builder.bytes.count)
        var packetEnds: [Int] = []
        for size in [60, 1, 75] {
            builder.enhancedPacket(interface: 0, units: UInt64(size), data: Array(repeating: UInt8(size), count: size))
            packetEnds.append(builder.bytes.count)
        }
        blockEnds += packetEnds
        let file = builder.bytes
        for cut in 0...file.count {
            let result = readAll(path: try scratch.file("cut.pcapng", Array(file[..<cut])))
            let complete = packetEnds.filter { $0 <= cut }.count
            #expect(result.packets.count == complete, "cut at \(cut)")
            if blockEnds.contains(cut) {
                #expect(result.error == nil, "cut at \(cut)")
            } else if case let .truncated(_, afterPackets, _) = result.captureError {
                #expect(afterPackets == complete, "cut at \(cut)")
            } else {
                Issue.record("cut at \(cut): expected .truncated, got \(String(describing: result.error))")
            }
        }
    }

    /// Ways to break the second of two packet blocks.
    enum BlockDamage: CaseIterable {
        case lengthNotMultipleOfFour, lengthBelowMinimum, trailingLengthDiffers, undeclaredInterface
        case capturedLengthBeyondBlock

        /// A file with one good packet followed by a packet block broken this way.
        var file: [UInt8] {
            var builder = PcapNGBuilder()
            builder.sectionHeader()
            builder.interface(linkType: 1)
            builder.enhancedPacket(interface: 0, units: 1, data: [1, 2, 3, 4])
            let start = builder.bytes.count
            builder.enhancedPacket(interface: 0, units: 2, data: [5, 6, 7, 8])
            var bytes = builder.bytes
            switch self {
            case .lengthNotMultipleOfFour: bytes[start + 4] = 0x2a
            case .lengthBelowMinimum: bytes[start + 4] = 28
            case .trailingLengthDiffers: bytes[bytes.count - 4] = 0x40
            case .undeclaredInterface: bytes[start + 8] = 3
            case .capturedLengthBeyondBlock: bytes[start + 20] = 200
            }
            return bytes
        }
    }

    @Test(arguments: BlockDamage.allCases)
    func impossibleBlocksAreMalformed(damage: BlockDamage) throws {
        let scratch = try TemporaryDirectory()
        let result = readAll(path: try scratch.file("bad.pcapng", damage.file))
        #expect(result.packets.map(\.bytes) == [[1, 2, 3, 4]])
        guard case .malformed(_, 1, _) = result.captureError else {
            Issue.record("expected .malformed after 1 packet, got \(String(describing: result.error))")
            return
        }
    }
}

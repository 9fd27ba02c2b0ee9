import Testing
@testable import WireTally

@Suite struct MergedPacketSourceTests {
    /// A pcap file (µs) with one packet per timestamp, each packet's single byte being `tag`.
    static func file(timestampsMicroseconds: [Int64], tag: UInt8) throws -> [UInt8] {
        let writer = try PcapWriter(destination: .memory, linkType: .raw)
        for microseconds in timestampsMicroseconds {
            try withPacket([tag], nanoseconds: microseconds * 1000, linkType: .raw) { try writer.write($0) }
        }
        return writer.bytes
    }

    @Test func interleavedFilesComeOutInTimestampOrder() throws {
        let scratch = try TemporaryDirectory()
        let first = try scratch.file("a.pcap", try Self.file(timestampsMicroseconds: [1, 4, 5, 9], tag: 0xa))
        let second = try scratch.file("b.pcap", try Self.file(timestampsMicroseconds: [2, 3, 5, 10, 11], tag: 0xb))
        var merged = MergedPacketSource(paths: [first, second])
        let result = readAll(&merged)
        #expect(result.error == nil && merged.failures.isEmpty)
        #expect(result.packets.map(\.nanoseconds) == [1, 2, 3, 4, 5, 5, 9, 10, 11].map { $0 * 1000 })
        #expect(result.packets.map(\.frameNumber) == Array(1...9))
        // The tie at 5 µs goes to the first file.
        #expect(result.packets.map(\.bytes) == [[0xa], [0xb], [0xb], [0xa], [0xa], [0xb], [0xa], [0xb], [0xb]])
        #expect(result.packets.map(\.fileIndex) == result.packets.map { $0.bytes == [0xa] ? 0 : 1 })
    }

    @Test func timestampDigitsAreTheFinest() throws {
        let scratch = try TemporaryDirectory()
        let micro = try scratch.file("a.pcap", try Self.file(timestampsMicroseconds: [1], tag: 1))
        let nano = try scratch.file("b.pcapng", PcapNGReaderTests.mixedFile())
        #expect(MergedPacketSource(paths: [micro]).timestampDigits == 6)
        #expect(MergedPacketSource(paths: [micro, nano]).timestampDigits == 7)
    }

    @Test func singleFilePassesThroughWithItsIndex() throws {
        let scratch = try TemporaryDirectory()
        let path = try scratch.file("a.pcap", try Self.file(timestampsMicroseconds: [3, 1, 2], tag: 1))
        var merged = MergedPacketSource(paths: [path])
        let result = readAll(&merged)
        #expect(result.packets.map(\.nanoseconds) == [3000, 1000, 2000])
        #expect(result.packets.map(\.frameNumber) == [1, 2, 3])
    }

    /// A single source given directly: its packets are numbered and get index 0 (its position in
    /// the list), whatever file index its reader was opened with.
    @Test func singleSourceGetsItsPositionAsIndex() throws {
        let scratch = try TemporaryDirectory()
        let path = try scratch.file("a.pcap", try Self.file(timestampsMicroseconds: [1, 2, 3], tag: 1))
        var merged = MergedPacketSource(sources: [try CaptureFile.open(path: path, fileIndex: 5)])
        let result = readAll(&merged)
        #expect(result.error == nil)
        #expect(result.packets.map(\.fileIndex) == [0, 0, 0])
        #expect(result.packets.map(\.frameNumber) == [1, 2, 3])
    }

    /// A single file cut short: its good packets pass through numbered, then its failure is thrown
    /// once, then the source stays ended; the file's bytes read reach its size.
    @Test func singleCutFileGivesItsPacketsThenItsFailureOnce() throws {
        let scratch = try TemporaryDirectory()
        let cutBytes = try Self.file(timestampsMicroseconds: [1, 2, 3], tag: 0xb).dropLast(3)
        let cut = try scratch.file("cut.pcap", Array(cutBytes))
        let merged = MergedPacketSource(paths: [cut])
        #expect(try merged.nextPacket()?.frameNumber == 1)
        #expect(try merged.nextPacket()?.frameNumber == 2)
        #expect(throws: CaptureError.self) { try merged.nextPacket() }
        #expect(try merged.nextPacket() == nil)
        #expect(merged.failures.count == 1)
        #expect(merged.fileBytesRead == merged.fileBytesTotal && merged.fileBytesTotal == cutBytes.count)
    }

    @Test func failingFileDoesNotLoseTheOthersPackets() throws {
        let scratch = try TemporaryDirectory()
        let good = try scratch.file("good.pcap", try Self.file(timestampsMicroseconds: [1, 2, 3, 4, 5, 6], tag: 0xa))
        let cutBytes = try Self.file(timestampsMicroseconds: [1, 2, 3], tag: 0xb).dropLast(3)
        let cut = try scratch.file("cut.pcap", Array(cutBytes))
        let missing = scratch.path + "/missing.pcap"
        var merged = MergedPacketSource(paths: [good, cut, missing])
        guard case .cannotOpen = merged.failures.first as? CaptureError else {
            Issue.record("the missing file should be reported at once, got \(merged.failures)")
            return
        }
        let result = readAll(&merged)
        #expect(result.packets.filter { $0.fileIndex == 0 }.count == 6)
        #expect(result.packets.filter { $0.fileIndex == 1 }.count == 2)
        #expect(result.packets.map(\.frameNumber) == Array(1...8))
        // Every good packet comes before the first failure is thrown.
        #expect(result.captureError == merged.failures.first as? CaptureError)
        #expect(merged.failures.count == 2)
        guard case .truncated(_, 2, _) = merged.failures.last as? CaptureError else {
            Issue.record("expected the cut file to be .truncated after 2 packets, got \(merged.failures)")
            return
        }
        #expect(try merged.nextPacket() == nil)
    }
}

import Testing
@testable import WireTally

@Suite struct PcapReaderTests {
    /// Three packets of different sizes, written by our writer, as (file bytes, record end offsets).
    static func threePacketFile(precision: TimestampPrecision = .microseconds, byteOrder: ByteOrder = .littleEndian)
        throws -> (bytes: [UInt8], recordEnds: [Int])
    {
        let writer = try PcapWriter(destination: .memory, linkType: .ethernet, precision: precision, byteOrder: byteOrder)
        var recordEnds: [Int] = []
        for (index, size) in [60, 1, 75].enumerated() {
            let data = (0..<size).map { UInt8(truncatingIfNeeded: $0 &+ index) }
            try withPacket(data, nanoseconds: 1_700_000_000_123_456_789 + Int64(index), linkType: .ethernet) {
                try writer.write($0)
            }
            recordEnds.append(writer.bytes.count)
        }
        return (writer.bytes, recordEnds)
    }

    @Test(arguments: [ByteOrder.littleEndian, .bigEndian], [TimestampPrecision.microseconds, .nanoseconds])
    func readsBothByteOrdersAndPrecisions(byteOrder: ByteOrder, precision: TimestampPrecision) throws {
        let scratch = try TemporaryDirectory()
        let file = try Self.threePacketFile(precision: precision, byteOrder: byteOrder)
        #expect((file.bytes[0] == 0xa1) == (byteOrder == .bigEndian))
        let result = readAll(path: try scratch.file("three.pcap", file.bytes))
        #expect(result.error == nil)
        #expect(result.timestampDigits == (precision == .microseconds ? 6 : 9))
        #expect(result.packets.map(\.bytes.count) == [60, 1, 75])
        #expect(result.packets.map(\.frameNumber) == [1, 2, 3])
        let expectedTime: Int64 = precision == .microseconds ? 1_700_000_000_123_456_000 : 1_700_000_000_123_456_789
        #expect(result.packets.first?.nanoseconds == expectedTime)
        #expect(result.packets.last?.bytes == (0..<75).map { UInt8($0 + 2) })
        #expect(result.packets.allSatisfy { $0.linkType == LinkType.ethernet.rawValue })
    }

    @Test func truncationAtEveryOffsetKeepsCompletePackets() throws {
        let scratch = try TemporaryDirectory()
        let file = try Self.threePacketFile()
        for cut in 0...file.bytes.count {
            let result = readAll(path: try scratch.file("cut.pcap", Array(file.bytes[..<cut])))
            let complete = file.recordEnds.filter { $0 <= cut }.count
            #expect(result.packets.count == complete, "cut at \(cut)")
            let endsCleanly = cut >= PcapReader.fileHeaderLength && (cut == PcapReader.fileHeaderLength || file.recordEnds.contains(cut))
            if endsCleanly {
                #expect(result.error == nil, "cut at \(cut)")
            } else {
                guard case let .truncated(_, afterPackets, _) = result.captureError else {
                    Issue.record("cut at \(cut): expected .truncated, got \(String(describing: result.error))")
                    continue
                }
                #expect(afterPackets == complete, "cut at \(cut)")
            }
        }
    }

    @Test func garbageIsNotACapture() throws {
        let scratch = try TemporaryDirectory()
        let path = try scratch.file("garbage", Array("GET / HTTP/1.1\r\nHost: example\r\n\r\n".utf8))
        #expect(readAll(path: path).captureError == .notACapture(path: path))
    }

    @Test func emptyFileIsTruncatedAndHeaderOnlyFileIsEmpty() throws {
        let scratch = try TemporaryDirectory()
        guard case .truncated(_, 0, _) = readAll(path: try scratch.file("empty", [])).captureError else {
            Issue.record("empty file should be .truncated")
            return
        }
        let header = try Self.threePacketFile().bytes[..<PcapReader.fileHeaderLength]
        let headerOnly = readAll(path: try scratch.file("header.pcap", Array(header)))
        #expect(headerOnly.error == nil && headerOnly.packets.isEmpty)
    }

    @Test func missingFileCannotBeOpened() {
        guard case .cannotOpen = readAll(path: "/nonexistent/wiretally.pcap").captureError else {
            Issue.record("expected .cannotOpen")
            return
        }
    }

    @Test func capturedLengthBeyondLimitIsMalformed() throws {
        let scratch = try TemporaryDirectory()
        let writer = try PcapWriter(destination: .memory, linkType: .ethernet, snaplen: 65535, byteOrder: .littleEndian)
        try withPacket([1, 2, 3], nanoseconds: 0, linkType: .ethernet) { try writer.write($0) }
        try withPacket([4, 5, 6], nanoseconds: 0, linkType: .ethernet) { try writer.write($0) }
        var bytes = writer.bytes
        // The second record's incl_len becomes 300000: above both the snaplen and 262144.
        let inclLengthOffset = 24 + 16 + 3 + 8
        withUnsafeBytes(of: UInt32(300_000).littleEndian) { bytes.replaceSubrange(inclLengthOffset..<inclLengthOffset + 4, with: $0) }
        let result = readAll(path: try scratch.file("huge.pcap", bytes))
        #expect(result.packets.count == 1)
        guard case .malformed(_, 1, _) = result.captureError else {
            Issue.record("expected .malformed after 1 packet, got \(String(describing: result.error))")
            return
        }
    }

    @Test func originalLengthIsAtLeastCapturedLength() throws {
        let scratch = try TemporaryDirectory()
        let writer = try PcapWriter(destination: .memory, linkType: .ethernet)
        try withPacket([1, 2, 3, 4], nanoseconds: 0, linkType: .ethernet, originalLength: 2) { try writer.write($0) }
        try withPacket([1, 2], nanoseconds: 0, linkType: .ethernet, originalLength: 1500) { try writer.write($0) }
        let result = readAll(path: try scratch.file("lengths.pcap", writer.bytes))
        #expect(result.packets.map(\.originalLength) == [4, 1500])
    }

    @Test func linkTypeFieldHasFCSBitsMasked() throws {
        let scratch = try TemporaryDirectory()
        var bytes = try Self.threePacketFile().bytes
        bytes[23] = 0x14 // FCS-length-present flag and an FCS length in the top bits of the link type
        let result = readAll(path: try scratch.file("fcs.pcap", bytes))
        #expect(result.packets.first?.linkType == LinkType.ethernet.rawValue)
    }

    @Test func modifiedPcapRecordsAreRead() throws {
        let scratch = try TemporaryDirectory()
        var bytes: [UInt8] = [0x34, 0xcd, 0xb2, 0xa1, 2, 0, 4, 0] + [UInt8](repeating: 0, count: 8)
        bytes += [0xff, 0xff, 0, 0, 1, 0, 0, 0]
        for (seconds, data) in [(UInt8(7), [UInt8](repeating: 0xaa, count: 5)), (8, [0xbb])] {
            bytes += [seconds, 0, 0, 0, 0x10, 0, 0, 0, UInt8(data.count), 0, 0, 0, UInt8(data.count), 0, 0, 0]
            bytes += [2, 0, 0, 0, 0x08, 0x00, 0, 0] + data
        }
        let result = readAll(path: try scratch.file("modified.pcap", bytes))
        #expect(result.error == nil)
        #expect(result.packets.map(\.bytes) == [[0xaa, 0xaa, 0xaa, 0xaa, 0xaa], [0xbb]])
        #expect(result.packets.map(\.nanoseconds) == [7_000_016_000, 8_000_016_000])
    }
}

@Suite struct LargeRecordTests {
    /// A pcap whose second packet is bigger than the reader's 1 MiB chunk.
    static func fileWithLargeRecord() throws -> (bytes: [UInt8], large: [UInt8]) {
        let large = (0..<(1_500_000)).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let writer = try PcapWriter(destination: .memory, linkType: .raw, snaplen: 2_000_000)
        try withPacket([1, 2, 3], nanoseconds: 1_000, linkType: .raw) { try writer.write($0) }
        try withPacket(large, nanoseconds: 2_000, linkType: .raw) { try writer.write($0) }
        try withPacket([4, 5], nanoseconds: 3_000, linkType: .raw) { try writer.write($0) }
        return (writer.bytes, large)
    }

    @Test(arguments: [false, true])
    func recordsLargerThanTheChunkAreRead(compressed: Bool) throws {
        let scratch = try TemporaryDirectory()
        let file = try Self.fileWithLargeRecord()
        let result = readAll(path: try scratch.file("large", compressed ? try gzipped(file.bytes) : file.bytes))
        #expect(result.error == nil)
        #expect(result.packets.map(\.bytes.count) == [3, 1_500_000, 2])
        #expect(result.packets.dropFirst().first?.bytes == file.large)
        #expect(result.packets.last?.bytes == [4, 5])
    }
}

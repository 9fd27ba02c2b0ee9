import Testing
@testable import WireTally

/// Our writers' output read back by libpcap, and by our readers.
@Suite struct CaptureWriterTests {
    static let frames: [(nanoseconds: Int64, bytes: [UInt8], originalLength: Int)] = [
        (1_700_000_000_123_456_789, ethernet(ipv4TCP(sourcePort: 1, destinationPort: 80)), 1514),
        (1_700_000_001_000_000_001, ethernet(ipv4TCP(sourcePort: 80, destinationPort: 1)), 54),
        (1_700_000_001_999_999_999, [0xff], 1),
    ]

    @Test(arguments: [TimestampPrecision.microseconds, .nanoseconds], [ByteOrder.littleEndian, .bigEndian])
    func pcapWriterOutputReadsBackInLibpcap(precision: TimestampPrecision, byteOrder: ByteOrder) throws {
        let scratch = try TemporaryDirectory()
        let path = scratch.path + "/written.pcap"
        let writer = try PcapWriter(destination: .file(path: path), linkType: .ethernet, precision: precision, byteOrder: byteOrder)
        for frame in Self.frames {
            try withPacket(frame.bytes, nanoseconds: frame.nanoseconds, linkType: .ethernet, originalLength: frame.originalLength) {
                try writer.write($0)
            }
        }
        try writer.close()
        let libpcap = try #require(readWithLibpcap(path: path))
        #expect(libpcap.error == nil)
        #expect(libpcap.dataLinkType == 1)
        let rounding: Int64 = precision == .microseconds ? 1000 : 1
        #expect(libpcap.packets.map(\.nanoseconds) == Self.frames.map { $0.nanoseconds / rounding * rounding })
        #expect(libpcap.packets.map(\.bytes) == Self.frames.map(\.bytes))
        #expect(libpcap.packets.map(\.originalLength) == Self.frames.map(\.originalLength))
        #expect(readAll(path: path).packets.map(\.nanoseconds) == libpcap.packets.map(\.nanoseconds))
    }

    @Test(arguments: [ByteOrder.littleEndian, .bigEndian])
    func pcapNGWriterOutputReadsBackInLibpcap(byteOrder: ByteOrder) throws {
        let scratch = try TemporaryDirectory()
        let path = scratch.path + "/written.pcapng"
        let writer = try PcapNGWriter(destination: .file(path: path), byteOrder: byteOrder)
        for (index, frame) in Self.frames.enumerated() {
            try withPacket(frame.bytes, nanoseconds: frame.nanoseconds, linkType: .ethernet, originalLength: frame.originalLength) {
                try writer.write($0, precision: index == 1 ? .microseconds : .nanoseconds)
            }
        }
        try writer.close()
        let libpcap = try #require(readWithLibpcap(path: path))
        #expect(libpcap.error == nil)
        #expect(libpcap.packets.map(\.nanoseconds) == [1_700_000_000_123_456_789, 1_700_000_001_000_000_000, 1_700_000_001_999_999_999])
        #expect(libpcap.packets.map(\.bytes) == Self.frames.map(\.bytes))
        let ours = readAll(path: path)
        #expect(ours.packets.map(\.interfaceIndex) == [0, 1, 0])
        #expect(ours.packets.map(\.nanoseconds) == libpcap.packets.map(\.nanoseconds))
    }

    @Test func pcapNGWriterKeepsMixedLinkTypesInMemory() throws {
        let writer = try PcapNGWriter(destination: .memory)
        try withPacket([1, 2, 3], nanoseconds: 5, linkType: .ethernet) { try writer.write($0) }
        try withPacket([4, 5], nanoseconds: 6_000, linkType: .raw) { try writer.write($0) }
        let scratch = try TemporaryDirectory()
        let result = readAll(path: try scratch.file("mixed.pcapng", writer.bytes))
        #expect(result.error == nil)
        #expect(result.packets.map(\.linkType) == [LinkType.ethernet.rawValue, LinkType.raw.rawValue])
        #expect(result.packets.map(\.nanoseconds) == [0, 6_000])
        #expect(result.packets.map(\.bytes) == [[1, 2, 3], [4, 5]])
    }
}

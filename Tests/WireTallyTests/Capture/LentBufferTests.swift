import Foundation
import Testing
@testable import WireTally

/// A capture input reading into lent buffers (`CaptureInput.lend(to:)`) returns the same packets as
/// one reading into its own buffer, and every packet it returned keeps its bytes for as long as the
/// lender keeps the buffer, however many buffers were read after it: the promise that lets the
/// reading thread hand packets over without copying them.
@Suite struct LentBufferTests {
    /// Lends small buffers (so that records straddle buffer ends and some need more than one) and
    /// keeps every buffer until it goes away.
    final class KeepingLender: CaptureBufferLender {
        let size: Int
        private(set) var buffers: [UnsafeMutableRawBufferPointer] = []

        init(size: Int) { self.size = size }

        deinit { for buffer in buffers { buffer.deallocate() } }

        func exchangeBuffer(unread: UnsafeRawBufferPointer, minimumCapacity: Int) -> UnsafeMutableRawBufferPointer {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(size, minimumCapacity), alignment: 16)
            buffer.copyMemory(from: unread)
            buffers.append(buffer)
            return buffer
        }
    }

    /// A pcap of ethernet-typed records of many sizes (one far bigger than the lent buffers, the
    /// file's snaplen allowing it), each filled with bytes of its own.
    static func recordsOfManySizes() throws -> [UInt8] {
        var random = SeededGenerator(state: 7)
        // The input reads its first MiB before it is lent a buffer: the specials come after it.
        let randomSizes = (0..<1000).map { _ in Int.random(in: 1...3000, using: &random) }
        let sizes = randomSizes[..<800] + [60, 1514, 1, 9000, 300_000, 74, 65_535, 2, 1514, 1514, 66] + randomSizes[800...]
        let writer = try PcapWriter(destination: .memory, linkType: .ethernet, precision: .nanoseconds, snaplen: 1 << 20)
        for (index, size) in sizes.enumerated() {
            let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }
            try bytes.withUnsafeBytes { bytes in
                try writer.write(CapturedPacket(
                    frameNumber: index + 1, timestamp: Timestamp(seconds: 1_700_000_000, nanoseconds: Int64(index)),
                    linkType: .ethernet, originalLength: size, bytes: bytes))
            }
        }
        return writer.bytes
    }

    /// Reads `path` with its input lent small buffers from the start, keeping the packets' views (not
    /// copies) until the end, then copies them.
    static func readLent(path: String, bufferSize: Int) throws -> (packets: [OwnedPacket], exchanges: Int) {
        let source = try CaptureFile.open(path: path)
        let lender = KeepingLender(size: bufferSize)
        let input = try #require((source as? any CaptureFileReader)?.input)
        input.lend(to: lender)
        var views: [CapturedPacket] = []
        var reader = source
        while let packet = try reader.nextPacket() { views.append(packet) }
        return (views.map(OwnedPacket.init), lender.buffers.count)
    }

    @Test(arguments: [4096, 70_000])
    func pcapPacketsKeepTheirBytes(bufferSize: Int) throws {
        let scratch = try TemporaryDirectory()
        let path = try scratch.file("sizes.pcap", try Self.recordsOfManySizes())
        let expected = readAll(path: path)
        let lent = try Self.readLent(path: path, bufferSize: bufferSize)
        #expect(expected.error == nil && expected.packets.count == 1011)
        #expect(lent.packets == expected.packets)
        #expect(lent.exchanges > (bufferSize < 10_000 ? 50 : 5))
    }

    @Test func gzipPcapAndPcapNGPacketsKeepTheirBytes() throws {
        let scratch = try TemporaryDirectory()
        let pcap = try Self.recordsOfManySizes()
        let files = [
            try scratch.file("sizes.pcap.gz", try gzipped(pcap)),
            try scratch.file("mixed.pcapng", PcapNGReaderTests.mixedFile()),
            try scratch.file("mixed.pcapng.gz", try gzipped(PcapNGReaderTests.mixedFile())),
        ]
        for path in files {
            let expected = readAll(path: path)
            #expect(expected.error == nil, "\(path)")
            #expect(try Self.readLent(path: path, bufferSize: 512).packets == expected.packets, "\(path)")
        }
    }

    /// A file cut inside a record: the packets before it keep their bytes, then the same error.
    @Test func truncatedFileKeepsTheCompletePackets() throws {
        let scratch = try TemporaryDirectory()
        let whole = try Self.recordsOfManySizes()
        let path = try scratch.file("cut.pcap", Array(whole.prefix(whole.count - 100)))
        let expected = readAll(path: path)
        #expect(expected.packets.count == 1010)
        let source = try CaptureFile.open(path: path)
        let lender = KeepingLender(size: 4096)
        try #require((source as? any CaptureFileReader)?.input).lend(to: lender)
        var reader = source
        var views: [CapturedPacket] = []
        #expect(throws: CaptureError.self) { while let packet = try reader.nextPacket() { views.append(packet) } }
        #expect(views.map(OwnedPacket.init) == expected.packets)
    }
}

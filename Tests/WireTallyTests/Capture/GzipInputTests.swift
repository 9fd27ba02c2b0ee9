import Testing
@testable import WireTally

@Suite struct GzipInputTests {
    @Test func gzippedPcapNGReadsLikeThePlainFile() throws {
        let scratch = try TemporaryDirectory()
        let plain = PcapNGReaderTests.mixedFile()
        let expected = readAll(path: try scratch.file("plain.pcapng", plain))
        let inflated = readAll(path: try scratch.file("compressed-without-suffix", try gzipped(plain)))
        #expect(inflated.error == nil)
        #expect(inflated.packets == expected.packets)
    }

    @Test func concatenatedMembersReadAsOneStream() throws {
        let scratch = try TemporaryDirectory()
        let file = try PcapReaderTests.threePacketFile()
        let middle = file.recordEnds[0] + 5
        let members = try gzipped(Array(file.bytes[..<middle])) + gzipped(Array(file.bytes[middle...]))
        let result = readAll(path: try scratch.file("members.pcap.gz", members))
        #expect(result.error == nil)
        #expect(result.packets.map(\.bytes.count) == [60, 1, 75])
    }

    @Test func corruptTailKeepsInflatedPacketsThenFails() throws {
        let scratch = try TemporaryDirectory()
        var compressed = try gzipped(try PcapReaderTests.threePacketFile().bytes)
        compressed[compressed.count - 6] ^= 0xff // CRC-32 of the member
        let result = readAll(path: try scratch.file("corrupt.pcap.gz", compressed))
        #expect(result.packets.count == 3)
        guard case .decompression = result.captureError else {
            Issue.record("expected .decompression, got \(String(describing: result.error))")
            return
        }
    }

    @Test func compressedDataCutShortIsADecompressionError() throws {
        let scratch = try TemporaryDirectory()
        let file = try PcapReaderTests.threePacketFile()
        let compressed = try gzipped(file.bytes)
        let result = readAll(path: try scratch.file("cut.pcap.gz", Array(compressed[..<(compressed.count - 4)])))
        #expect(result.packets.count == 3)
        guard case .decompression = result.captureError else {
            Issue.record("expected .decompression, got \(String(describing: result.error))")
            return
        }
    }

    @Test func gzippedGarbageIsNotACapture() throws {
        let scratch = try TemporaryDirectory()
        let path = try scratch.file("garbage.gz", try gzipped(Array("hello, world".utf8)))
        #expect(readAll(path: path).captureError == .notACapture(path: path))
    }
}

import CZlib
import Foundation
import Testing
@testable import WireTally

/// Recorded captures cut in the middle of a packet (inside a record header, inside packet data; pcap,
/// pcapng, gzip): every record is written exactly as for the same capture cut cleanly after its last
/// complete packet, then a clear error on standard error (a cut gzip stream is reported as such) and
/// exit status 2.
@Suite struct TruncatedCaptureTests {
    /// End offsets of the pcap records of a recorded capture, from tshark's `frame.cap_len` of every
    /// frame (`NAME.frames.tsv`, written when it was recorded): 24-byte file header, 16-byte record headers.
    static func pcapRecordEnds(_ name: String) throws -> [Int] {
        let text = try String(contentsOfFile: TestPaths.capture(name + ".frames.tsv"), encoding: .utf8)
        var lines = text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
        let column = try #require(lines.removeFirst().firstIndex(of: "frame.cap_len"))
        var end = 24
        return try lines.map { fields in
            end += 16 + (try #require(Int(fields[column])))
            return end
        }
    }

    /// End offsets of the blocks of a pcapng file (little-endian sections): each block's total length
    /// is its second 32-bit word.
    static func pcapngBlockEnds(_ bytes: [UInt8]) -> [Int] {
        var ends: [Int] = [], offset = 0
        while offset + 8 <= bytes.count {
            let length = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            offset += length
            ends.append(offset)
        }
        return ends
    }

    /// Analyses `cut` (truncated) and `clean` (the same bytes up to the end of the last complete
    /// packet) with the binary and in process; both give the same records, the cut one exit 2 and the
    /// truncation error after `packets` packets.
    static func expectSameRecords(cut: [UInt8], clean: [UInt8], packets: Int, suffix: String, gzip: Bool = false,
                                  sourceLocation: SourceLocation = #_sourceLocation) throws {
        let cutPath = try LimitTestSupport.write(cut, name: "cut" + suffix)
        let cleanPath = try LimitTestSupport.write(clean, name: "clean" + suffix)
        defer {
            try? FileManager.default.removeItem(atPath: cutPath)
            try? FileManager.default.removeItem(atPath: cleanPath)
        }
        let damaged = try LimitTestSupport.analyzeJSONLines(cutPath)
        let whole = try LimitTestSupport.analyzeJSONLines(cleanPath)
        #expect(whole.status == 0, sourceLocation: sourceLocation)
        #expect(damaged.status == 2, sourceLocation: sourceLocation)
        let message = gzip
            ? "\(cutPath): gzip data is corrupt (compressed data ends in the middle of a gzip member)"
            : "\(cutPath): file is truncated after \(packets) complete packets"
        #expect(damaged.stderr.contains(message), "\(damaged.stderr)", sourceLocation: sourceLocation)
        #expect(!damaged.records.isEmpty, sourceLocation: sourceLocation)
        #expect(damaged.records == whole.records, sourceLocation: sourceLocation)
        #expect(damaged.summary.contains("\"packets\":\(packets),"), sourceLocation: sourceLocation)
        #expect(damaged.summary.contains("\"conserved\":true"), sourceLocation: sourceLocation)
        let (_, result) = LimitTestSupport.analyzeConserved(cutPath, sourceLocation: sourceLocation)
        #expect(result.summary.read.packets == packets, sourceLocation: sourceLocation)
        #expect(result.summary.errors.count == 1, sourceLocation: sourceLocation)
    }

    /// Cut inside the record header (1 and 15 bytes in) and inside the packet data (1 byte in, the
    /// middle, 1 byte short) of records early, in the middle and at the end of the capture.
    @Test(arguments: ["nginx-curl-keepalive", "nginx-chunked-gzip"])
    func pcapCutInsideARecord(name: String) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestPaths.capture(name + ".pcap"))))
        let ends = try Self.pcapRecordEnds(name)
        try #require(ends.last == bytes.count, "frames.tsv describes the whole file")
        for record in [5, ends.count / 2, ends.count - 1] {
            let start = ends[record - 1], length = ends[record] - start
            for cut in [start + 1, start + 15, start + 17, start + 16 + (length - 16) / 2, ends[record] - 1] {
                try Self.expectSameRecords(
                    cut: Array(bytes[..<cut]), clean: Array(bytes[..<start]), packets: record, suffix: ".pcap")
            }
        }
    }

    /// pcapng: cut inside the block header and inside the packet data of Enhanced Packet Blocks.
    @Test func pcapngCutInsideABlock() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestPaths.capture("nginx-pipelining.pcapng"))))
        let ends = Self.pcapngBlockEnds(bytes)
        try #require(ends.last == bytes.count)
        // Blocks 0 and 1 are the section and interface headers; packets follow.
        let headerBlocks = 2
        let packetCount = ends.count - headerBlocks
        for packet in [3, packetCount / 2, packetCount - 1] {
            let start = ends[headerBlocks + packet - 1], length = ends[headerBlocks + packet] - start
            for cut in [start + 4, start + 20, start + 28 + (length - 32) / 2, ends[headerBlocks + packet] - 1] {
                try Self.expectSameRecords(
                    cut: Array(bytes[..<cut]), clean: Array(bytes[..<start]), packets: packet, suffix: ".pcapng")
            }
        }
    }

    /// A gzip-compressed pcap cut at several points of its compressed bytes: zlib's inflate of the
    /// cut file says how many capture bytes are readable, which fixes the last complete packet.
    @Test func gzipCutInTheMiddle() throws {
        let name = "nginx-curl-keepalive"
        let pcap = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestPaths.capture(name + ".pcap"))))
        let ends = try Self.pcapRecordEnds(name)
        let gzip = Compression.compress(pcap, .gzip)
        for fraction in [0.3, 0.6, 0.95] {
            let cut = Array(gzip[..<Int(Double(gzip.count) * fraction)])
            let readable = Self.inflatedLength(cut)
            let packets = ends.filter { $0 <= readable }.count
            try #require(packets > 0 && packets < ends.count)
            try Self.expectSameRecords(
                cut: cut, clean: Array(pcap[..<ends[packets - 1]]), packets: packets, suffix: ".pcap.gz", gzip: true)
        }
    }

    /// How many bytes zlib inflates from a (cut) gzip stream before its input runs out.
    static func inflatedLength(_ compressed: [UInt8]) -> Int {
        var stream = z_stream()
        precondition(inflateInit2_(&stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK)
        defer { inflateEnd(&stream) }
        var input = compressed, total = 0
        var output = [UInt8](repeating: 0, count: 1 << 16)
        input.withUnsafeMutableBufferPointer { inBuffer in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = UInt32(inBuffer.count)
            var status: Int32 = Z_OK
            while status == Z_OK {
                output.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(out.count)
                    status = inflate(&stream, Z_SYNC_FLUSH)
                    total += out.count - Int(stream.avail_out)
                }
                if stream.avail_in == 0 && stream.avail_out != 0 { break }
            }
        }
        return total
    }
}

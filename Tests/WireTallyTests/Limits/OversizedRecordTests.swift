import Foundation
import Testing
@testable import WireTally

/// pcap records whose captured length exceeds the file's snaplen, 65535, or anything sensible.
///
/// Defined behaviour (the reference is Wireshark's reader, which reads such records whole up to
/// 262144 bytes, where libpcap would cut them to the snaplen): a record up to max(snaplen, 262144)
/// bytes is read whole; a longer one is corruption — the records before it are written, then
/// "malformed capture after N complete packets (record length L exceeds the limit M)", exit status 2.
@Suite struct OversizedRecordTests {
    /// A pcap with snaplen `snaplen`: a whole HTTP conversation, then one UDP frame padded (as an
    /// Ethernet trailer) to `declaredLength` bytes, of which the file holds `storedLength`.
    static func file(snaplen: Int, declaredLength: UInt32, storedLength: Int) -> (bytes: [UInt8], conversationFrames: Int) {
        let frames = LimitTestSupport.conversation(
            request: Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8),
            response: Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8))
        var bytes = FrameBuilder.pcap(frames: frames, link: .ethernet, snaplen: snaplen)
        let udp = FrameBuilder.udp(from: "10.1.0.1:5000", to: "10.1.0.2:5001", payload: [1, 2, 3, 4])
        let stored = udp + [UInt8](repeating: 0, count: max(0, storedLength - udp.count))
        bytes += FrameBuilder.le32(1_700_000_100) + FrameBuilder.le32(0)
        bytes += FrameBuilder.le32(declaredLength) + FrameBuilder.le32(declaredLength) + stored.prefix(storedLength)
        return (bytes, frames.count)
    }

    /// Records longer than the snaplen: above it, above 65535, and at 262144.
    static let longRecords = [(snaplen: 1500, length: 2000), (snaplen: 65535, length: 70_000), (snaplen: 65535, length: 262_144)]

    /// Captured lengths above the snaplen and above 65535 but within 262144 are read whole.
    @Test(arguments: longRecords)
    func recordLongerThanTheSnaplenIsReadWhole(snaplen: Int, length: Int) throws {
        let (bytes, conversationFrames) = Self.file(snaplen: snaplen, declaredLength: UInt32(length), storedLength: length)
        let path = try LimitTestSupport.write(bytes, name: "long-record.pcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (writer, result) = LimitTestSupport.analyzeConserved(path)
        #expect(result.summary.errors.isEmpty)
        #expect(result.summary.read.packets == conversationFrames + 1)
        #expect(writer.flows.count == 1)
        #expect(writer.flows.first?.int("up.frame_bytes") == length)
        #expect(writer.exchanges.count == 1)
        let run = try LimitTestSupport.analyzeJSONLines(path)
        #expect(run.status == 0)
    }

    /// tshark reads those records whole too: the reference for the limit.
    @Test(.requires(.tshark), arguments: longRecords)
    func tsharkReadsTheLongerRecordWhole(snaplen: Int, length: Int) throws {
        let (bytes, conversationFrames) = Self.file(snaplen: snaplen, declaredLength: UInt32(length), storedLength: length)
        let path = try LimitTestSupport.write(bytes, name: "long-record.pcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let lengths = try Tshark.fields(path, ["frame.cap_len"])
        #expect(lengths.count == conversationFrames + 1)
        #expect(lengths.last == ["\(length)"])
    }

    /// Beyond max(snaplen, 262144) — 262145, 16 MiB, 0xFFFFFFF0 — the record is corruption: what
    /// came before is written, then the error, exit status 2; nothing is allocated for the claimed
    /// length (the file holds only 100 bytes of it).
    @Test(arguments: [UInt32(262_145), 16 << 20, 0xFFFF_FFF0, UInt32.max])
    func absurdRecordLengthIsCorruption(length: UInt32) throws {
        let (bytes, conversationFrames) = Self.file(snaplen: 65535, declaredLength: length, storedLength: 100)
        let path = try LimitTestSupport.write(bytes, name: "absurd-record.pcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (writer, result) = LimitTestSupport.analyzeConserved(path)
        #expect(result.summary.read.packets == conversationFrames)
        #expect(writer.exchanges.count == 1 && writer.connections.count == 1 && writer.flows.isEmpty)
        let run = try LimitTestSupport.analyzeJSONLines(path)
        #expect(run.status == 2)
        #expect(run.stderr.contains(
            "\(path): malformed capture after \(conversationFrames) complete packets (record length \(length) exceeds the limit 262144)"),
            "\(run.stderr)")
        #expect(run.records.count == 2)
    }

    /// A file whose header claims a huge snaplen raises the limit only to 256 MiB: a 0xFFFFFFF0-byte
    /// record is still corruption.
    @Test func hugeSnaplenDoesNotAcceptAbsurdRecords() throws {
        let (bytes, conversationFrames) = Self.file(snaplen: Int(UInt32.max), declaredLength: 0xFFFF_FFF0, storedLength: 100)
        let path = try LimitTestSupport.write(bytes, name: "huge-snaplen.pcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try LimitTestSupport.analyzeJSONLines(path)
        #expect(run.status == 2)
        #expect(run.stderr.contains(
            "malformed capture after \(conversationFrames) complete packets (record length 4294967280 exceeds the limit 268435456)"),
            "\(run.stderr)")
        LimitTestSupport.analyzeConserved(path)
    }

    /// pcapng: an Enhanced Packet Block claiming a 0xFFFFFFF0-byte packet in a 64-byte block, and a
    /// block claiming a 0xFFFFFFF0-byte length, after the first 20 packets of a recorded capture.
    @Test(arguments: [
        (blockLength: UInt32(64), capturedLength: UInt32(0xFFFF_FFF0), message: "captured length 4294967280 does not fit its 64-byte block"),
        (blockLength: 0xFFFF_FFF0, capturedLength: 32, message: "block type 6 has impossible length 4294967280"),
    ])
    func pcapngAbsurdLengthIsCorruption(blockLength: UInt32, capturedLength: UInt32, message: String) throws {
        let recorded = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestPaths.capture("nginx-pipelining.pcapng"))))
        let ends = TruncatedCaptureTests.pcapngBlockEnds(recorded)
        let packets = 20
        var bytes = Array(recorded[..<ends[1 + packets]])  // section header, interface, 20 packets
        bytes += FrameBuilder.le32(6) + FrameBuilder.le32(blockLength) + FrameBuilder.le32(0)
        bytes += FrameBuilder.le32(0) + FrameBuilder.le32(0) + FrameBuilder.le32(capturedLength) + FrameBuilder.le32(capturedLength)
        bytes += [UInt8](repeating: 0, count: 32) + FrameBuilder.le32(blockLength)
        let path = try LimitTestSupport.write(bytes, name: "absurd-block.pcapng")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (_, result) = LimitTestSupport.analyzeConserved(path)
        #expect(result.summary.read.packets == packets)
        let run = try LimitTestSupport.analyzeJSONLines(path)
        #expect(run.status == 2)
        #expect(run.stderr.contains("\(path): malformed capture after \(packets) complete packets (\(message))"), "\(run.stderr)")
        #expect(!run.records.isEmpty)
    }
}

import Foundation
import Testing
@testable import WireTally

/// Files that are not captures at all: a clear error, exit status 1, and no records.
@Suite struct GarbageFileTests {
    /// The smallest valid PNG (a 1×1 grey pixel): signature, IHDR, IDAT, IEND.
    static let png: [UInt8] = [
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x3a, 0x7e, 0x9b,
        0x55, 0x00, 0x00, 0x00, 0x0a, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x60, 0x00, 0x00, 0x00,
        0x02, 0x00, 0x01, 0x48, 0xaf, 0xa4, 0x71, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
        0x42, 0x60, 0x82,
    ]

    static func randomBytes(count: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(state: seed)
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    static let cases: [(name: String, bytes: [UInt8], message: String)] = [
        ("random.pcap", randomBytes(count: 1 << 20, seed: 7), "not a pcap, pcapng or gzip-compressed capture"),
        ("empty.pcap", [], "file is truncated after 0 complete packets (file shorter than any capture header)"),
        ("three-bytes.pcap", [0xd4, 0xc3, 0xb2], "file is truncated after 0 complete packets"),
        ("notes.txt", Array(String(repeating: "GET / HTTP/1.1\r\nHost: example\r\n\r\n", count: 100).utf8),
         "not a pcap, pcapng or gzip-compressed capture"),
        ("image.png", png, "not a pcap, pcapng or gzip-compressed capture"),
        ("random.gz", Compression.compress(randomBytes(count: 4096, seed: 8), .gzip),
         "not a pcap, pcapng or gzip-compressed capture"),
        ("pcap-header-only-garbage-after.pcap",
         FrameBuilder.pcap(frames: [], link: .ethernet) + randomBytes(count: 8, seed: 9),
         "file is truncated after 0 complete packets (record header cut short)"),
    ]

    @Test(arguments: cases.indices)
    func garbageIsAClearErrorWithExitOneAndNoRecords(index: Int) throws {
        let (name, bytes, message) = Self.cases[index]
        let path = try LimitTestSupport.write(bytes, name: name)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try LimitTestSupport.analyzeJSONLines(path)
        #expect(run.status == 1, "\(name)")
        #expect(run.stderr.contains("wiretally: \(path): \(message)"), "\(name): \(run.stderr)")
        #expect(run.records.isEmpty, "\(name)")
        #expect(run.summary.contains("\"packets\":0,"), "\(name)")
        let (writer, result) = LimitTestSupport.analyzeConserved(path)
        #expect(writer.connections.isEmpty && writer.flows.isEmpty && writer.exchanges.isEmpty)
        #expect(result.summary.errors.count == 1)
    }
}

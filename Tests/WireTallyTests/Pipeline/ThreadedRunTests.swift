import Foundation
import Testing
@testable import WireTally

/// Reading on a second thread (`AnalysisRun.threads == 2`) changes nothing: the JSON Lines output is
/// byte for byte the one of the single-threaded run, on every recorded and public capture, on several
/// files merged, on gzip input, and on a damaged file (same records before the damage, same errors).
@Suite struct ThreadedRunTests {
    static var everyCapture: [String] {
        var paths = TestPaths.files(in: TestPaths.captures, endingWith: [".pcap", ".pcapng", ".pcap.gz"])
            .map(TestPaths.capture)
        if let folder = TestPaths.publicCaptures {
            paths += TestPaths.files(in: folder, endingWith: [".pcap", ".pcapng", ".cap", ".pcap.gz"])
                .map { folder.appendingPathComponent($0).path }
        }
        return paths
    }

    /// The JSON Lines text of one run, and its errors.
    static func jsonl(_ files: [String], threads: Int, decode: Bool = true) throws -> (text: String, errors: [String]) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wiretally-threads-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var options = CaptureAnalyzer.Options()
        options.http.decodeBodies = decode
        let result = AnalysisRun(files: files, options: options, threads: threads)
            .run(writer: JSONLinesWriter(output: try TextOutput(path: path)))
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return (text, result.errors.map { String(describing: $0) })
    }

    @Test func sameOutputOnEveryCapture() throws {
        let captures = Self.everyCapture
        #expect(captures.count >= 10)
        for capture in captures {
            let one = try Self.jsonl([capture], threads: 1)
            let two = try Self.jsonl([capture], threads: 2)
            #expect(one.text == two.text, "\(capture)")
            #expect(one.errors == two.errors, "\(capture)")
            #expect(one.text.hasSuffix("\"conserved\":true}\n") || !one.errors.isEmpty, "\(capture)")
        }
    }

    @Test func sameOutputForMergedFilesAndAMissingOne() throws {
        let files = [
            TestPaths.capture("nginx-chunked-gzip.pcap.gz"), TestPaths.capture("dns-http.pcap"),
            "/nonexistent/capture.pcap", TestPaths.capture("lossy.pcap"),
        ]
        let one = try Self.jsonl(files, threads: 1, decode: false)
        let two = try Self.jsonl(files, threads: 2, decode: false)
        #expect(one.text == two.text)
        #expect(one.errors == two.errors && one.errors.count == 1)
    }

    /// More packets than fit in one batch, then a file cut in the middle of a record.
    @Test func sameOutputOnATruncatedFileOfManyBatches() throws {
        let whole = try Data(contentsOf: URL(fileURLWithPath: TestPaths.capture("lossy.pcap")))
        #expect(whole.count > PacketBatch.byteCapacity)
        let cut = FileManager.default.temporaryDirectory.appendingPathComponent("wiretally-cut-\(UUID().uuidString).pcap")
        defer { try? FileManager.default.removeItem(at: cut) }
        try whole.prefix(whole.count - 700).write(to: cut)
        let one = try Self.jsonl([cut.path], threads: 1)
        let two = try Self.jsonl([cut.path], threads: 2)
        #expect(one.text == two.text)
        #expect(one.errors == two.errors)
        #expect(one.errors.first?.contains("truncated") == true)
    }
}

import Foundation
import Testing
@testable import WireTally

/// Records are described once and written into two encoders: JSON Lines text (`JSONTextEncoder`) and
/// the `JSONValue` other outputs read (`JSONTreeBuilder`). Both must say the same thing.
@Suite struct RecordEncodingTests {
    /// Every record (then the summary) as its `JSONValue`, serialised.
    final class TreeLines: RecordWriter {
        var lines: [String] = []

        func write(_ record: AnalysisRecord, timestampDigits: Int) {
            lines.append(RecordEncoding.record(record, timestampDigits: timestampDigits).serialized)
        }

        func finish(summary: CaptureSummary, files: [String]) {
            lines.append(RecordEncoding.summary(summary, files: files).serialized)
        }
    }

    @Test func textAndTreeAgreeOnEveryRecordedCapture() throws {
        let captures = TestPaths.files(in: TestPaths.captures, endingWith: [".pcap", ".pcapng", ".pcap.gz"])
            .map(TestPaths.capture)
        #expect(captures.count >= 10)
        for capture in captures {
            let path = TestScratch.folder
                .appendingPathComponent("wiretally-encoding-\(UUID().uuidString).jsonl").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            let tree = TreeLines()
            _ = AnalysisRun(files: [capture], options: CaptureAnalyzer.Options())
                .run(writer: RecordTee([JSONLinesWriter(output: try TextOutput(path: path)), tree]))
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text == tree.lines.map { $0 + "\n" }.joined(), "\(capture)")
        }
    }

    @Test func millisecondsWithMicrosecondResolution() {
        let cases: [(Int64, String)] = [
            (0, "0.000"), (999, "0.000"), (1_000, "0.001"), (12_345_678, "12.345"), (1_000_000, "1.000"),
            (-1_000, "-0.001"), (-12_345_678, "-12.345"), (-999, "0.000"),
            (Int64.max, "9223372036854.775"), (Int64.min, "-9223372036854.775"),
        ]
        for (nanoseconds, text) in cases {
            #expect(RecordEncoding.milliseconds(nanoseconds) == text, "\(nanoseconds)")
        }
    }
}

import Foundation
import Testing
@testable import WireTally

#if canImport(Glibc)
import Glibc
#endif

/// The writer thread (`BackgroundRecordWriter`, with `threads > 1` and an `OffThreadRecordWriter`):
/// JSON Lines, CSV and table (both views) and the endpoint summary come out byte for byte as with one
/// thread on every recorded capture; the writer really runs on its own thread and gets the records in emission order, also
/// thousands of tiny ones (many more than the batches in flight hold); a run whose output cannot be
/// written, or with nothing to analyse, ends as with one thread.
extension ThreadedRunTests {
    /// The text `format` writes (its `view`) for one run, and the run's errors.
    static func output(_ files: [String], threads: Int, format: OutputFormat, view: RecordView = .exchanges) throws
        -> (text: String, errors: [String])
    {
        let path = TestScratch.folder.appendingPathComponent("wiretally-writer-\(UUID().uuidString).out").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = format.makeWriter(output: try TextOutput(path: path), view: view)
        let result = AnalysisRun(files: files, options: format.analyzerOptions(CaptureAnalyzer.Options()), threads: threads)
            .run(writer: writer)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return (text, result.errors.map { String(describing: $0) })
    }

    /// The formats written on the writer thread, with each view: the output of two threads is the
    /// output of one (the JSON Lines of every capture is checked by `sameOutputOnEveryRecordedCapture`).
    @Test func sameCSVAndTableOnEveryRecordedCapture() throws {
        let captures = TestPaths.files(in: TestPaths.captures, endingWith: [".pcap", ".pcapng", ".pcap.gz"]).map(TestPaths.capture)
        #expect(captures.count >= 10)
        for capture in captures {
            for format in [OutputFormat.csv, .table] {
                for view in RecordView.allCases {
                    let one = try Self.output([capture], threads: 1, format: format, view: view)
                    let two = try Self.output([capture], threads: 2, format: format, view: view)
                    #expect(one.text == two.text, "\(capture) \(format) \(view)")
                    #expect(one.errors == two.errors, "\(capture) \(format) \(view)")
                }
            }
        }
    }

    /// The endpoint summary (`--summary`, which reads exchanges only) on the writer thread: the same
    /// JSON and table as with one thread on every recorded capture.
    @Test func sameEndpointSummaryOnEveryRecordedCapture() throws {
        let captures = TestPaths.files(in: TestPaths.captures, endingWith: [".pcap", ".pcapng", ".pcap.gz"]).map(TestPaths.capture)
        for capture in captures {
            for format in [EndpointSummaryWriter.Format.json, .table] {
                var texts: [String] = []
                for threads in [1, 2] {
                    let path = TestScratch.folder.appendingPathComponent("wiretally-summary-\(UUID().uuidString).out").path
                    defer { try? FileManager.default.removeItem(atPath: path) }
                    _ = AnalysisRun(files: [capture], threads: threads)
                        .run(writer: EndpointSummaryWriter(output: try TextOutput(path: path), format: format))
                    texts.append(try String(contentsOfFile: path, encoding: .utf8))
                }
                #expect(texts[0] == texts[1], "\(capture) \(format)")
                #expect(!texts[0].isEmpty, "\(capture) \(format)")
            }
        }
    }

    /// Exactly the writers that read records as values are written on their own thread; HAR (which
    /// keeps exchanges until the end) stays with the analysis.
    @Test func offThreadFormats() {
        let output = TextOutput()
        for format in OutputFormat.allCases {
            #expect((format.makeWriter(output: output) is any OffThreadRecordWriter) == (format != .har), "\(format)")
        }
        let summaryWriter: any RecordWriter = EndpointSummaryWriter(output: output, format: .json)
        #expect(summaryWriter is any OffThreadRecordWriter)
    }

    /// Passes every record to JSON Lines and notes the thread and the order it got them in.
    final class ThreadNotingWriter: OffThreadRecordWriter {
        let jsonl: JSONLinesWriter
        private(set) var recordThreads = Set<UInt>()
        private(set) var finishThread: UInt?
        private(set) var exchangeIDs: [Int] = []
        private(set) var records = 0

        init(path: String) throws { jsonl = JSONLinesWriter(output: try TextOutput(path: path)) }

        func write(_ record: AnalysisRecord, timestampDigits: Int) {
            recordThreads.insert(UInt(pthread_self()))
            records += 1
            if case let .exchange(exchangeRecord) = record { exchangeIDs.append(exchangeRecord.id) }
            jsonl.write(record, timestampDigits: timestampDigits)
        }

        func finish(summary: CaptureSummary, files: [String]) {
            finishThread = UInt(pthread_self())
            jsonl.finish(summary: summary, files: files)
        }
    }

    /// One keep-alive HTTP connection carrying `exchanges` tiny exchanges (each record emitted while
    /// the connection goes on), then `flows` one-datagram UDP flows (each its own record).
    static func tinyRecordsCapture(exchanges: Int, flows: Int) -> [UInt8] {
        let (c, s) = ("10.0.0.1:40000", "10.0.0.2:80")
        let request = Array("GET /t HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        let response = Array("HTTP/1.1 204 No Content\r\n\r\n".utf8)
        var frames = [
            FrameBuilder.tcp(from: c, to: s, seq: 100, flags: [.syn]),
            FrameBuilder.tcp(from: s, to: c, seq: 500, ack: 101, flags: [.syn, .ack]),
            FrameBuilder.tcp(from: c, to: s, seq: 101, ack: 501),
        ]
        var (up, down) = (UInt32(101), UInt32(501))
        for _ in 0..<exchanges {
            frames.append(FrameBuilder.tcp(from: c, to: s, seq: up, ack: down, flags: [.ack, .psh], payload: request))
            up += UInt32(request.count)
            frames.append(FrameBuilder.tcp(from: s, to: c, seq: down, ack: up, flags: [.ack, .psh], payload: response))
            down += UInt32(response.count)
            frames.append(FrameBuilder.tcp(from: c, to: s, seq: up, ack: down))
        }
        for flow in 0..<flows {
            frames.append(FrameBuilder.udp(from: "10.0.1.1:\(20000 + flow)", to: "10.0.1.2:9999", payload: [UInt8(flow & 0xff)]))
        }
        let times = frames.indices.map { Timestamp(seconds: 1_700_000_000, nanoseconds: Int64($0) * 2_000_000) }
        return FrameBuilder.pcap(frames: frames, link: .ethernet, timestamps: times)
    }

    /// Thousands of tiny records — many times what the batches in flight hold, so the analysing thread
    /// waits for the writer and batches are reused — reach the writer on its own thread, in emission
    /// order, summary last, and the output is the one of one thread; the stage is not used with one
    /// thread.
    @Test func manyTinyRecordsInOrderOnTheWriterThread() throws {
        let scratch = try TemporaryDirectory()
        let capture = try scratch.file("tiny.pcap", Self.tinyRecordsCapture(exchanges: 3000, flows: 2000))
        let caller = UInt(pthread_self())
        var texts: [String] = []
        for threads in [1, 2] {
            let path = scratch.path + "/tiny-\(threads).jsonl"
            let writer = try ThreadNotingWriter(path: path)
            let result = AnalysisRun(files: [capture], threads: threads).run(writer: writer)
            #expect(result.errors.isEmpty && result.summary.isConserved)
            #expect(result.summary.exchanges == 3000 && result.summary.flows == 2000)
            #expect(writer.records == 3000 + 1 + 2000)
            #expect(writer.records > 4 * RecordBatch.capacity)
            #expect(writer.exchangeIDs == Array(1...3000))
            if threads == 1 {
                #expect(writer.recordThreads == [caller] && writer.finishThread == caller)
            } else {
                #expect(writer.recordThreads.count == 1 && !writer.recordThreads.contains(caller))
                #expect(writer.finishThread == writer.recordThreads.first)
            }
            texts.append(try String(contentsOfFile: path, encoding: .utf8))
        }
        #expect(texts[0] == texts[1])
        #expect(texts[0].hasSuffix("\"conserved\":true}\n"))
    }

    /// Output that cannot be written (`/dev/full`: every write fails): the run still ends, with the
    /// summary of one thread; with no input at all (a missing file) the writer thread writes the summary
    /// alone, as one thread does.
    @Test func unwritableOutputAndNoInputEndAsWithOneThread() throws {
        let capture = TestPaths.capture("nginx-curl-keepalive.pcap")
        var summaries: [String] = []
        for threads in [1, 2] {
            let result = AnalysisRun(files: [capture], threads: threads)
                .run(writer: JSONLinesWriter(output: try TextOutput(path: "/dev/full")))
            summaries.append(RecordEncoding.summary(result.summary, files: [capture]).serialized)
        }
        #expect(summaries[0] == summaries[1])
        #expect(summaries[0].contains("\"conserved\":true"))
        for format in [OutputFormat.jsonl, .csv, .table] {
            let one = try Self.output(["/nonexistent/capture.pcap"], threads: 1, format: format)
            let two = try Self.output(["/nonexistent/capture.pcap"], threads: 2, format: format)
            #expect(one.text == two.text, "\(format)")
            #expect(one.errors == two.errors && one.errors.count == 1, "\(format)")
        }
    }
}

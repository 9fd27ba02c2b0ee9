#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Buffered text output to a file or standard output.
package final class TextOutput {
    private let file: UnsafeMutablePointer<FILE>
    private let ownsFile: Bool

    /// Standard output.
    package init() {
        file = fdopen(STDOUT_FILENO, "w")
        ownsFile = false
    }

    /// A file, created or truncated.
    package init(path: String) throws {
        guard let opened = fopen(path, "w") else {
            throw CaptureError.cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        file = opened
        ownsFile = true
    }

    package func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in _ = fwrite(bytes.baseAddress, 1, bytes.count, file) }
    }

    /// Writes UTF-8 bytes as they are.
    package func write(bytes: UnsafeRawBufferPointer) {
        _ = fwrite(bytes.baseAddress, 1, bytes.count, file)
    }

    package func flush() { fflush(file) }

    deinit {
        if ownsFile { fclose(file) } else { fflush(file) }
    }
}

/// Writes records in one output format as they are produced, then the summary.
package protocol RecordWriter: AnyObject {
    func write(_ record: AnalysisRecord, timestampDigits: Int)
    func finish(summary: CaptureSummary, files: [String])
    /// Hands everything written so far to the output (live capture flushes after each record).
    func flush()
}

extension RecordWriter {
    /// Writers that keep no records of their own have nothing to flush.
    package func flush() {}
}

/// The output formats of `analyze`.
package enum OutputFormat: String, CaseIterable, Sendable {
    case table, jsonl, csv, har

    /// A writer of this format on `output`; `view` chooses the lines of table and CSV.
    package func makeWriter(output: TextOutput, view: RecordView = .exchanges) -> any RecordWriter {
        switch self {
        case .table: return TableWriter(output: output, view: view)
        case .jsonl: return JSONLinesWriter(output: output)
        case .csv: return CSVWriter(output: output, view: view)
        case .har: return HARWriter(output: output)
        }
    }
}

/// One JSON object per line: every exchange, connection and flow as it completes, then the summary.
///
/// Each record is encoded straight into one reusable byte buffer (no intermediate `JSONValue`), handed
/// to the output in large writes.
package final class JSONLinesWriter: OffThreadRecordWriter {
    private let output: TextOutput
    private var encoder: JSONTextEncoder
    /// Buffered bytes beyond which the buffer goes to the output.
    private static let flushThreshold = 256 << 10

    package init(output: TextOutput) {
        self.output = output
        encoder = JSONTextEncoder(capacity: Self.flushThreshold + (64 << 10))
    }

    package func write(_ record: AnalysisRecord, timestampDigits: Int) {
        RecordEncoding.record(record, timestampDigits: timestampDigits, to: &encoder)
        encoder.endLine()
        if encoder.buffer.count >= Self.flushThreshold { drain() }
    }

    package func finish(summary: CaptureSummary, files: [String]) {
        RecordEncoding.summary(summary, files: files, to: &encoder)
        encoder.endLine()
        drain()
        output.flush()
    }

    package func flush() {
        drain()
        output.flush()
    }

    private func drain() {
        output.write(bytes: encoder.buffer.bytes)
        encoder.buffer.removeAll()
    }
}

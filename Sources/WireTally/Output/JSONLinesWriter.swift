/// One JSON object per line: every exchange, connection and flow as it completes, then the summary.
///
/// Lines are written as bytes into one reusable buffer, handed to the output in large writes.
public final class JSONLinesWriter: RecordWriter {
    private let output: TextOutput
    private var buffer: [UInt8] = []
    /// Buffered bytes beyond which the buffer goes to the output.
    private static let flushThreshold = 256 << 10

    public init(output: TextOutput) {
        self.output = output
        buffer.reserveCapacity(Self.flushThreshold + (64 << 10))
    }

    public func write(_ record: AnalysisRecord, timestampDigits: Int) {
        RecordEncoding.record(record, timestampDigits: timestampDigits).write(to: &buffer)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= Self.flushThreshold { drain() }
    }

    public func finish(summary: CaptureSummary, files: [String]) {
        RecordEncoding.summary(summary, files: files).write(to: &buffer)
        buffer.append(UInt8(ascii: "\n"))
        drain()
        output.flush()
    }

    public func flush() {
        drain()
        output.flush()
    }

    private func drain() {
        output.write(bytes: buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}

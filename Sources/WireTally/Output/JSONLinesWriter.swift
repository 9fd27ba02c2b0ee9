/// One JSON object per line: every exchange, connection and flow as it completes, then the summary.
public final class JSONLinesWriter: RecordWriter {
    private let output: TextOutput

    public init(output: TextOutput) { self.output = output }

    public func write(_ record: AnalysisRecord, timestampDigits: Int) {
        var line = RecordEncoding.record(record, timestampDigits: timestampDigits).serialized
        line += "\n"
        output.write(line)
    }

    public func finish(summary: CaptureSummary, files: [String]) {
        output.write(RecordEncoding.summary(summary, files: files).serialized + "\n")
        output.flush()
    }
}

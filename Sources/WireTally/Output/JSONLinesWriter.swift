/// One JSON object per line: every connection and flow as it completes, then the summary.
public final class JSONLinesWriter: RecordWriter {
    private let output: TextOutput

    public init(output: TextOutput) { self.output = output }

    public func write(_ record: AnalysisRecord, timestampDigits: Int) {
        let value: JSONValue
        switch record {
        case let .connection(connection): value = RecordEncoding.connection(connection, timestampDigits: timestampDigits)
        case let .flow(flow): value = RecordEncoding.flow(flow, timestampDigits: timestampDigits)
        }
        var line = value.serialized
        line += "\n"
        output.write(line)
    }

    public func finish(summary: CaptureSummary, files: [String]) {
        output.write(RecordEncoding.summary(summary, files: files).serialized + "\n")
        output.flush()
    }
}

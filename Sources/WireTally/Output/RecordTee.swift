/// Hands every record and the summary to several writers, in order.
public final class RecordTee: RecordWriter {
    public let writers: [any RecordWriter]

    public init(_ writers: [any RecordWriter]) { self.writers = writers }

    public func write(_ record: AnalysisRecord, timestampDigits: Int) {
        for writer in writers { writer.write(record, timestampDigits: timestampDigits) }
    }

    public func finish(summary: CaptureSummary, files: [String]) {
        for writer in writers { writer.finish(summary: summary, files: files) }
    }

    public func flush() {
        for writer in writers { writer.flush() }
    }
}

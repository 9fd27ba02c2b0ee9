/// Hands every record and the summary to several writers, in order.
package final class RecordTee: RecordWriter {
    package let writers: [any RecordWriter]

    package init(_ writers: [any RecordWriter]) { self.writers = writers }

    package func write(_ record: AnalysisRecord, timestampDigits: Int) {
        for writer in writers { writer.write(record, timestampDigits: timestampDigits) }
    }

    package func finish(summary: CaptureSummary, files: [String]) {
        for writer in writers { writer.finish(summary: summary, files: files) }
    }

    package func flush() {
        for writer in writers { writer.flush() }
    }
}

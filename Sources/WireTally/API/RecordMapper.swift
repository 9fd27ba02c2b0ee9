/// The facade's end of the pipeline: maps each record the pipeline completes to a ``Record`` and hands
/// it on. The summary is left to the caller, which checks that something was analysed
/// (``Summary/init(checking:)``).
final class RecordMapper: RecordWriter {
    private let keepsSources: Bool
    private let handOn: (Record) -> Void

    init(keepsSources: Bool, handOn: @escaping (Record) -> Void) {
        self.keepsSources = keepsSources
        self.handOn = handOn
    }

    func write(_ record: AnalysisRecord, timestampDigits: Int) {
        if let mapped = Record(record, keepsSources: keepsSources) { handOn(mapped) }
    }

    func finish(summary: CaptureSummary, files: [String]) {}
}

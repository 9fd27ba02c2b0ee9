/// Records in a row, handed from the analysing thread to the writer thread (`BackgroundRecordWriter`)
/// through a `BatchPipe`, reused from batch to batch.
///
/// `clear()` only forgets the count: the entries stay in place until the analysing thread overwrites
/// them with the next records. So the last reference to an ended connection, flow or message buffer
/// is always dropped on the analysing thread (the writer thread only borrows them), and the array,
/// allocated once, is never grown or shrunk after the first round.
final class RecordBatch: PipeBatch {
    /// What the writer thread is to do, in order.
    enum Entry {
        case record(AnalysisRecord, timestampDigits: Int)
        /// `RecordWriter.finish(summary:files:)`: the last entry.
        case finish(CaptureSummary, files: [String])
    }

    /// Records a batch holds before it is handed over: enough that hand-overs (a lock, maybe a
    /// wake-up) are rare, few enough that the batches in flight stay small (an `http` entry is about
    /// 1.5 KB of values).
    static let capacity = 256

    /// The first `count` are this batch's; the others are left from earlier rounds.
    private(set) var entries: [Entry] = []
    private(set) var count = 0

    init() { entries.reserveCapacity(Self.capacity) }

    var isFull: Bool { count >= Self.capacity }

    /// Adds `entry` (analysing thread), over the one left in its place from an earlier round.
    func append(_ entry: consuming Entry) {
        if count < entries.count {
            entries[count] = consume entry
        } else {
            entries.append(consume entry)
        }
        count += 1
    }

    func clear() { count = 0 }
}

/// Records in a row, handed from the analysing thread to the writer thread (`BackgroundRecordWriter`)
/// through a `BatchPipe`, reused from batch to batch.
///
/// The writer thread only reads the records and gives the batch back with them (`clear()` does
/// nothing); the analysing thread drops them when it takes the batch again (`reuse()`). So the last
/// reference to an ended connection, flow or message buffer is always dropped on the analysing
/// thread — a connection's end releases what it held of shared budgets there, as with one thread —
/// and the records' storage, reserved once, never grows.
final class RecordBatch: PipeBatch {
    /// Records a batch holds before it is handed over: enough that hand-overs (a lock, maybe a
    /// wake-up) are rare, few enough that the batches in flight stay small (an `http` record holds
    /// about 1.45 KB of values, in its `ExchangeRecord`).
    static let capacity = 256
    /// Connection records (TCP or QUIC) a batch holds before it is handed over: an ended connection
    /// keeps its stream history and buffers (up to ~130 KB) until the writer is done with its record,
    /// so few of them are in flight at once.
    static let connectionCapacity = 16

    /// The records, in order. Kept apart from their digits (not as pairs): a record is moved straight
    /// from the argument into the array, not first into a pair.
    private var records: [AnalysisRecord] = []
    /// The digits of each record's timestamps, for `RecordWriter.write(_:timestampDigits:)`.
    private var timestampDigits: [Int] = []
    /// `RecordWriter.finish(summary:files:)`'s arguments, after the records: set on the last batch.
    private(set) var finish: (summary: CaptureSummary, files: [String])?
    private var connections = 0

    init() {
        records.reserveCapacity(Self.capacity)
        timestampDigits.reserveCapacity(Self.capacity)
    }

    var isFull: Bool { records.count >= Self.capacity || connections >= Self.connectionCapacity }

    /// Adds `record` (analysing thread).
    func append(_ record: consuming AnalysisRecord, timestampDigits digits: Int) {
        switch record {
        case .connection, .quicConnection: connections += 1
        default: break
        }
        records.append(record)
        timestampDigits.append(digits)
    }

    /// Makes this the last batch: the summary is written after its records (analysing thread).
    func setFinish(summary: CaptureSummary, files: [String]) {
        finish = (summary, files)
    }

    /// Runs `body` on every record and its timestamp digits in order (writer thread), without copying
    /// one: each is moved out of the batch for the call and back in after it (a copy would retain and
    /// release every reference an `http` record holds; the records stay for the analysing thread to
    /// drop).
    func forEachRecord(_ body: (AnalysisRecord, Int) -> Void) {
        records.withUnsafeMutableBufferPointer { records in
            guard let base = records.baseAddress else { return }
            for index in records.indices {
                let record = (base + index).move()
                body(record, timestampDigits[index])
                (base + index).initialize(to: record)
            }
        }
    }

    /// Nothing: the records are dropped by the analysing thread (`reuse()`).
    func clear() {}

    /// Drops the last round's records before the batch is filled again (analysing thread).
    func reuse() {
        records.removeAll(keepingCapacity: true)
        timestampDigits.removeAll(keepingCapacity: true)
        connections = 0
    }
}

/// Records in a row, handed from the analysing thread to the writer thread (`BackgroundRecordWriter`)
/// through a `BatchPipe`, reused from batch to batch.
///
/// The writer thread only reads the records and gives the batch back with them (`clear()` does
/// nothing); the analysing thread drops them when it fills the batch again. So the last reference to
/// an ended connection, flow or message buffer is always dropped on the analysing thread — a
/// connection's end releases what it held of shared budgets there, as with one thread — and the
/// records' storage, reserved once, never grows.
///
/// A round of exchange records only is dropped one record at a time, each when the next round's
/// record takes its slot (`append`), not all at once in `reuse()`: the memory of the record, its
/// messages and their strings goes back to the allocator's per-thread cache right before the
/// analysis asks for the same sizes again, instead of 256 records' worth coalescing in its bins (with
/// two threads, `malloc` and `free` cost about a third more when the records were dropped together).
/// Any other record (a connection, a flow, a DNS transaction) makes `reuse()` drop its round at once,
/// as before.
final class RecordBatch: PipeBatch {
    /// Records a batch holds before it is handed over: enough that hand-overs (a lock, maybe a
    /// wake-up) are rare, few enough that the batches in flight stay small (an `http` record holds
    /// about 1 KB of values, in its `ExchangeRecord`).
    static let capacity = 256
    /// Connection records (TCP or QUIC) a batch holds before it is handed over: an ended connection
    /// keeps its stream history and buffers (up to ~130 KB) until the writer is done with its record,
    /// so few of them are in flight at once.
    static let connectionCapacity = 16

    /// The records, in order: the first `count` are this round's, any after them the last round's
    /// exchange records, not dropped yet. Kept apart from their digits (not as pairs): a record is
    /// moved straight from the argument into the array, not first into a pair.
    private var records: [AnalysisRecord] = []
    /// This round's records.
    private var count = 0
    /// True while this round holds exchange records only (`reuse()` may leave them to `append`).
    private var holdsExchangesOnly = true
    /// The digits of each record's timestamps, for `RecordWriter.write(_:timestampDigits:)`.
    private var timestampDigits: [Int] = []
    /// `RecordWriter.finish(summary:files:)`'s arguments, after the records: set on the last batch.
    private(set) var finish: (summary: CaptureSummary, files: [String])?
    private var connections = 0

    init() {
        records.reserveCapacity(Self.capacity)
        timestampDigits.reserveCapacity(Self.capacity)
    }

    var isFull: Bool { count >= Self.capacity || connections >= Self.connectionCapacity }

    /// Adds `record` (analysing thread), in the slot of the last round's record it drops, if any.
    func append(_ record: consuming AnalysisRecord, timestampDigits digits: Int) {
        switch record {
        case .exchange: break
        case .connection, .quicConnection:
            connections += 1
            holdsExchangesOnly = false
        default: holdsExchangesOnly = false
        }
        if count < records.count {
            records[count] = record
        } else {
            records.append(record)
        }
        count += 1
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
            for index in 0..<count {
                let record = (base + index).move()
                body(record, timestampDigits[index])
                (base + index).initialize(to: record)
            }
        }
    }

    /// Nothing: the records are dropped by the analysing thread (`reuse()`, `append`).
    func clear() {}

    /// Starts a new round before the batch is filled again (analysing thread): drops the last round's
    /// records, unless they are all exchange records, which `append` drops one by one.
    func reuse() {
        if !holdsExchangesOnly { records.removeAll(keepingCapacity: true) }
        count = 0
        holdsExchangesOnly = true
        timestampDigits.removeAll(keepingCapacity: true)
        connections = 0
    }
}

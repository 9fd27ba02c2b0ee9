/// Records in a row, handed from the analysing thread to the writer thread (`BackgroundRecordWriter`)
/// through a `BatchPipe`, reused from batch to batch.
///
/// The writer thread only reads the entries and gives the batch back with them (`clear()` does
/// nothing); the analysing thread drops them when it takes the batch again (`reuse()`). So the last
/// reference to an ended connection, flow or message buffer is always dropped on the analysing
/// thread — a connection's end releases what it held of shared budgets there, as with one thread —
/// and the entries' storage, reserved once, never grows.
final class RecordBatch: PipeBatch {
    /// A record and the digits of its timestamps, for `RecordWriter.write(_:timestampDigits:)`.
    struct Entry {
        var record: AnalysisRecord
        var timestampDigits: Int
    }

    /// Records a batch holds before it is handed over: enough that hand-overs (a lock, maybe a
    /// wake-up) are rare, few enough that the batches in flight stay small (an `http` entry is about
    /// 2 KB of values).
    static let capacity = 256
    /// Connection records (TCP or QUIC) a batch holds before it is handed over: an ended connection
    /// keeps its stream history and buffers (up to ~130 KB) until the writer is done with its record,
    /// so few of them are in flight at once.
    static let connectionCapacity = 16

    /// The records, in order.
    private(set) var entries: [Entry] = []
    /// `RecordWriter.finish(summary:files:)`'s arguments, after the entries: set on the last batch.
    private(set) var finish: (summary: CaptureSummary, files: [String])?
    private var connections = 0

    init() { entries.reserveCapacity(Self.capacity) }

    var isFull: Bool { entries.count >= Self.capacity || connections >= Self.connectionCapacity }

    /// Adds `record` (analysing thread).
    func append(_ record: consuming AnalysisRecord, timestampDigits: Int) {
        switch record {
        case .connection, .quicConnection: connections += 1
        default: break
        }
        entries.append(Entry(record: record, timestampDigits: timestampDigits))
    }

    /// Makes this the last batch: the summary is written after its entries (analysing thread).
    func setFinish(summary: CaptureSummary, files: [String]) {
        finish = (summary, files)
    }

    /// Runs `body` on every entry in order (writer thread), without copying one: each is moved out of
    /// the batch for the call and back in after it (a copy would retain and release every reference
    /// an `http` record holds; the entries stay for the analysing thread to drop).
    func forEachEntry(_ body: (Entry) -> Void) {
        entries.withUnsafeMutableBufferPointer { entries in
            guard let base = entries.baseAddress else { return }
            for index in entries.indices {
                let entry = (base + index).move()
                body(entry)
                (base + index).initialize(to: entry)
            }
        }
    }

    /// Nothing: the entries are dropped by the analysing thread (`reuse()`).
    func clear() {}

    /// Drops the last round's entries before the batch is filled again (analysing thread).
    func reuse() {
        entries.removeAll(keepingCapacity: true)
        connections = 0
    }
}

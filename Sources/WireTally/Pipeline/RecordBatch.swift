/// Records in a row, handed from the analysing thread to the writer thread (`BackgroundRecordWriter`)
/// through a `BatchPipe`, reused from batch to batch.
///
/// The writer thread only reads the entries and gives the batch back with them (`clear()` does
/// nothing); the analysing thread drops them when it takes the batch again (`reuse()`). So the last
/// reference to an ended connection, flow or message buffer is always dropped on the analysing
/// thread — a connection's end releases what it held of shared budgets there, as with one thread —
/// and the entries' storage, reserved once, never grows.
final class RecordBatch: PipeBatch {
    /// What the writer thread is to do, in order.
    enum Entry {
        case record(AnalysisRecord, timestampDigits: Int)
        /// `RecordWriter.finish(summary:files:)`: the last entry.
        case finish(CaptureSummary, files: [String])
    }

    /// Records a batch holds before it is handed over: enough that hand-overs (a lock, maybe a
    /// wake-up) are rare, few enough that the batches in flight stay small (an `http` entry is about
    /// 2 KB of values).
    static let capacity = 256
    /// Connection records (TCP or QUIC) a batch holds before it is handed over: an ended connection
    /// keeps its stream history and buffers (up to ~130 KB) until the writer is done with its record,
    /// so few of them are in flight at once.
    static let connectionCapacity = 16

    private(set) var entries: [Entry] = []
    private var connections = 0

    init() { entries.reserveCapacity(Self.capacity) }

    var isFull: Bool { entries.count >= Self.capacity || connections >= Self.connectionCapacity }

    /// Adds `entry` (analysing thread).
    func append(_ entry: consuming Entry) {
        switch entry {
        case .record(.connection, _), .record(.quicConnection, _): connections += 1
        default: break
        }
        entries.append(consume entry)
    }

    /// Nothing: the entries are dropped by the analysing thread (`reuse()`).
    func clear() {}

    /// Drops the last round's entries before the batch is filled again (analysing thread).
    func reuse() {
        entries.removeAll(keepingCapacity: true)
        connections = 0
    }
}

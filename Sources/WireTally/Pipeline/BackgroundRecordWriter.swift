#if canImport(Glibc)
import Glibc
#endif

/// A writer that may encode and write on a thread of its own while the analysis goes on: of the
/// records it is given it reads only what no longer changes once they are emitted — an exchange's
/// values (`HTTPExchange`, and `ExchangeConnection`, a copy taken at emission), DNS transactions
/// (values), and ended connections and flows, which the analyzer has taken out of its tables and
/// does not touch again — and it shares no state with the analysis.
package protocol OffThreadRecordWriter: RecordWriter {}

/// Hands every record and then the summary to an `OffThreadRecordWriter` running on a thread of
/// its own, in order, through a bounded set of reused `RecordBatch`es: the analysing thread only
/// moves each record into a batch; encoding and writing happen on the writer thread. The output is
/// the wrapped writer's, byte for byte, as if it were called directly. The analysing thread waits
/// when every batch is in flight (memory stays flat); `finish` returns once everything is written.
final class BackgroundRecordWriter: @unchecked Sendable {
    private let writer: any OffThreadRecordWriter
    private let pipe: BatchPipe<RecordBatch>
    private var thread = pthread_t()
    /// The batch the analysing thread is filling.
    private var filling: RecordBatch

    /// Starts the writer thread for `writer`; nil when no thread could be started.
    init?(writer: any OffThreadRecordWriter, batches: Int = 4) {
        self.writer = writer
        pipe = BatchPipe(batches: batches)
        filling = pipe.takeEmpty()
        filling.reuse()
        let context = Unmanaged.passRetained(self).toOpaque()
        let status = pthread_create(&thread, nil, { context in
            let stage = Unmanaged<BackgroundRecordWriter>.fromOpaque(context!).takeRetainedValue()
            stage.writeAll()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<BackgroundRecordWriter>.fromOpaque(context).release()
            return nil
        }
    }

    /// `RecordWriter.write`, the record moved into the batch (no copy of its parts, no reference
    /// counting).
    func write(_ record: consuming AnalysisRecord, timestampDigits: Int) {
        filling.append(record, timestampDigits: timestampDigits)
        if filling.isFull { handOver() }
    }

    /// Hands the summary over and waits for the writer thread to have written everything.
    func finish(summary: CaptureSummary, files: [String]) {
        filling.setFinish(summary: summary, files: files)
        pipe.send(filling)
        pipe.close()
        pthread_join(thread, nil)
    }

    private func handOver() {
        pipe.send(filling)
        filling = pipe.takeEmpty()
        filling.reuse()
    }

    /// The writer thread: every batch's entries to the writer, in order, until the pipe is closed.
    private func writeAll() {
        while let batch = pipe.receive() {
            batch.forEachRecord { writer.write($0, timestampDigits: $1) }
            if let finish = batch.finish { writer.finish(summary: finish.summary, files: finish.files) }
            pipe.giveBack(batch)
        }
    }
}

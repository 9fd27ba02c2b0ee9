#if canImport(Glibc)
import Glibc
#endif

/// Hands packet batches from one reading thread to one analysing thread, in order, through a fixed
/// set of reused batches: the reader waits when all are full, the analyser when none is.
///
/// The reader is usually the faster of the two, so it mostly waits for empty batches. Once it waits,
/// it is woken when half of the batches are empty again, not for each one given back: every wake-up
/// costs the analysing thread a system call and a scheduler pass.
final class PacketBatchPipe: @unchecked Sendable {
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Empty batches that wake a waiting reader.
    private let refillCount: Int
    // Guarded by `lock`.
    private var empty: [PacketBatch]
    private var full: [PacketBatch] = []
    private var isClosed = false
    private var readerIsWaiting = false

    /// - Parameter batches: batches in flight at most (memory: `PacketBatch.byteCapacity` each).
    init(batches: Int) {
        empty = (0..<max(2, batches)).map { _ in PacketBatch() }
        refillCount = empty.count / 2
        full.reserveCapacity(empty.count)
        pthread_mutex_init(lock, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(lock)
        changed.deallocate()
        lock.deallocate()
    }

    /// Reader: an empty batch to fill (waits until the analyser gives one back).
    func takeEmpty() -> PacketBatch {
        locked {
            if empty.isEmpty {
                readerIsWaiting = true
                while empty.count < refillCount { pthread_cond_wait(changed, lock) }
                readerIsWaiting = false
            }
            return empty.removeLast()
        }
    }

    /// Reader: hands a filled batch over.
    func send(_ batch: PacketBatch) {
        locked {
            full.append(batch)
            pthread_cond_broadcast(changed)
        }
    }

    /// Reader: no more batches will come.
    func close() {
        locked {
            isClosed = true
            pthread_cond_broadcast(changed)
        }
    }

    /// Analyser: the next filled batch in order, or nil once the reader has closed the pipe and every
    /// batch was taken.
    func receive() -> PacketBatch? {
        locked {
            while full.isEmpty && !isClosed { pthread_cond_wait(changed, lock) }
            return full.isEmpty ? nil : full.removeFirst()
        }
    }

    /// Analyser (or reader): gives a batch back for reuse.
    func giveBack(_ batch: PacketBatch) {
        batch.clear()
        locked {
            empty.append(batch)
            if readerIsWaiting && empty.count >= refillCount { pthread_cond_broadcast(changed) }
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return body()
    }
}

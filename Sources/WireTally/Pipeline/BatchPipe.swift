#if canImport(Glibc)
import Glibc
#endif

/// A batch a `BatchPipe` hands from thread to thread and reuses.
protocol PipeBatch: AnyObject {
    init()
    /// Makes the batch empty for reuse (called by the thread that gives it back).
    func clear()
}

/// Hands batches from one producing thread to one consuming thread, in order, through a fixed set of
/// reused batches: the producer waits when all are full, the consumer when none is. Packets go from
/// the reader to the analysing thread (`BackgroundPacketReader`), records from the analysing thread
/// to the writer (`BackgroundRecordWriter`).
///
/// The producer is usually the faster of the two, so it mostly waits for empty batches. Once it waits,
/// it is woken when half of the batches are empty again, not for each one given back: every wake-up
/// costs the consuming thread a system call and a scheduler pass.
final class BatchPipe<Batch: PipeBatch>: @unchecked Sendable {
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Empty batches that wake a waiting producer.
    private let refillCount: Int
    // Guarded by `lock`.
    private var empty: [Batch]
    private var full: [Batch] = []
    private var isClosed = false
    private var producerIsWaiting = false

    /// - Parameters:
    ///   - batches: batches in flight at most.
    ///   - heldByConsumer: batches the consumer keeps after taking them, on top of the one it works on
    ///     (`HeldPacketBatches`). They are left out of the refill count: a producer waiting for more
    ///     empty batches than the consumer can give back without taking another would wait forever.
    init(batches: Int, heldByConsumer: Int = 0) {
        empty = (0..<max(2, batches)).map { _ in Batch() }
        refillCount = max(1, (empty.count - heldByConsumer) / 2)
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

    /// Producer: an empty batch to fill (waits until the consumer gives one back).
    func takeEmpty() -> Batch {
        locked {
            if empty.isEmpty {
                producerIsWaiting = true
                while empty.count < refillCount { pthread_cond_wait(changed, lock) }
                producerIsWaiting = false
            }
            return empty.removeLast()
        }
    }

    /// Producer: hands a filled batch over.
    func send(_ batch: Batch) {
        locked {
            full.append(batch)
            pthread_cond_broadcast(changed)
        }
    }

    /// Producer: no more batches will come.
    func close() {
        locked {
            isClosed = true
            pthread_cond_broadcast(changed)
        }
    }

    /// Consumer: the next filled batch in order, or nil once the producer has closed the pipe and every
    /// batch was taken.
    func receive() -> Batch? {
        locked {
            while full.isEmpty && !isClosed { pthread_cond_wait(changed, lock) }
            return full.isEmpty ? nil : full.removeFirst()
        }
    }

    /// Consumer (or producer): gives a batch back for reuse.
    func giveBack(_ batch: Batch) {
        batch.clear()
        locked {
            empty.append(batch)
            if producerIsWaiting && empty.count >= refillCount { pthread_cond_broadcast(changed) }
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return body()
    }
}

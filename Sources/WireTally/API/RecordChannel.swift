import Dispatch
import Synchronization

/// Hands records from the thread that runs the pipeline to an async consumer, holding at most
/// `capacity` of them: the producer waits while the consumer is behind, so memory does not grow with
/// the capture. Once the consumer is gone (``cancel()``), ``send(_:)`` returns false and drops.
final class RecordChannel: Sendable {
    private struct State {
        var buffer: [Record] = []
        /// Index of the next record to hand over (the buffer is compacted as it empties).
        var head = 0
        var waiting: CheckedContinuation<Record?, any Error>?
        /// Set by `finish`: nil when the run ended normally.
        var end: (any Error)?? = nil
        var cancelled = false
        /// The producer waits on `space` for the consumer to take a record (or leave).
        var producerWaiting = false

        /// Takes the note that the producer waits: true when it must be woken.
        mutating func wakesProducer() -> Bool {
            defer { producerWaiting = false }
            return producerWaiting
        }
    }

    private let state = Mutex(State())
    private let capacity: Int
    /// Signalled only while the producer waits on it (a semaphore must not be released below its
    /// initial value).
    private let space = DispatchSemaphore(value: 0)

    init(capacity: Int = 256) {
        self.capacity = capacity
    }

    /// True once the consumer is gone: the producer may stop early.
    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Hands `record` over, waiting while `capacity` records are not taken yet; false when the
    /// consumer is gone.
    @discardableResult
    func send(_ record: Record) -> Bool {
        enum Outcome { case dropped, handed(CheckedContinuation<Record?, any Error>), buffered, full }
        while true {
            let outcome: Outcome = state.withLock { state in
                if state.cancelled { return .dropped }
                if let waiting = state.waiting {
                    state.waiting = nil
                    return .handed(waiting)
                }
                if state.buffer.count - state.head < capacity {
                    state.buffer.append(record)
                    return .buffered
                }
                state.producerWaiting = true
                return .full
            }
            switch outcome {
            case .dropped: return false
            case let .handed(continuation):
                continuation.resume(returning: record)
                return true
            case .buffered: return true
            case .full: space.wait()
            }
        }
    }

    /// Ends the stream after the buffered records: normally, or with `error`.
    func finish(throwing error: (any Error)? = nil) {
        let waiting: CheckedContinuation<Record?, any Error>? = state.withLock { state in
            // A consumer waits only on an empty buffer: it gets the end now, and the stream is over.
            if let waiting = state.waiting {
                state.waiting = nil
                state.end = .some(nil)
                return waiting
            }
            state.end = .some(error)
            return nil
        }
        guard let waiting else { return }
        if let error { waiting.resume(throwing: error) } else { waiting.resume(returning: nil) }
    }

    /// The consumer is gone: records sent from now on are dropped, a waiting producer is released.
    func cancel() {
        let (waiting, wakes) = state.withLock { state in
            state.cancelled = true
            state.buffer = []
            state.head = 0
            defer { state.waiting = nil }
            return (state.waiting, state.wakesProducer())
        }
        if wakes { space.signal() }
        waiting?.resume(throwing: CancellationError())
    }

    /// The next record; nil at the end of the stream. Throws the run's error after the last record,
    /// or `CancellationError` when the task is cancelled.
    func next() async throws -> Record? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Record?, any Error>) in
                enum Outcome { case record(Record, wakesProducer: Bool), end, error(any Error), wait }
                let outcome: Outcome = state.withLock { state in
                    if state.cancelled { return .error(CancellationError()) }
                    if state.head < state.buffer.count {
                        let record = state.buffer[state.head]
                        state.head += 1
                        if state.head == state.buffer.count {
                            state.buffer.removeAll(keepingCapacity: true)
                            state.head = 0
                        }
                        return .record(record, wakesProducer: state.wakesProducer())
                    }
                    if let end = state.end {
                        state.end = .some(nil)  // the error is thrown once; then the stream is over
                        return end.map(Outcome.error) ?? .end
                    }
                    state.waiting = continuation
                    return .wait
                }
                switch outcome {
                case let .record(record, wakesProducer):
                    if wakesProducer { space.signal() }
                    continuation.resume(returning: record)
                case .end: continuation.resume(returning: nil)
                case let .error(error): continuation.resume(throwing: error)
                case .wait: break
                }
            }
        } onCancel: {
            cancel()
        }
    }
}

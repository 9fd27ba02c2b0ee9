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
    }

    private let state = Mutex(State())
    /// Free places in the buffer.
    private let space: DispatchSemaphore

    init(capacity: Int = 256) {
        space = DispatchSemaphore(value: capacity)
    }

    /// True once the consumer is gone: the producer may stop early.
    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Hands `record` over, waiting for a free place; false when the consumer is gone.
    @discardableResult
    func send(_ record: Record) -> Bool {
        space.wait()
        let outcome: (continuation: CheckedContinuation<Record?, any Error>?, accepted: Bool) = state.withLock { state in
            if state.cancelled { return (nil, false) }
            if let waiting = state.waiting {
                state.waiting = nil
                return (waiting, true)
            }
            state.buffer.append(record)
            return (nil, true)
        }
        if let continuation = outcome.continuation {
            space.signal()  // handed straight over: no place taken
            continuation.resume(returning: record)
        }
        if !outcome.accepted { space.signal() }  // lets a later send see the cancellation too
        return outcome.accepted
    }

    /// Ends the stream after the buffered records: normally, or with `error`.
    func finish(throwing error: (any Error)? = nil) {
        let waiting: CheckedContinuation<Record?, any Error>? = state.withLock { state in
            state.end = .some(error)
            defer { state.waiting = nil }
            return state.head == state.buffer.count ? state.waiting : nil
        }
        guard let waiting else { return }
        if let error { waiting.resume(throwing: error) } else { waiting.resume(returning: nil) }
    }

    /// The consumer is gone: records sent from now on are dropped, a waiting producer is released.
    func cancel() {
        let waiting: CheckedContinuation<Record?, any Error>? = state.withLock { state in
            state.cancelled = true
            state.buffer = []
            state.head = 0
            defer { state.waiting = nil }
            return state.waiting
        }
        space.signal()
        waiting?.resume(throwing: CancellationError())
    }

    /// The next record; nil at the end of the stream. Throws the run's error after the last record,
    /// or `CancellationError` when the task is cancelled.
    func next() async throws -> Record? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Record?, any Error>) in
                enum Outcome { case record(Record), end, error(any Error), wait }
                let outcome: Outcome = state.withLock { state in
                    if state.cancelled { return .error(CancellationError()) }
                    if state.head < state.buffer.count {
                        let record = state.buffer[state.head]
                        state.head += 1
                        if state.head == state.buffer.count {
                            state.buffer.removeAll(keepingCapacity: true)
                            state.head = 0
                        }
                        return .record(record)
                    }
                    if let end = state.end {
                        state.end = .some(nil)  // the error is thrown once; then the stream is over
                        return end.map(Outcome.error) ?? .end
                    }
                    state.waiting = continuation
                    return .wait
                }
                switch outcome {
                case let .record(record):
                    space.signal()
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

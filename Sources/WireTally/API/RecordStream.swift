import Synchronization

/// The records of an analysis as they complete: an `AsyncSequence` of ``Record``, for big files and
/// live captures. Exchanges come as soon as they are complete (a connection's exchanges just before
/// the connection), the ``Summary`` last.
///
/// The pipeline runs on its own thread and holds at most a few hundred records ahead of the
/// consumer: it waits while the consumer is behind. Iterate a stream once. When the iteration ends
/// early (a `break`, the task cancelled) the pipeline stops handing records over. A run that could
/// analyse nothing ends by throwing ``WireTallyError/nothingAnalysed(problems:)`` instead of
/// yielding a summary; a live capture that fails ends with ``WireTallyError/liveCapture(_:)`` after
/// its last records.
public struct RecordStream: AsyncSequence, Sendable {
    public typealias Element = Record
    public typealias Failure = any Error

    let channel: RecordChannel
    private let lifetime: Lifetime
    private let stopRequested: StopFlag

    init(channel: RecordChannel, stopRequested: StopFlag = StopFlag()) {
        self.channel = channel
        self.stopRequested = stopRequested
        lifetime = Lifetime(channel)
    }

    /// Live capture: stops capturing; the stream then ends with the records of the connections still
    /// open (reported incomplete, as at the end of a file) and the summary. Reading files: no effect.
    public func stop() {
        stopRequested.set()
    }

    public func makeAsyncIterator() -> Iterator { Iterator(channel: channel, lifetime: lifetime) }

    /// The stream's iterator: ``next()`` waits for the next record.
    public struct Iterator: AsyncIteratorProtocol {
        let channel: RecordChannel
        let lifetime: Lifetime

        public mutating func next() async throws -> Record? { try await channel.next() }
    }

    /// Releases the pipeline when the last copy of the stream and its iterators are gone.
    final class Lifetime: Sendable {
        let channel: RecordChannel
        init(_ channel: RecordChannel) { self.channel = channel }
        deinit { channel.cancel() }
    }
}

/// Set once, read by the pipeline's thread between packets.
final class StopFlag: Sendable {
    private let value = Atomic(false)
    func set() { value.store(true, ordering: .relaxed) }
    var isSet: Bool { value.load(ordering: .relaxed) }
}

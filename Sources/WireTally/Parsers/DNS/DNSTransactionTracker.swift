/// Pairs DNS queries with their responses and hands each finished transaction to `finished`.
///
/// A response matches the waiting query with the same client and server endpoints, transport, message
/// id and question (name, type, class). A query re-sent while its first copy waits is a retry of that
/// transaction (the transaction keeps the first query's time). Queries waiting longer than
/// `timeoutSeconds` are reported unanswered at the next `expire(now:)`, and all of them at `finishAll()`.
/// A response without a waiting query is reported at once on its own: flagged `duplicate_response`
/// when it answers a query answered in the last `timeoutSeconds` (each copy of a retried query got an
/// answer), else `no_query` (the capture missed the query).
final class DNSTransactionTracker {
    /// How long a query waits for its answer (resolvers give up after 5 s × a few attempts).
    static let timeoutSeconds: Int64 = 30
    /// At most this many queries wait; beyond it the oldest is reported unanswered (`evicted`).
    let maximumPending: Int

    private struct Key: Hashable {
        var client: DNSEndpoint
        var server: DNSEndpoint
        var transport: DNSTransport
        var messageID: UInt16
        var question: DNSQuestion?
    }

    private struct QueueEntry {
        var key: Key
        var queried: Timestamp
    }

    /// Queries waiting for their answer.
    private var pending: [Key: DNSTransaction] = [:]
    /// Queries answered recently (by first-query time), to recognise a second answer.
    private var recentlyAnswered: [Key: Timestamp] = [:]
    /// Every query in first-query order. An entry stands for the transaction of its key with the same
    /// query time, waiting or recently answered; it is dropped once older than the timeout.
    private var queue: [QueueEntry] = []
    private var queueHead = 0
    private var lastID = 0
    private let answers: DNSAnswerIndex
    private let finished: (DNSTransaction) -> Void

    /// Payloads on a DNS port that were not DNS (shorter than a header).
    private(set) var unparsedMessages = 0

    init(answers: DNSAnswerIndex, maximumPending: Int = 65_536, finished: @escaping (DNSTransaction) -> Void) {
        self.maximumPending = max(1, maximumPending)
        self.answers = answers
        self.finished = finished
    }

    /// A UDP datagram to or from a DNS port.
    func observe(_ ip: IPPacket, _ udp: UDPDatagram) {
        var wire = ip.wire
        wire.payloadBytes = udp.payloadLength
        guard let message = DNSMessage.parse(udp.payload, allSections: false) else { return noteUnparsed() }
        observe(
            message, from: DNSEndpoint(address: ip.source, port: udp.sourcePort),
            to: DNSEndpoint(address: ip.destination, port: udp.destinationPort), transport: .udp,
            timestamp: ip.timestamp, wire: wire)
    }

    /// Counts a payload on a DNS port that is not a DNS message.
    func noteUnparsed() { unparsedMessages += 1 }

    /// One DNS message sent from `source` to `destination` at `timestamp`, costing `wire`.
    func observe(
        _ message: DNSMessage, from source: DNSEndpoint, to destination: DNSEndpoint, transport: DNSTransport,
        timestamp: Timestamp, wire: TrafficCounters
    ) {
        if message.header.isResponse {
            answer(message, from: source, to: destination, transport: transport, timestamp: timestamp, wire: wire)
        } else {
            query(message, from: source, to: destination, transport: transport, timestamp: timestamp, wire: wire)
        }
    }

    /// Reports the queries that waited longer than the timeout.
    func expire(now: Timestamp) {
        let deadline = now.nanoseconds &- Self.timeoutSeconds * 1_000_000_000
        while queueHead < queue.count, queue[queueHead].queried.nanoseconds < deadline {
            popOldest(unansweredFlags: .noResponse)
        }
        compactQueue()
    }

    /// Reports every query still waiting, in query order.
    func finishAll() {
        while queueHead < queue.count { popOldest(unansweredFlags: .noResponse) }
        compactQueue()
    }

    private func query(
        _ message: DNSMessage, from client: DNSEndpoint, to server: DNSEndpoint, transport: DNSTransport,
        timestamp: Timestamp, wire: TrafficCounters
    ) {
        let key = Key(
            client: client, server: server, transport: transport, messageID: message.header.id,
            question: message.question)
        if pending[key] != nil {
            pending[key]?.retries += 1
            pending[key]?.wire += wire
            if message.isMalformed { pending[key]?.flags.insert(.malformed) }
            return
        }
        makeRoom()
        var transaction = DNSTransaction(
            messageID: message.header.id, client: client, server: server, transport: transport,
            question: message.question)
        transaction.queryTimestamp = timestamp
        transaction.wire = wire
        if message.isMalformed { transaction.flags.insert(.malformed) }
        pending[key] = transaction
        recentlyAnswered[key] = nil
        queue.append(QueueEntry(key: key, queried: timestamp))
    }

    private func answer(
        _ message: DNSMessage, from server: DNSEndpoint, to client: DNSEndpoint, transport: DNSTransport,
        timestamp: Timestamp, wire: TrafficCounters
    ) {
        let key = Key(
            client: client, server: server, transport: transport, messageID: message.header.id,
            question: message.question)
        var transaction: DNSTransaction
        if let waiting = pending.removeValue(forKey: key) {
            transaction = waiting
            recentlyAnswered[key] = waiting.queryTimestamp
        } else {
            transaction = DNSTransaction(
                messageID: message.header.id, client: client, server: server, transport: transport,
                question: message.question)
            transaction.flags.insert(recentlyAnswered[key] != nil ? .duplicateResponse : .noQuery)
        }
        transaction.response = message
        transaction.answerTimestamp = timestamp
        transaction.wire += wire
        transaction.responseWire += wire
        if message.isMalformed { transaction.flags.insert(.malformed) }
        report(transaction)
    }

    /// Keeps the waiting queries and the queue within their caps, reporting the oldest waiting query
    /// unanswered (`evicted`) when too many wait.
    private func makeRoom() {
        while queue.count - queueHead >= 2 * maximumPending
            || (pending.count >= maximumPending && queueHead < queue.count)
        {
            popOldest(unansweredFlags: [.noResponse, .evicted])
        }
        compactQueue()
    }

    /// Drops the oldest queue entry: its transaction, if still waiting, is reported with `flags`.
    private func popOldest(unansweredFlags flags: DNSTransactionFlags) {
        let entry = queue[queueHead]
        queueHead += 1
        if let waiting = pending[entry.key], waiting.queryTimestamp == entry.queried {
            pending[entry.key] = nil
            var transaction = waiting
            transaction.flags.formUnion(flags)
            report(transaction)
        } else if recentlyAnswered[entry.key] == entry.queried {
            recentlyAnswered[entry.key] = nil
        }
    }

    private func report(_ transaction: DNSTransaction) {
        var transaction = transaction
        lastID += 1
        transaction.id = lastID
        answers.add(transaction)
        finished(transaction)
    }

    /// Drops the consumed front of the queue once it is at least half of it.
    private func compactQueue() {
        guard queueHead > 0, queueHead * 2 >= queue.count else { return }
        queue.removeFirst(queueHead)
        queueHead = 0
    }
}

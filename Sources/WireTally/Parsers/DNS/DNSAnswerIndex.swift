/// An answered DNS query, as the rest of the pipeline looks it up.
package struct DNSResolution: Hashable, Sendable {
    /// The name asked for (lower-cased, no trailing dot): what the client meant to reach.
    package var name: String
    /// The `dns` record's id.
    package var transactionID: Int
    /// The first query's time; nil when the capture missed the query.
    package var queryTimestamp: Timestamp?
    package var answerTimestamp: Timestamp
    /// When the whole lookup ended: the last answer to the same client socket for the same name whose
    /// query went out before this answer came (a resolver's A and AAAA queries of one lookup, sent
    /// back to back; the client connects only after both answers). `answerTimestamp` when alone.
    package var lookupEndTimestamp: Timestamp
    /// The client socket that asked (joins the A and AAAA transactions of one lookup).
    package var client: DNSEndpoint
    /// The addresses the name resolved to after following the CNAME chain, then the `ipv4hint`/`ipv6hint`
    /// addresses of its SVCB/HTTPS answers (a client may connect to those without an A/AAAA lookup).
    package var addresses: [IPAddress]
    /// The lookup's packets (queries, retries, answer) when it was reported, and the answer's part.
    package var wire: TrafficCounters
    package var responseWire: TrafficCounters
}

/// The recent answers of a capture, by address and by name: names TLS connections and times the `dns`
/// phase of an exchange (the resolution that preceded its connection).
///
/// Only answered transactions with at least one address (A/AAAA, or an SVCB/HTTPS address hint) are
/// kept (NXDOMAIN, empty AAAA answers and unanswered queries cannot have led to a connection); a
/// response whose query was not captured counts (with no query time), a second answer to an answered
/// query does not. Memory is bounded: beyond `capacity` resolutions the oldest is forgotten.
package final class DNSAnswerIndex {
    package let capacity: Int
    /// Kept resolutions by sequence number; sequence `s` lives at `s % capacity`. Grown as answers come
    /// (a capture without DNS allocates nothing: `capacity` empty slots are over a megabyte to fault in).
    private var ring: [DNSResolution?] = []
    private var firstSequence = 0
    private var nextSequence = 0
    /// Sequence numbers, ascending, of the resolutions naming each address / asked for each name.
    private var byAddress: [IPAddress: [Int]] = [:]
    private var byName: [String: [Int]] = [:]

    /// - Parameter capacity: how many resolutions are remembered (at least 1).
    package init(capacity: Int = 4096) {
        self.capacity = max(1, capacity)
    }

    /// Number of resolutions remembered.
    package var count: Int { nextSequence - firstSequence }

    /// The last answered transaction, with or without addresses: the sibling of the next one when both
    /// belong to one lookup (an empty AAAA answer before the A answer).
    private var lastAnswer: (name: String, client: DNSEndpoint, query: Timestamp?, answer: Timestamp)?

    /// Remembers `transaction` if it was answered with addresses (the analyzer adds every transaction);
    /// an answer of the same lookup (same client socket and name, asked before the other was answered)
    /// extends that resolution's `lookupEndTimestamp`.
    package func add(_ transaction: DNSTransaction) {
        guard let answered = transaction.answerTimestamp, let question = transaction.question,
              transaction.response?.rcode == .noError, !transaction.flags.contains(.duplicateResponse)
        else { return }
        let previous = lastAnswer
        lastAnswer = (question.name, transaction.client, transaction.queryTimestamp, answered)
        /// Whether an earlier answer at `earlierAnswer` belongs to this transaction's lookup.
        func sameLookup(_ client: DNSEndpoint, _ earlierAnswer: Timestamp) -> Bool {
            client == transaction.client && (transaction.queryTimestamp.map { $0 <= earlierAnswer } ?? false)
        }
        // a later answer of a kept resolution's lookup, with addresses or empty: the lookup ended with it
        if let latest = byName[question.name]?.last, var resolution = ring[latest % capacity],
           sameLookup(resolution.client, resolution.answerTimestamp) {
            resolution.lookupEndTimestamp = max(resolution.lookupEndTimestamp, answered)
            ring[latest % capacity] = resolution
        }
        let chain = transaction.chain
        let addresses = chain.addresses + chain.hints
        guard !addresses.isEmpty else { return }
        var lookupEnd = answered
        if let previous, previous.name == question.name, sameLookup(previous.client, previous.answer) {
            lookupEnd = max(lookupEnd, previous.answer)
        }
        if count == capacity { forgetOldest() }
        let sequence = nextSequence
        nextSequence += 1
        let resolution = DNSResolution(
            name: question.name, transactionID: transaction.id, queryTimestamp: transaction.queryTimestamp,
            answerTimestamp: answered, lookupEndTimestamp: lookupEnd, client: transaction.client,
            addresses: addresses, wire: transaction.wire,
            responseWire: transaction.responseWire)
        // until the ring is full no resolution has been forgotten: sequence == ring.count
        if ring.count < capacity { ring.append(resolution) } else { ring[sequence % capacity] = resolution }
        for address in Set(addresses) { byAddress[address, default: []].append(sequence) }
        byName[question.name, default: []].append(sequence)
    }

    /// The most recent resolution whose addresses include `address` and whose answer came at or before
    /// `before` (e.g. the SYN of a connection to `address`); nil when none is remembered.
    package func lookup(address: IPAddress, before: Timestamp) -> DNSResolution? {
        latest(in: byAddress[address], before: before)
    }

    /// The most recent resolution of `name` (a Host header: case and a trailing dot or `:port` do not
    /// matter) answered at or before `before`; nil when none is remembered.
    package func lookup(name: String, before: Timestamp) -> DNSResolution? {
        latest(in: byName[Self.normalized(name)], before: before)
    }

    /// Resolutions are added as their answers arrive, in capture order: the last fit is the most recent.
    private func latest(in sequences: [Int]?, before: Timestamp) -> DNSResolution? {
        guard let sequences else { return nil }
        for sequence in sequences.reversed() {
            if let resolution = ring[sequence % capacity], resolution.answerTimestamp <= before { return resolution }
        }
        return nil
    }

    private func forgetOldest() {
        let sequence = firstSequence
        firstSequence += 1
        guard let resolution = ring[sequence % capacity] else { return }
        ring[sequence % capacity] = nil
        for address in Set(resolution.addresses) { Self.drop(sequence, from: &byAddress, key: address) }
        Self.drop(sequence, from: &byName, key: resolution.name)
    }

    private static func drop<Key: Hashable>(_ sequence: Int, from table: inout [Key: [Int]], key: Key) {
        guard var sequences = table[key] else { return }
        sequences.removeAll { $0 == sequence }
        table[key] = sequences.isEmpty ? nil : sequences
    }

    /// Lower-cased, without a trailing dot or a `:port` (a bracketed IPv6 literal keeps its brackets off).
    static func normalized(_ host: String) -> String {
        var name = Substring(host)
        if name.hasPrefix("["), let close = name.firstIndex(of: "]") {
            name = name[name.index(after: name.startIndex)..<close]
        } else if let colon = name.firstIndex(of: ":"), name[name.index(after: colon)...].allSatisfy(\.isNumber) {
            name = name[..<colon]
        }
        if name.hasSuffix(".") { name = name.dropLast() }
        return name.lowercased()
    }
}

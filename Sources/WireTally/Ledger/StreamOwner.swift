/// Who owns a stream byte: an exchange of the connection, or nobody (the unattributed rest).
package struct StreamOwner: Hashable, Sendable {
    /// Exchange index on the connection, or -1 for nobody.
    package var exchange: Int
    /// True for bytes after an Upgrade/CONNECT: counted for the exchange that switched protocols.
    package var upgraded: Bool

    package init(exchange: Int, upgraded: Bool = false) {
        self.exchange = exchange
        self.upgraded = upgraded
    }

    package static let nobody = StreamOwner(exchange: -1)
    package var isNobody: Bool { exchange < 0 }
}

/// A run of stream bytes with one owner, from a given offset to `end`.
package struct OwnerRun: Hashable, Sendable {
    package var owner: StreamOwner
    /// Where the next run starts (`Int64.max` for the last run).
    package var end: Int64
}

/// The owners of one direction's stream bytes: runs, each from its start offset to the next run's.
/// Runs are appended in stream order; a run set at or before an existing start replaces the runs from
/// there on (a parser that re-synchronised decided late where a message began).
package struct OwnershipRuns: Sendable {
    /// Where a run starts and whom its bytes belong to.
    private struct Run: Sendable {
        var start: Int64
        var owner: StreamOwner
    }

    /// In stream order (one array: setting and merging runs change one array, not a pair).
    private var runs: [Run] = []
    /// Runs before this one were merged by `mergeRuns(before:)` already.
    private var mergedEnd = 0

    package init() {}

    /// The runs `attribution` answers one by one (`ownerRun(at:_:)`) from `start` to `end`: for callers
    /// that want every run (tests, diagnostics) of an attribution that does not keep them as runs.
    package init(walking attribution: some StreamAttribution, _ direction: FlowDirection, from start: Int64 = 0, to end: Int64) {
        var offset = start
        while offset < end {
            let run = attribution.ownerRun(at: offset, direction)
            set(run.owner, from: offset)
            offset = run.end
        }
    }

    /// From `offset` on, bytes belong to `owner`.
    package mutating func set(_ owner: StreamOwner, from offset: Int64) {
        while let last = runs.last, last.start >= offset { runs.removeLast() }
        if runs.last?.owner == owner { return }
        runs.append(Run(start: offset, owner: owner))
    }

    /// Merges each run of an exchange before `exchange` (sealed and discarded: a late packet for its
    /// bytes goes to the unattributed rest) into the run before it when that is also one of these:
    /// a late packet still finds whether its first byte belonged to an exchange or to nobody, and the
    /// runs of later exchanges stay as they are. Keeps a long keep-alive connection's runs few.
    /// Only runs that end at or before `limit` merge: owners a parent layer still reads to split units
    /// it has yet to report (TLS records shared by HTTP/2 streams) keep their runs.
    package mutating func mergeRuns(before exchange: Int, endingBy limit: Int64 = .max) {
        var kept = min(mergedEnd, runs.count), next = kept  // `set` may have replaced merged runs
        while next < runs.count, runs[next].owner.exchange < exchange,
              limit == .max || (next + 1 < runs.count && runs[next + 1].start <= limit) {
            if kept > 0, !runs[next].owner.isNobody, !runs[kept - 1].owner.isNobody {
                runs[kept - 1].owner = runs[next].owner
            } else {
                runs[kept] = runs[next]
                kept += 1
            }
            next += 1
        }
        if next > kept { runs.removeSubrange(kept..<next) }
        mergedEnd = kept
    }

    /// How many runs are kept.
    package var count: Int { runs.count }

    /// The owner of the byte at `offset`.
    package func owner(at offset: Int64) -> StreamOwner { run(containing: offset).owner }

    /// The owner of the byte at `offset` and where its run ends.
    @inline(__always)
    package func run(containing offset: Int64) -> OwnerRun {
        let index = runIndex(containing: offset)
        let next = index.map { $0 + 1 } ?? 0
        return OwnerRun(owner: index.map { runs[$0].owner } ?? .nobody, end: next < runs.count ? runs[next].start : .max)
    }

    /// Where the first run owned by an exchange after `index` starts, if any has begun.
    @inline(__always)
    package func start(ofExchangeAfter index: Int) -> Int64? {
        var position = runs.count
        while position > 0, runs[position - 1].owner.exchange > index { position -= 1 }
        return position < runs.count ? runs[position].start : nil
    }

    /// Index of the run containing `offset` (the last run starting at or before it).
    @inline(__always)
    private func runIndex(containing offset: Int64) -> Int? {
        if let last = runs.last, last.start <= offset { return runs.count - 1 }
        var low = 0, high = runs.count
        while low < high {
            let middle = (low + high) / 2
            if runs[middle].start <= offset { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : low - 1
    }
}

/// What an application-layer analyzer (the HTTP parser's glue) tells the ledger about a connection.
package protocol StreamAttribution: AnyObject {
    /// How far the analyzer has examined each direction's stream (data delivered and gaps declared):
    /// ownership of bytes before this offset is settled.
    func examinedLength(_ direction: FlowDirection) -> Int64
    /// The owners of each direction's stream bytes.
    func ownership(_ direction: FlowDirection) -> OwnershipRuns
    /// `ownership(direction).run(containing: offset)`, without copying the runs: the ledger asks on
    /// every packet, and a copy retains and releases their storage each time.
    func ownerRun(at offset: Int64, _ direction: FlowDirection) -> OwnerRun
    /// Where the bytes of the exchanges after `index` begin: the first byte any of them owns (nil when
    /// none has begun) — `ownership(direction).start(ofExchangeAfter: index)`, without copying the runs.
    func start(ofExchangeAfter index: Int, _ direction: FlowDirection) -> Int64?
    /// Where the bytes of the exchanges up to `index` end: after the last byte any of them owns, as far
    /// as examined (nil: every examined byte may be theirs). Exchanges in stream order (HTTP/1.x, one
    /// after the other) end where the next begins, the default; multiplexed ones (HTTP/2) interleave.
    func end(ofExchangesThrough index: Int, _ direction: FlowDirection) -> Int64?
    /// The latest exchange with a message still in transfer, if any.
    var exchangeInFlight: Int? { get }
    /// Exchanges found so far.
    var exchangeCount: Int { get }
    /// True when exchange `index` is complete and nothing parsed later can change it (its ledger entry
    /// may then be sealed once its bytes are acknowledged).
    func isFinal(_ index: Int) -> Bool
    /// Drops what the analyzer keeps of the exchanges before `index`: the ledger sealed them and their
    /// records are written.
    func discardExchanges(before index: Int)
    /// How a packet carrying bytes of several owners is split: false (exchanges in stream order, where
    /// such a packet is where one ends and the next begins): each gets its bytes, the packet and its
    /// header overhead go to the owner of its first byte; true (multiplexed exchanges, HTTP/2): each gets
    /// its bytes, and the overhead and the packet are split by their shares of the bytes
    /// (`LargestRemainder`).
    var splitsPacketsByShare: Bool { get }
    /// When the client cancelled exchange `index` on its own (HTTP/2 RST_STREAM), nil otherwise: the
    /// packets the exchange owns after that are its `afterClientClose` too.
    func cancelTime(of index: Int) -> Timestamp?
    /// The client closed or reset the connection while exchange `index` was in flight
    /// (`ConnectionLedger.noteClientClose`): an analysis that parses its messages notes how much of
    /// them it had read (`HTTPExchange.readAtCancel`).
    func noteClientClose(exchange index: Int)
}

extension StreamAttribution {
    package func cancelTime(of index: Int) -> Timestamp? { nil }

    package func noteClientClose(exchange index: Int) {}

    package func ownerRun(at offset: Int64, _ direction: FlowDirection) -> OwnerRun {
        ownership(direction).run(containing: offset)
    }

    package func start(ofExchangeAfter index: Int, _ direction: FlowDirection) -> Int64? {
        ownership(direction).start(ofExchangeAfter: index)
    }

    /// Exchanges in stream order: the bytes of those up to `index` end where a later one begins.
    package func end(ofExchangesThrough index: Int, _ direction: FlowDirection) -> Int64? {
        start(ofExchangeAfter: index, direction)
    }

    /// By default exchanges become final only when the connection ends.
    package func isFinal(_ index: Int) -> Bool { false }

    /// By default nothing is kept per exchange.
    package func discardExchanges(before index: Int) {}

    /// By default exchanges follow each other on the stream.
    package var splitsPacketsByShare: Bool { false }

    /// The owners of `direction`'s bytes in `range`, in the order of their first byte there, each with
    /// how many of those bytes it owns (what a packet or a record carrying several owners is split by).
    func ownerShares(in range: Range<Int64>, _ direction: FlowDirection) -> (owners: [StreamOwner], bytes: [Int]) {
        var owners: [StreamOwner] = [], bytes: [Int] = []
        var cursor = range.lowerBound
        while cursor < range.upperBound {
            let run = ownerRun(at: cursor, direction)
            let end = min(run.end, range.upperBound)
            if let index = owners.firstIndex(of: run.owner) {
                bytes[index] += Int(end - cursor)
            } else {
                owners.append(run.owner)
                bytes.append(Int(end - cursor))
            }
            cursor = end
        }
        return (owners, bytes)
    }
}

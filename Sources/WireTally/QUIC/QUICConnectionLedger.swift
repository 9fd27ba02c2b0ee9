/// Where every datagram of one QUIC connection was counted: once in its direction's totals (by
/// category) and once in exactly one owner — an exchange, or the connection's unattributed rest.
///
/// - `setup` datagrams, and any datagram before the first exchange, go to the first exchange: held
///   until it exists, unattributed if none ever does;
/// - `teardown` datagrams go to the last exchange when the connection ends (unattributed if none);
/// - the others go to the owner the caller names (nil: unattributed).
///
/// Exchanges are written while the connection is open once sealed (`seal(before:)`): a datagram for a
/// sealed exchange afterwards goes to the unattributed rest (`lateAfterSealing`). Reported exchanges can
/// be dropped (`discardExchanges(before:)`); their datagrams still count in `isConserved`.
public struct QUICConnectionLedger: Sendable {
    /// Per direction (`FlowDirection.rawValue`): all datagrams.
    public private(set) var totals = DirectionPair(DirectionTally(), DirectionTally())
    /// Per direction: datagrams no exchange owns.
    public private(set) var unattributed = DirectionPair(TrafficCounters(), TrafficCounters())
    /// Per exchange index: the datagrams it owns (from the first exchange not discarded).
    public private(set) var exchanges = PrefixDiscardingArray<ExchangeWire>()
    /// Exchanges 0..<sealedCount are final.
    public private(set) var sealedCount = 0
    /// Datagrams that went to the unattributed rest because their exchange was sealed.
    public private(set) var lateAfterSealing = TrafficCounters()
    /// Per direction: what the discarded exchanges owned.
    private var discardedOwned = DirectionPair(TrafficCounters(), TrafficCounters())
    /// Datagrams waiting for the first exchange, teardown datagrams waiting for the end.
    private var heldForFirst = DirectionPair(DirectionTally(), DirectionTally())
    private var heldTeardown = DirectionPair(DirectionTally(), DirectionTally())
    /// Latest capture times of the datagrams held for the first exchange, per direction.
    private var heldForFirstTimes = DirectionPair<Timestamp?>(nil, nil)

    public init() {}

    /// Exchanges ever added.
    public var exchangeCount: Int { exchanges.endIndex }

    /// Counts one datagram of `direction` seen at `time`: `teardown` is held for the last exchange;
    /// before the first exchange anything else is held for it, after it `setup` goes to it and the
    /// rest to `owner` (nil, or sealed: unattributed).
    mutating func record(
        _ counters: TrafficCounters, as category: PacketCategory, direction: FlowDirection, at time: Timestamp,
        owner: Int?
    ) {
        let d = direction.rawValue
        totals.update(d) { $0.add(counters, as: category, duplicatePayloadBytes: 0) }
        switch category {
        case .teardown:
            heldTeardown.update(d) { $0.add(counters, as: .teardown, duplicatePayloadBytes: 0) }
        case _ where exchanges.endIndex == 0:
            heldForFirst.update(d) { $0.add(counters, as: category, duplicatePayloadBytes: 0) }
            heldForFirstTimes[d] = time
        case .setup:
            credit(counters, as: .setup, to: 0, direction: direction, at: time)
        default:
            credit(counters, as: category, to: owner, direction: direction, at: time)
        }
    }

    /// Adds exchange `exchangeCount`; the first one takes the datagrams held for it.
    mutating func addExchange() {
        exchanges.append(ExchangeWire())
        guard exchanges.endIndex == 1 else { return }
        for direction in FlowDirection.allCases {
            let held = heldForFirst[direction.rawValue]
            for category in PacketCategory.allCases where held[category].packets > 0 {
                credit(held[category], as: category, to: 0, direction: direction, at: heldForFirstTimes[direction.rawValue])
            }
        }
        heldForFirst = DirectionPair(DirectionTally(), DirectionTally())
    }

    /// Makes exchanges before `index` final.
    mutating func seal(before index: Int) {
        sealedCount = max(sealedCount, min(index, exchanges.endIndex))
    }

    /// The connection ended: what was held for a first exchange that never came goes to the
    /// unattributed rest, held teardown to the last exchange unless it is sealed.
    mutating func settle() {
        for direction in FlowDirection.allCases {
            let d = direction.rawValue
            unattributed[d] += heldForFirst[d].total
            let last = exchanges.endIndex - 1
            let teardown = heldTeardown[d].teardown
            if teardown.packets > 0 { credit(teardown, as: .teardown, to: last >= 0 ? last : nil, direction: direction, at: nil) }
        }
        heldForFirst = DirectionPair(DirectionTally(), DirectionTally())
        heldTeardown = DirectionPair(DirectionTally(), DirectionTally())
    }

    /// The datagrams exchange `index` owns (empty once discarded).
    public func exchange(_ index: Int) -> ExchangeWire {
        index >= exchanges.startIndex && index < exchanges.endIndex ? exchanges[index] : ExchangeWire()
    }

    /// Drops the entries of exchanges before `index` (sealed and reported).
    mutating func discardExchanges(before index: Int) {
        let end = min(index, sealedCount)
        guard end > exchanges.startIndex else { return }
        for exchange in exchanges[exchanges.startIndex ..< end] {
            for direction in FlowDirection.allCases {
                discardedOwned[direction.rawValue] += exchange.tally(direction).total
            }
        }
        exchanges.discard(before: end)
    }

    /// True when, per direction and level, the exchanges' datagrams plus the unattributed rest and the
    /// held ones equal the totals.
    public var isConserved: Bool {
        FlowDirection.allCases.allSatisfy { direction in
            let d = direction.rawValue
            let owned = exchanges.reduce(discardedOwned[d] + unattributed[d] + heldForFirst[d].total + heldTeardown[d].total) {
                $0 + $1.tally(direction).total
            }
            return owned == totals[d].total
        }
    }

    private mutating func credit(
        _ counters: TrafficCounters, as category: PacketCategory, to owner: Int?, direction: FlowDirection, at time: Timestamp?
    ) {
        guard let owner, owner >= sealedCount, owner < exchanges.endIndex else {
            unattributed[direction.rawValue] += counters
            if let owner, owner < sealedCount { lateAfterSealing += counters }
            return
        }
        exchanges[owner].tallies.update(direction.rawValue) {
            $0.add(counters, as: category, duplicatePayloadBytes: 0)
        }
        if counters.payloadBytes > 0, let time { exchanges[owner].notePayload(at: time, direction: direction) }
    }
}

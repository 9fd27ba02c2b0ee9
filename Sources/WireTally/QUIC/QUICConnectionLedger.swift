/// Where every datagram of one QUIC connection was counted: once in its direction's totals (by
/// category) and once in exactly one owner — an exchange, or the connection's unattributed rest.
///
/// - `setup` datagrams, and any datagram before the first exchange, go to the first exchange: held
///   until it exists, unattributed if none ever does;
/// - `teardown` datagrams go to the last exchange when the connection ends (unattributed if none);
/// - the others go to the owner the caller names (nil: unattributed).
///
/// A share marked `afterCancel` (a datagram after the client cancelled its exchange,
/// `HTTP3ConnectionAnalysis`) is counted in the exchange's `afterClientClose` too (`after_cancel`).
///
/// Exchanges are written while the connection is open once sealed (`seal(before:)`): a datagram for a
/// sealed exchange afterwards goes to the unattributed rest (`lateAfterSealing`). Reported exchanges can
/// be dropped (`discardExchanges(before:)`); their datagrams still count in `isConserved`.
package struct QUICConnectionLedger: Sendable {
    /// Per direction (`FlowDirection.rawValue`): all datagrams.
    package private(set) var totals = DirectionPair(DirectionTally(), DirectionTally())
    /// Per direction: datagrams no exchange owns.
    package private(set) var unattributed = DirectionPair(TrafficCounters(), TrafficCounters())
    /// Per exchange index: the datagrams it owns (from the first exchange not discarded).
    package private(set) var exchanges = PrefixDiscardingArray<ExchangeWire>()
    /// Exchanges 0..<sealedCount are final.
    package private(set) var sealedCount = 0
    /// Datagrams that went to the unattributed rest because their exchange was sealed.
    package private(set) var lateAfterSealing = TrafficCounters()
    /// Per direction: what the discarded exchanges owned.
    private var discardedOwned = DirectionPair(TrafficCounters(), TrafficCounters())
    /// Datagrams waiting for the first exchange, teardown datagrams waiting for the end.
    private var heldForFirst = DirectionPair(DirectionTally(), DirectionTally())
    private var heldTeardown = DirectionPair(DirectionTally(), DirectionTally())
    /// Latest capture times of the datagrams held for the first exchange, per direction.
    private var heldForFirstTimes = DirectionPair<Timestamp?>(nil, nil)

    package init() {}

    /// Exchanges ever added.
    package var exchangeCount: Int { exchanges.endIndex }

    /// Counts one datagram of `direction` seen at `time` with a single owner (see `record(_:shares:direction:at:)`).
    mutating func record(
        _ counters: TrafficCounters, as category: PacketCategory, direction: FlowDirection, at time: Timestamp,
        owner: Int?
    ) {
        record(counters, share: QUICDatagramShare(owner: owner.map(QUICShareOwner.exchange) ?? .nobody, category: category, weight: 1),
               direction: direction, at: time)
    }

    /// Counts one datagram of `direction` seen at `time`, split over `shares` in proportion to their
    /// weights at every level (packet count included; largest remainder, so the parts add up exactly).
    /// For each share: `teardown` is held for the last exchange; before the first exchange anything else
    /// is held for it; after it `setup` goes to it and the rest to the share's owner (`nobody`, or a
    /// sealed exchange: unattributed).
    mutating func record(_ counters: TrafficCounters, shares: [QUICDatagramShare], direction: FlowDirection, at time: Timestamp) {
        if shares.count == 1 { return record(counters, share: shares[0], direction: direction, at: time) }  // the common case
        let weights = shares.map(\.weight)
        let packets = LargestRemainder.split(counters.packets, by: weights)
        let ip = LargestRemainder.split(counters.ipBytes, by: weights)
        let frame = LargestRemainder.split(counters.frameBytes, by: weights)
        let payload = LargestRemainder.split(counters.payloadBytes, by: weights)
        for (index, share) in shares.enumerated() {
            let part = TrafficCounters(packets: packets[index], ipBytes: ip[index], frameBytes: frame[index], payloadBytes: payload[index])
            record(part, share: share, direction: direction, at: time)
        }
    }

    private mutating func record(_ counters: TrafficCounters, share: QUICDatagramShare, direction: FlowDirection, at packetTime: Timestamp) {
        let d = direction.rawValue
        let time = share.carriesStreamData ? packetTime : nil
        let category = share.category
        totals.update(d) { $0.add(counters, as: category, duplicatePayloadBytes: share.duplicateBytes) }
        switch category {
        case .teardown:
            heldTeardown.update(d) { $0.add(counters, as: .teardown, duplicatePayloadBytes: share.duplicateBytes) }
        case _ where exchanges.endIndex == 0:
            heldForFirst.update(d) { $0.add(counters, as: category, duplicatePayloadBytes: share.duplicateBytes) }
            if let time { heldForFirstTimes[d] = time }
        case .setup:
            credit(counters, as: .setup, to: 0, duplicateBytes: share.duplicateBytes, direction: direction, at: time)
        default:
            guard case let .exchange(owner) = share.owner else {
                return credit(counters, as: category, to: share.owner == .firstExchange ? 0 : nil,
                              duplicateBytes: share.duplicateBytes, direction: direction, at: time)
            }
            credit(counters, as: category, to: owner, duplicateBytes: share.duplicateBytes, direction: direction, at: time,
                   afterCancel: share.afterCancel)
        }
    }

    /// Adds exchange `exchangeCount`; the first one takes the datagrams held for it.
    mutating func addExchange() {
        exchanges.append(ExchangeWire())
        guard exchanges.endIndex == 1 else { return }
        for direction in FlowDirection.allCases {
            let held = heldForFirst[direction.rawValue]
            for category in PacketCategory.allCases where held[category] != .zero {
                credit(held[category], as: category, to: 0, duplicateBytes: 0, direction: direction,
                       at: heldForFirstTimes[direction.rawValue])
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
            if teardown != .zero {
                credit(teardown, as: .teardown, to: last >= 0 ? last : nil, duplicateBytes: 0, direction: direction, at: nil)
            }
        }
        heldForFirst = DirectionPair(DirectionTally(), DirectionTally())
        heldTeardown = DirectionPair(DirectionTally(), DirectionTally())
    }

    /// The datagrams exchange `index` owns (empty once discarded).
    package func exchange(_ index: Int) -> ExchangeWire {
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
    package var isConserved: Bool {
        FlowDirection.allCases.allSatisfy { direction in
            let d = direction.rawValue
            let owned = exchanges.reduce(discardedOwned[d] + unattributed[d] + heldForFirst[d].total + heldTeardown[d].total) {
                $0 + $1.tally(direction).total
            }
            return owned == totals[d].total
        }
    }

    private mutating func credit(
        _ counters: TrafficCounters, as category: PacketCategory, to owner: Int?, duplicateBytes: Int,
        direction: FlowDirection, at time: Timestamp?, afterCancel: Bool = false
    ) {
        guard let owner, owner >= sealedCount, owner < exchanges.endIndex else {
            unattributed[direction.rawValue] += counters
            if let owner, owner < sealedCount { lateAfterSealing += counters }
            return
        }
        exchanges[owner].tallies.update(direction.rawValue) {
            $0.add(counters, as: category, duplicatePayloadBytes: duplicateBytes)
        }
        if afterCancel {
            exchanges[owner].afterClientClose.update(direction.rawValue) {
                $0.add(counters, as: category, duplicatePayloadBytes: duplicateBytes)
            }
        }
        if counters.payloadBytes > 0, let time { exchanges[owner].notePayload(at: time, direction: direction) }
    }
}

/// Who one share of a datagram goes to.
enum QUICShareOwner: Hashable {
    /// The exchange of this index.
    case exchange(Int)
    /// The connection's first exchange (held until it exists).
    case firstExchange
    /// Nobody: the connection's unattributed rest.
    case nobody
}

/// One part of a datagram: its owner, its ledger category and its weight (the datagram's bytes it
/// carries: its packets' frames, headers and tags), with the stream bytes in it received before.
struct QUICDatagramShare: Equatable {
    var owner: QUICShareOwner
    var category: PacketCategory
    var weight: Int
    var duplicateBytes = 0
    /// It carries the owner's stream data (or a frame of its stream), not only acknowledgements or
    /// shared bytes: it times the owner's messages (`ExchangeWire.payloadTimes`).
    var carriesStreamData = true
    /// The datagram came after the client cancelled the owner (`HTTP3ConnectionAnalysis.cancelTime(of:)`).
    var afterCancel = false
}

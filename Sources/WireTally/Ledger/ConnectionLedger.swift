/// Where every packet of one TCP connection was counted.
///
/// Each packet is counted once in its direction's totals (by category) and once in exactly one owner:
/// an exchange, or the connection's unattributed rest. The owner follows the attribution rules:
/// - a packet with payload (new or retransmitted) goes to the owner of the stream bytes it carries;
///   a packet carrying bytes of several owners has its payload split exactly; its header overhead and
///   its packet count go to the owner of its first byte, or, for multiplexed exchanges
///   (`StreamAttribution.splitsPacketsByShare`, HTTP/2), are split by the owners' shares of its payload
///   with the largest remainder method (each counter still adds up exactly);
/// - a pure ACK goes to the exchange whose data in the opposite direction it newly acknowledges, else
///   to the exchange in flight, else stays unattributed (an idle keep-alive connection);
/// - handshake packets go to the first exchange, teardown packets to the last (settled at close);
/// - without an application-layer analyzer, or for bytes it did not claim, packets stay unattributed.
/// Packets whose bytes the analyzer has not examined yet (held out of order) wait until it has.
///
/// Sealing makes exchanges final before the connection ends, so their records can be written while
/// it is still open: exchange k is sealed once the analyzer calls it final (response complete), every
/// byte it owns is acknowledged in both directions, nothing waits for attribution, a later exchange
/// has begun, and its linger is over: a packet of the connection came `lingerNanoseconds` (two round
/// trips of the connection's handshake) after the last packet it owns and after its cancel — or, with
/// `sealIdle`, the connection has been idle. A peer that never
/// acknowledges would keep every exchange: past `maxUnsealedExchanges` the oldest final one is sealed
/// without waiting for the acknowledgment. Sealing exchange 0 settles the setup packets to it. A
/// packet that would go to a sealed exchange afterwards (a spurious retransmission, a late duplicate)
/// goes to the unattributed rest and is counted in `lateAfterSealing`.
///
/// A client giving up closes (FIN) or resets (RST) the connection while an exchange is in flight
/// (`noteClientClose`): the packets that exchange owns after that — the response data already on its
/// way, the acknowledgments and resets it draws, the teardown — are also counted in its
/// `afterClientClose`; so are those an exchange the client cancelled on its own owns after its cancel
/// (HTTP/2 RST_STREAM, `StreamAttribution.cancelTime(of:)`). The exchange is not sealed early: on an HTTP/1.x connection it stays in flight
/// until the connection ends (a closed connection lingers `ReassemblyLimits.closedLingerSeconds` after
/// its last packet), so the in-flight data stays its own.
///
/// Once a sealed exchange has been reported, `discardExchanges(before:)` drops its entry (a long
/// keep-alive connection keeps only the exchanges not yet reported); its packets still count in
/// `isConserved`.
///
/// Conservation — exchanges plus unattributed equal the totals, per direction and level — holds by
/// construction and is checked by `isConserved`.
package struct ConnectionLedger: Sendable {
    /// Per direction (`FlowDirection.rawValue`): all packets.
    package private(set) var totals = DirectionPair(DirectionTally(), DirectionTally())
    /// Per direction: packets no exchange owns.
    package private(set) var unattributed = DirectionPair(TrafficCounters(), TrafficCounters())
    /// Per exchange index: the packets it owns (from the first exchange not discarded).
    package private(set) var exchanges = PrefixDiscardingArray<ExchangeWire>()
    /// Per direction: what the discarded exchanges owned.
    private var discardedOwned = DirectionPair(TrafficCounters(), TrafficCounters())
    /// Exchanges 0..<sealedCount are final: nothing is attributed to them any more.
    package private(set) var sealedCount = 0
    /// Packets (and their bytes) that went to the unattributed rest because their exchange was sealed.
    package private(set) var lateAfterSealing = TrafficCounters()
    /// The client's first FIN or RST while an exchange was in flight: that exchange, and when.
    package private(set) var clientClose: (exchange: Int, at: Timestamp)?
    /// Per direction: teardown packets after `clientClose`, held until the teardown is settled.
    private var teardownAfterClientClose = DirectionPair(DirectionTally(), DirectionTally())
    /// Exchanges not sealed yet, at most, when the oldest is final: beyond it the oldest is sealed
    /// without waiting for its bytes to be acknowledged (a late acknowledgment then goes to the
    /// unattributed rest, as `lateAfterSealing`). Real peers acknowledge within a window; a capture
    /// whose peer never does would otherwise keep every exchange of the connection. With the cap on
    /// open requests (`HTTPLimits.maxOpenRequests`), it bounds the exchanges a connection holds.
    package static let maxUnsealedExchanges = 1000

    private var pending: [LedgerPacket] = []
    /// The examined lengths (up, down) the last pass over `pending` saw: until they change, no waiting
    /// packet can become attributable, so a pass is skipped (behind a hole, thousands may wait).
    private var examinedAtLastPass: (up: Int64, down: Int64) = (-1, -1)
    /// Setup and teardown packets, settled at close (first/last exchange, or unattributed).
    private var setup = DirectionPair(DirectionTally(), DirectionTally())
    private var teardown = DirectionPair(DirectionTally(), DirectionTally())
    /// Per direction: how far the peer has acknowledged the stream.
    private var acknowledged = DirectionPair<Int64>(0, 0)
    /// How long a final exchange stays open after the last packet it owns, and a cancelled one after its
    /// cancel, before sealing (`linger(roundTrip:)`).
    package private(set) var lingerNanoseconds = ConnectionLedger.linger(roundTrip: nil)
    /// Exchange `exchange` (the first unsealed one when noted, not cancelled) lingers at least until
    /// `until` (nanoseconds): until then a pass of `sealFinished` would stop at it and is skipped — on
    /// keep-alive connections whose next request follows at once, that is most packets.
    private var lingering: (exchange: Int, until: Int64)?

    package init() {}

    /// The linger for a connection whose round trip is `roundTrip` nanoseconds (its handshake, nil when
    /// not seen): two round trips, at least 5 ms and at most 1 s; 200 ms without a handshake. Packets an
    /// exchange still gets after both of its directions were acknowledged — a spurious retransmission
    /// (its sender's timer fired before the acknowledgment reached it), a duplicate or reordered segment,
    /// the data in flight when the client cancelled — were sent before the acknowledgment or the cancel
    /// reached the sender, so they arrive within about one round trip of it at any vantage point; the
    /// second round trip and the floor cover endpoint scheduling delays (ms on a loaded host) and
    /// loopback's microsecond round trips; the ceiling bounds what an exchange keeps open on a slow path,
    /// and 200 ms (Linux's minimum retransmission timeout) stands in when no handshake was seen.
    package static func linger(roundTrip: Int64?) -> Int64 {
        guard let roundTrip else { return 200_000_000 }
        // clamped before doubling: a handshake "round trip" from damaged or far-apart timestamps can be
        // anything an Int64 holds (2 × it overflowed), or negative
        return 2 * min(max(roundTrip, 2_500_000), 500_000_000)
    }

    /// Sets the linger from the connection's round trip (`linger(roundTrip:)`).
    package mutating func setRoundTrip(_ nanoseconds: Int64) {
        lingerNanoseconds = Self.linger(roundTrip: nanoseconds)
        lingering = nil
    }

    /// Counts one packet and attributes it (now, or once `attribution` has examined its bytes).
    /// Generic, not `any StreamAttribution`: specialised for the application-layer analysis, the
    /// per-packet questions to it are direct calls.
    package mutating func record(_ packet: LedgerPacket, attribution: some StreamAttribution) {
        guard count(packet) else { return }
        if !attribute(packet, attribution, force: false) { pending.append(packet) }
    }

    /// Counts one packet of a connection that no analyzer examines: it stays unattributed (setup
    /// and teardown packets are settled at close like any others).
    package mutating func record(_ packet: LedgerPacket) {
        guard count(packet) else { return }
        unattributed[packet.direction.rawValue] += packet.counters
    }

    /// Notes that the client closed or reset the connection at `time` while `exchange` was in flight
    /// (only the first time): the packets it owns after that are counted in its `afterClientClose`.
    package mutating func noteClientClose(exchange: Int, at time: Timestamp) {
        guard clientClose == nil else { return }
        clientClose = (exchange, time)
    }

    /// True when `packet` came after the client's close of `exchange`, or its cancel of it.
    @inline(__always)
    private func isAfterClientClose(_ packet: LedgerPacket, of exchange: Int, _ attribution: some StreamAttribution) -> Bool {
        if let clientClose, clientClose.exchange == exchange, packet.timestamp > clientClose.at { return true }
        guard let cancel = attribution.cancelTime(of: exchange) else { return false }
        return packet.timestamp > cancel
    }

    /// Counts a packet in its direction's totals and holds it if it is a setup or teardown packet;
    /// true when it is a payload or ACK packet, to be attributed by the caller. Inlined: every packet
    /// is counted, and a call passed the whole packet through memory.
    @inline(__always)
    private mutating func count(_ packet: LedgerPacket) -> Bool {
        totals.update(packet.direction.rawValue) {
            $0.add(packet.counters, as: packet.category, duplicatePayloadBytes: packet.duplicatePayloadBytes)
        }
        if let acknowledgedRange = packet.newlyAcknowledged {
            acknowledged.update(packet.direction.reversed.rawValue) { $0 = max($0, acknowledgedRange.upperBound) }
        }
        switch packet.category {
        case .setup where sealedCount > 0:
            unattributed[packet.direction.rawValue] += packet.counters
            lateAfterSealing += packet.counters
        case .setup:
            setup[packet.direction.rawValue].add(packet.counters, as: .setup, duplicatePayloadBytes: 0)
        case .teardown:
            teardown[packet.direction.rawValue].add(
                packet.counters, as: .teardown, duplicatePayloadBytes: packet.duplicatePayloadBytes)
            if let clientClose, packet.timestamp > clientClose.at {
                teardownAfterClientClose[packet.direction.rawValue].add(
                    packet.counters, as: .teardown, duplicatePayloadBytes: packet.duplicatePayloadBytes)
            }
        default:
            return true
        }
        return false
    }

    /// Attributes waiting packets whose bytes have now been examined (inlined: on most packets none
    /// wait).
    @inline(__always)
    package mutating func attributePending(_ attribution: some StreamAttribution) {
        guard !pending.isEmpty else { return }
        attributeWaiting(attribution)
    }

    /// The pass of `attributePending` over the waiting packets.
    private mutating func attributeWaiting(_ attribution: some StreamAttribution) {
        let examined = (up: attribution.examinedLength(.up), down: attribution.examinedLength(.down))
        guard examined != examinedAtLastPass else { return }
        examinedAtLastPass = examined
        var stillPending: [LedgerPacket] = []
        for packet in pending where !attribute(packet, attribution, force: false) {
            stillPending.append(packet)
        }
        pending = stillPending
    }

    /// Settles everything at the connection's end: waiting packets by what is known, setup to the
    /// first exchange and teardown to the last (unattributed when there is none, or when it was sealed
    /// already: a teardown after the connection settled idle).
    package mutating func close(_ attribution: (any StreamAttribution)?) {
        if let attribution {
            for packet in pending { _ = attribute(packet, attribution, force: true) }
        } else {
            for packet in pending { unattributed[packet.direction.rawValue] += packet.counters }
        }
        pending.removeAll()
        let count = attribution?.exchangeCount ?? 0
        // Sealing exchange 0 gave it the setup packets, and later ones went to the unattributed rest:
        // none is left for it (which may be discarded by now).
        settleSetup(to: count > 0 && sealedCount == 0 ? 0 : nil)
        settleTeardown(to: count > sealedCount ? count - 1 : nil)
        sealedCount = max(sealedCount, count)
    }

    // MARK: - Sealing

    /// Seals every exchange that is final, followed by a later one and done lingering at `now` (the
    /// packet just counted); returns true when any was. Inlined: on most packets no later exchange than
    /// the first unsealed one has begun.
    @inline(__always)
    package mutating func sealFinished(_ attribution: some StreamAttribution, at now: Timestamp) -> Bool {
        guard pending.isEmpty else { return false }
        let count = attribution.exchangeCount
        guard sealedCount + 1 < count else { return false }
        if let lingering, lingering.exchange == sealedCount, now.nanoseconds < lingering.until,
           count - sealedCount <= Self.maxUnsealedExchanges { return false }
        return seal(attribution, includingLast: false, at: now)
    }

    /// Seals the exchanges that are final, the last one included (the connection has been idle long
    /// enough that its next packets are taken as unrelated): the teardown seen so far goes to it, a
    /// later one stays unattributed. `reset`: the connection was reset, so what was sent last is never
    /// acknowledged (a cancelled response's in-flight data): final exchanges are sealed without waiting
    /// for it. Returns true when any was sealed.
    package mutating func sealIdle(_ attribution: some StreamAttribution, reset: Bool = false) -> Bool {
        seal(attribution, includingLast: true, waitingForAcknowledgment: !reset)
    }

    /// `now`: the time of the packet that prompted the seal, for the linger (nil: idle, no linger).
    private mutating func seal(
        _ attribution: some StreamAttribution, includingLast: Bool, waitingForAcknowledgment: Bool = true, at now: Timestamp? = nil
    ) -> Bool {
        guard pending.isEmpty else { return false }
        let count = attribution.exchangeCount
        let before = sealedCount
        while sealedCount < (includingLast ? count : count - 1), attribution.isFinal(sealedCount),
              !waitingForAcknowledgment || count - sealedCount > Self.maxUnsealedExchanges
                // both directions spelled out: a closure over `self` here copied the whole ledger per call
                || (hasLingered(sealedCount, at: now, attribution)
                    && isAcknowledged(through: sealedCount, .up, attribution)
                    && isAcknowledged(through: sealedCount, .down, attribution))
        {
            if sealedCount == 0 { settleSetup(to: 0) }
            if sealedCount == count - 1 { settleTeardown(to: sealedCount) }
            sealedCount += 1
        }
        return sealedCount > before
    }

    /// True when exchange `index`'s linger is over at `now` (always when idle: `now` nil): `lingerNanoseconds`
    /// since the last packet it owns and since its cancel.
    /// Notes (`lingering`) until when it lingers at least, when it does.
    private mutating func hasLingered(_ index: Int, at now: Timestamp?, _ attribution: some StreamAttribution) -> Bool {
        guard let now, index >= exchanges.startIndex, index < exchanges.endIndex,
              let last = exchanges[index].lastPacketTime else { return true }
        let cancel = attribution.cancelTime(of: index)
        let start = max(last, cancel ?? last)
        guard now.nanoseconds - start.nanoseconds >= lingerNanoseconds else {
            // Noted without a cancel only: the last packet's time only grows, and a cancel noted later
            // can only move the start later (one noted already could be noted again earlier).
            let until = start.nanoseconds.addingReportingOverflow(lingerNanoseconds)
            lingering = cancel != nil || until.overflow ? nil : (index, until.partialValue)
            return false
        }
        return true
    }

    /// True when the peer acknowledged every examined byte of `direction` owned by exchanges up to
    /// `index`: up to the end of their bytes (with exchanges in stream order, the first byte of a later
    /// exchange), or all examined bytes when that is not known.
    private func isAcknowledged(through index: Int, _ direction: FlowDirection, _ attribution: some StreamAttribution) -> Bool {
        let end = attribution.end(ofExchangesThrough: index, direction) ?? attribution.examinedLength(direction)
        return acknowledged[direction.rawValue] >= end
    }

    /// Notes the stream bytes the reassembler declared missing for `direction`.
    package mutating func setMissingBytes(_ bytes: Int, direction: FlowDirection) {
        totals[direction.rawValue].missingBytes = bytes
    }

    /// The direction's tally.
    package func tally(_ direction: FlowDirection) -> DirectionTally { totals[direction.rawValue] }

    /// The direction's unattributed rest.
    package func unattributed(_ direction: FlowDirection) -> TrafficCounters { unattributed[direction.rawValue] }

    /// The wire cost of exchange `index` (zero when it owns nothing); not of a discarded exchange.
    /// On a connection's ledger, `connection.ledger.exchanges.wire(index)` is the same without a copy
    /// of the whole ledger.
    package func exchange(_ index: Int) -> ExchangeWire { exchanges.wire(index) }

    /// Drops the entries of the exchanges before `index`, all sealed (`index <= sealedCount`): their
    /// records are written, nothing reads or changes them any more.
    package mutating func discardExchanges(before index: Int) {
        precondition(index <= sealedCount, "exchange \(index - 1) is not sealed")
        // The tallies read in place: a copy of each exchange's wire would retain and release its
        // `afterClientClose` storage. By name: the pairs' index subscripts are calls.
        for position in exchanges.startIndex..<min(index, exchanges.endIndex) {
            discardedOwned.up += exchanges[position].tallies.up.total
            discardedOwned.down += exchanges[position].tallies.down.total
        }
        exchanges.discard(before: index)
    }

    /// True when, for both directions and every level, exchanges plus unattributed equal the totals
    /// (packets still waiting for attribution or settlement count as not yet conserved).
    package var isConserved: Bool {
        FlowDirection.allCases.allSatisfy { direction in
            let owned = exchanges.reduce(unattributed[direction.rawValue] + discardedOwned[direction.rawValue]) {
                $0 + $1.tally(direction).total
            }
            return owned == totals[direction.rawValue].total
        }
    }

    // MARK: - Attribution

    /// Attributes a payload or ACK packet; false when its bytes are not examined yet (and not forced).
    /// Inlined: `record` attributes nearly every packet, and a call passed the packet through memory.
    @inline(__always)
    private mutating func attribute(_ packet: LedgerPacket, _ attribution: some StreamAttribution, force: Bool) -> Bool {
        let direction = packet.direction
        if let range = packet.streamRange {
            guard force || range.upperBound <= attribution.examinedLength(direction) else { return false }
            split(packet, over: range, attribution)
            return true
        }
        if packet.category == .ack, let acknowledged = packet.newlyAcknowledged, !acknowledged.isEmpty {
            let opposite = direction.reversed
            guard force || acknowledged.upperBound <= attribution.examinedLength(opposite) else { return false }
            let owner = attribution.ownerRun(at: acknowledged.upperBound - 1, opposite).owner
            assign(packet, to: owner.isNobody ? attribution.exchangeInFlight : owner.exchange, attribution)
            return true
        }
        assign(packet, to: packet.category == .ack ? attribution.exchangeInFlight : nil, attribution)
        return true
    }

    /// Splits a packet's payload over the owners of its stream range; the first owner also gets the
    /// packet itself and its header overhead (unless the attribution splits them by share). Inlined in
    /// `attribute`, its one caller: most packets carry payload.
    @inline(__always)
    private mutating func split(_ packet: LedgerPacket, over range: Range<Int64>, _ attribution: some StreamAttribution) {
        let first = attribution.ownerRun(at: range.lowerBound, packet.direction)
        if first.end < range.upperBound && attribution.splitsPacketsByShare { return splitByShare(packet, over: range, attribution) }
        var firstShare = packet.counters
        var cursor = first.end
        while cursor < range.upperBound {
            let run = attribution.ownerRun(at: cursor, packet.direction)
            let bytes = Int(min(run.end, range.upperBound) - cursor)
            let share = TrafficCounters(packets: 0, ipBytes: bytes, frameBytes: bytes, payloadBytes: bytes)
            firstShare = firstShare - share
            credit(share, of: packet, duplicate: 0, owner: run.owner, attribution)
            cursor = run.end
        }
        credit(firstShare, of: packet, duplicate: packet.duplicatePayloadBytes, owner: first.owner, attribution)
    }

    /// Splits a packet carrying bytes of several owners by their shares of its payload: each owner gets
    /// its bytes, and the header overhead at each level, the packet count and the duplicate payload
    /// bytes are split in proportion to them (largest remainder: the packet itself goes to the largest
    /// share, the first of equal ones).
    private mutating func splitByShare(_ packet: LedgerPacket, over range: Range<Int64>, _ attribution: some StreamAttribution) {
        let (owners, shares) = attribution.ownerShares(in: range, packet.direction)
        let carried = Int(range.upperBound - range.lowerBound), counters = packet.counters
        let packets = LargestRemainder.split(counters.packets, by: shares)
        let ip = LargestRemainder.split(counters.ipBytes - carried, by: shares)
        let frame = LargestRemainder.split(counters.frameBytes - carried, by: shares)
        let payload = LargestRemainder.split(counters.payloadBytes - carried, by: shares)
        let duplicate = LargestRemainder.split(packet.duplicatePayloadBytes, by: shares)
        for index in owners.indices {
            let bytes = shares[index]
            let share = TrafficCounters(packets: packets[index], ipBytes: bytes + ip[index], frameBytes: bytes + frame[index],
                                        payloadBytes: bytes + payload[index])
            credit(share, of: packet, duplicate: duplicate[index], owner: owners[index], attribution)
        }
    }

    private mutating func assign(_ packet: LedgerPacket, to exchange: Int?, _ attribution: some StreamAttribution) {
        credit(packet.counters, of: packet, duplicate: packet.duplicatePayloadBytes,
               owner: exchange.map { StreamOwner(exchange: $0) } ?? .nobody, attribution)
    }

    /// Gives `counters` (all or a share of `packet`) to `owner`. Inlined: every attributed packet is
    /// credited at least once, and a call spilled the packet's fields.
    @inline(__always)
    private mutating func credit(
        _ counters: TrafficCounters, of packet: LedgerPacket, duplicate: Int, owner: StreamOwner, _ attribution: some StreamAttribution
    ) {
        let direction = packet.direction.rawValue
        guard !owner.isNobody, owner.exchange >= sealedCount else {
            unattributed[direction] += counters
            if !owner.isNobody { lateAfterSealing += counters }
            return
        }
        if owner.exchange >= exchanges.endIndex { growExchanges(to: owner.exchange) }
        exchanges[owner.exchange].add(
            counters, as: packet.category, duplicatePayloadBytes: duplicate, upgraded: owner.upgraded,
            at: packet.timestamp, direction: packet.direction)
        if isAfterClientClose(packet, of: owner.exchange, attribution) {
            exchanges[owner.exchange].afterClientClose.update(direction) {
                $0.add(counters, as: packet.category, duplicatePayloadBytes: duplicate)
            }
        }
    }

    /// Gives the setup packets held so far to `exchange` (the unattributed rest when nil).
    private mutating func settleSetup(to exchange: Int?) {
        settle(setup, exchange: exchange)
        setup = DirectionPair(DirectionTally(), DirectionTally())
    }

    /// Gives the teardown packets held so far to `exchange` (the unattributed rest when nil).
    private mutating func settleTeardown(to exchange: Int?) {
        settle(teardown, exchange: exchange)
        if let exchange, exchange == clientClose?.exchange {
            for direction in FlowDirection.allCases {
                exchanges[exchange].afterClientClose[direction.rawValue] += teardownAfterClientClose[direction.rawValue]
            }
        }
        teardown = DirectionPair(DirectionTally(), DirectionTally())
        teardownAfterClientClose = DirectionPair(DirectionTally(), DirectionTally())
    }

    private mutating func settle(_ tallies: DirectionPair<DirectionTally>, exchange: Int?) {
        for direction in FlowDirection.allCases {
            guard let exchange else {
                unattributed[direction.rawValue] += tallies[direction.rawValue].total
                continue
            }
            growExchanges(to: exchange)
            exchanges[exchange].tallies[direction.rawValue] += tallies[direction.rawValue]
        }
    }

    private mutating func growExchanges(to index: Int) {
        while exchanges.endIndex <= index { exchanges.append(ExchangeWire()) }
    }
}

extension PrefixDiscardingArray<ExchangeWire> {
    /// `ConnectionLedger.exchange(_:)` on the ledger's `exchanges`. A method called on a ledger that is a
    /// class's property (`connection.ledger.exchange(i)`) is given a copy of the whole ledger (its
    /// arrays retained, hundreds of bytes moved); called on `connection.ledger.exchanges`, only this
    /// array is.
    package func wire(_ index: Int) -> ExchangeWire {
        precondition(index >= startIndex, "exchange \(index) was discarded")
        return index < endIndex ? self[index] : ExchangeWire()
    }

    /// `wire(index).payloadTimes`, read in place: a copy of the whole wire retains its
    /// `afterClientClose` and moves 440 bytes.
    package func payloadTimes(_ index: Int) -> DirectionPair<ClosedRange<Timestamp>?> {
        precondition(index >= startIndex, "exchange \(index) was discarded")
        return index < endIndex ? self[index].payloadTimes : DirectionPair(nil, nil)
    }
}

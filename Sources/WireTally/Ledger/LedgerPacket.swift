/// What the ledger needs to know about one TCP packet to count it and find its owner.
package struct LedgerPacket: Sendable {
    package var direction: FlowDirection
    package var category: PacketCategory
    /// Packets, IP, frame and TCP payload bytes of the packet (or of its fragments).
    package var counters: TrafficCounters
    /// Payload bytes it carried that had been seen before.
    package var duplicatePayloadBytes: Int
    /// Stream range of its payload in its direction (new or retransmitted), when it has one.
    package var streamRange: Range<Int64>?
    /// Stream range of the opposite direction this packet newly acknowledged.
    package var newlyAcknowledged: Range<Int64>?
    /// When the packet was captured.
    package var timestamp: Timestamp

    package init(
        direction: FlowDirection, category: PacketCategory, counters: TrafficCounters,
        duplicatePayloadBytes: Int = 0, streamRange: Range<Int64>? = nil, newlyAcknowledged: Range<Int64>? = nil,
        timestamp: Timestamp = Timestamp(nanoseconds: 0)
    ) {
        self.timestamp = timestamp
        self.direction = direction
        self.category = category
        self.counters = counters
        self.duplicatePayloadBytes = duplicatePayloadBytes
        self.streamRange = streamRange
        self.newlyAcknowledged = newlyAcknowledged
    }
}

/// The wire cost of one exchange: its share of the connection's packets, per direction.
package struct ExchangeWire: Hashable, Sendable {
    /// Per direction (`FlowDirection.rawValue`).
    package var tallies = DirectionPair(DirectionTally(), DirectionTally())
    /// Per direction: payload bytes after an Upgrade/CONNECT (other protocols carried by the exchange).
    package var upgradedPayloadBytes = DirectionPair(0, 0)
    /// Per direction: capture times of the first and the last packet that carried new payload bytes of
    /// the exchange (a retransmission filling a hole included; a copy of bytes already seen — a spurious
    /// retransmission, a duplicate, which the linger keeps with the exchange — is not: the receiver had
    /// its data already, curl's timers end before it).
    package var payloadTimes = DirectionPair<ClosedRange<Timestamp>?>(nil, nil)
    /// Per direction: the packets (a subset of `tallies`) the exchange owns that came after the client
    /// closed or reset the connection while the exchange was in flight (`ConnectionLedger.clientClose`):
    /// what was still on its way. Reported as `after_cancel` when the exchange was cancelled (its
    /// response never completed).
    ///
    /// Held by reference (`afterClientCloseStorage`), made when first counted: nearly every exchange
    /// has none, and inline the pair was 352 of the wire's 784 bytes, copied with every exchange's
    /// record (and pushing the record past the allocator's per-thread cache sizes).
    package var afterClientClose: DirectionPair<DirectionTally> {
        get { afterClientCloseStorage?.tallies ?? DirectionPair(DirectionTally(), DirectionTally()) }
        _modify {
            if afterClientCloseStorage == nil {
                afterClientCloseStorage = SharedDirectionTallies(DirectionPair(DirectionTally(), DirectionTally()))
            } else if !isKnownUniquelyReferenced(&afterClientCloseStorage!) {
                afterClientCloseStorage = SharedDirectionTallies(afterClientCloseStorage!.tallies)
            }
            yield &afterClientCloseStorage!.tallies
        }
    }
    /// `afterClientClose`, nil while nothing was counted there; copied before a change when shared.
    private var afterClientCloseStorage: SharedDirectionTallies?
    /// When the last packet (or share of one) the exchange owns was captured: its linger runs from
    /// there (`ConnectionLedger.lingerNanoseconds`).
    package var lastPacketTime: Timestamp?

    package init() {}

    /// Equal when every count and time is (`afterClientClose` by value: none counted equals zeros).
    package static func == (lhs: ExchangeWire, rhs: ExchangeWire) -> Bool {
        lhs.tallies == rhs.tallies && lhs.upgradedPayloadBytes == rhs.upgradedPayloadBytes
            && lhs.payloadTimes == rhs.payloadTimes && lhs.afterClientClose == rhs.afterClientClose
            && lhs.lastPacketTime == rhs.lastPacketTime
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(tallies)
        hasher.combine(upgradedPayloadBytes)
        hasher.combine(payloadTimes)
        hasher.combine(afterClientClose)
        hasher.combine(lastPacketTime)
    }

    package func tally(_ direction: FlowDirection) -> DirectionTally { tallies[direction.rawValue] }

    /// Counts `counters` (a packet of `category` seen at `time`, or a share of its payload) in
    /// `direction`; `upgraded`: the bytes were carried after an Upgrade/CONNECT. One access to the
    /// exchange for everything the ledger credits it with (inlined in `ConnectionLedger.credit`, its
    /// caller on every packet).
    @inline(__always)
    mutating func add(
        _ counters: TrafficCounters, as category: PacketCategory, duplicatePayloadBytes: Int, upgraded: Bool,
        at time: Timestamp, direction: FlowDirection
    ) {
        tallies.update(direction.rawValue) {
            $0.add(counters, as: category, duplicatePayloadBytes: duplicatePayloadBytes)
        }
        if upgraded { upgradedPayloadBytes[direction.rawValue] += counters.payloadBytes }
        lastPacketTime = max(lastPacketTime ?? time, time)
        if counters.payloadBytes > duplicatePayloadBytes { notePayload(at: time, direction: direction) }
    }

    /// Extends the direction's payload time span with a packet seen at `time`.
    mutating func notePayload(at time: Timestamp, direction: FlowDirection) {
        payloadTimes.update(direction.rawValue) { span in
            span = min(span?.lowerBound ?? time, time)...max(span?.upperBound ?? time, time)
        }
    }
}

/// Tallies per direction held by reference (`ExchangeWire.afterClientClose`): changed only through a
/// uniquely held reference (copy on write), so a shared one never changes and may be read on any
/// thread.
private final class SharedDirectionTallies: @unchecked Sendable {
    var tallies: DirectionPair<DirectionTally>

    init(_ tallies: DirectionPair<DirectionTally>) { self.tallies = tallies }
}

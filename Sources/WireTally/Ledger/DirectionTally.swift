/// Everything counted for one direction of a connection (or of an exchange): packets and bytes by
/// category, plus payload-level retransmission and loss figures.
///
/// Conservation: the five categories add up to `total` at every level, by construction.
public struct DirectionTally: Hashable, Sendable {
    /// The packets of category ``PacketCategory/setup``.
    public var setup = TrafficCounters()
    /// The packets of category ``PacketCategory/payload``.
    public var payload = TrafficCounters()
    /// The packets of category ``PacketCategory/retransmission``.
    public var retransmission = TrafficCounters()
    /// The packets of category ``PacketCategory/ack``.
    public var ack = TrafficCounters()
    /// The packets of category ``PacketCategory/teardown``.
    public var teardown = TrafficCounters()
    /// Payload bytes carried again after their first copy: every byte of a retransmission plus the
    /// overlapping part of segments that were partly new.
    public var retransmittedPayloadBytes = 0
    /// Stream bytes the capture never saw (holes declared in reassembly).
    public var missingBytes = 0

    /// Nothing counted.
    public init() {}

    /// The counters of one category.
    public subscript(category: PacketCategory) -> TrafficCounters {
        get {
            switch category {
            case .setup: return setup
            case .payload: return payload
            case .retransmission: return retransmission
            case .ack: return ack
            case .teardown: return teardown
            }
        }
        set {
            switch category {
            case .setup: setup = newValue
            case .payload: payload = newValue
            case .retransmission: retransmission = newValue
            case .ack: ack = newValue
            case .teardown: teardown = newValue
            }
        }
    }

    /// All packets of the direction.
    public var total: TrafficCounters { setup + payload + retransmission + ack + teardown }

    /// `total.ipBytes`, added up where the counters are (inlined: `total` is called on a copy of the
    /// tally, 154 bytes, and adds up every level).
    @inline(__always)
    package var ipBytes: Int {
        setup.ipBytes + payload.ipBytes + retransmission.ipBytes + ack.ipBytes + teardown.ipBytes
    }

    /// Payload bytes inside `payload` packets that had been seen before (partial overlaps): the
    /// re-sent bytes less those of retransmission, setup and teardown packets.
    public var duplicateBytesInPayloadPackets: Int {
        let resent = retransmittedPayloadBytes - retransmission.payloadBytes - setup.payloadBytes - teardown.payloadBytes
        return min(max(resent, 0), payload.payloadBytes)
    }

    /// Counts one packet (inlined: the ledger counts every packet two times).
    @inline(__always)
    public mutating func add(_ counters: TrafficCounters, as category: PacketCategory, duplicatePayloadBytes: Int) {
        switch category {  // in place: the subscript's get/set would copy the counters
        case .setup: setup += counters
        case .payload: payload += counters
        case .retransmission: retransmission += counters
        case .ack: ack += counters
        case .teardown: teardown += counters
        }
        retransmittedPayloadBytes += duplicatePayloadBytes
    }

    public static func += (lhs: inout DirectionTally, rhs: DirectionTally) {
        for category in PacketCategory.allCases { lhs[category] += rhs[category] }
        lhs.retransmittedPayloadBytes += rhs.retransmittedPayloadBytes
        lhs.missingBytes += rhs.missingBytes
    }
}

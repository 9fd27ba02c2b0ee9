/// Where every packet of one TCP connection was counted.
///
/// Each packet is recorded exactly once: in its direction's tally (by category) and in exactly one
/// owner — an exchange once the application parsers attribute traffic, otherwise the connection's
/// unattributed rest. Conservation (exchanges + unattributed == totals, per direction and level) holds
/// by construction and is checked by `isConserved`.
public struct ConnectionLedger: Sendable {
    /// Per direction (`FlowDirection.rawValue`): all packets.
    public private(set) var totals = [DirectionTally(), DirectionTally()]
    /// Per direction: packets no exchange owns.
    public private(set) var unattributed = [TrafficCounters(), TrafficCounters()]

    public init() {}

    /// Counts one packet of `direction` in `category`; with no exchange to own it, it stays unattributed.
    public mutating func record(
        _ counters: TrafficCounters, direction: FlowDirection, category: PacketCategory, duplicatePayloadBytes: Int
    ) {
        totals[direction.rawValue].add(counters, as: category, duplicatePayloadBytes: duplicatePayloadBytes)
        unattributed[direction.rawValue] += counters
    }

    /// Notes the stream bytes the reassembler declared missing for `direction`.
    public mutating func setMissingBytes(_ bytes: Int, direction: FlowDirection) {
        totals[direction.rawValue].missingBytes = bytes
    }

    /// The direction's tally.
    public func tally(_ direction: FlowDirection) -> DirectionTally { totals[direction.rawValue] }

    /// The direction's unattributed rest.
    public func unattributed(_ direction: FlowDirection) -> TrafficCounters { unattributed[direction.rawValue] }

    /// True when, for both directions, the unattributed rest (plus exchanges' shares) equals the totals.
    public var isConserved: Bool {
        FlowDirection.allCases.allSatisfy { unattributed[$0.rawValue] == totals[$0.rawValue].total }
    }
}

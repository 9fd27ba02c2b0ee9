/// Packet and byte counts at the three levels wiretally measures.
///
/// - `ipBytes`: the IP total length of each packet (what a carrier meters);
/// - `frameBytes`: the original frame length on the capture's link type;
/// - `payloadBytes`: the transport payload (TCP/UDP data) length from the headers, captured or not.
public struct TrafficCounters: Hashable, Sendable, BitwiseCopyable {
    /// Packets counted.
    public var packets: Int = 0
    /// Their IP total lengths.
    public var ipBytes: Int = 0
    /// Their original frame lengths.
    public var frameBytes: Int = 0
    /// Their transport payload lengths.
    public var payloadBytes: Int = 0

    /// Counts at each level (zero by default).
    public init(packets: Int = 0, ipBytes: Int = 0, frameBytes: Int = 0, payloadBytes: Int = 0) {
        self.packets = packets
        self.ipBytes = ipBytes
        self.frameBytes = frameBytes
        self.payloadBytes = payloadBytes
    }

    /// Nothing counted.
    public static let zero = TrafficCounters()

    public static func += (lhs: inout TrafficCounters, rhs: TrafficCounters) {
        lhs.packets += rhs.packets
        lhs.ipBytes += rhs.ipBytes
        lhs.frameBytes += rhs.frameBytes
        lhs.payloadBytes += rhs.payloadBytes
    }

    public static func + (lhs: TrafficCounters, rhs: TrafficCounters) -> TrafficCounters {
        var sum = lhs
        sum += rhs
        return sum
    }

    public static func - (lhs: TrafficCounters, rhs: TrafficCounters) -> TrafficCounters {
        TrafficCounters(
            packets: lhs.packets - rhs.packets, ipBytes: lhs.ipBytes - rhs.ipBytes,
            frameBytes: lhs.frameBytes - rhs.frameBytes, payloadBytes: lhs.payloadBytes - rhs.payloadBytes)
    }
}

/// Counts non-TCP traffic per flow (UDP by 5-tuple, other protocols by address pair), expiring idle
/// flows and evicting the stalest at the cap, like the TCP reassembler does for connections.
final class IPFlowTracker {
    private var table = ActivityTable<IPFlow>()
    private let limits: ReassemblyLimits
    private let nextID: () -> Int
    private let finished: (IPFlow) -> Void
    private(set) var evictions = 0

    /// Idle time after which a flow is reported (Zeek's UDP inactivity timeout is one minute too).
    static let idleTimeoutSeconds: Int64 = 60

    init(limits: ReassemblyLimits, nextID: @escaping () -> Int, finished: @escaping (IPFlow) -> Void) {
        self.limits = limits
        self.nextID = nextID
        self.finished = finished
    }

    func count(_ packet: IPPacket, ports: (source: UInt16, destination: UInt16)?, payloadLength: Int, badChecksum: Bool) {
        let key = FlowKey(
            transportProtocol: packet.transportProtocol, packet.source, ports?.source ?? 0,
            packet.destination, ports?.destination ?? 0)
        let flow: IPFlow
        if let existing = table[key] {
            flow = existing
            table.touch(flow)
        } else {
            if table.count >= limits.maxConnections, let stalest = table.stalest {
                table.remove(stalest)
                evictions += 1
                stalest.markEvicted()
                finished(stalest)
            }
            flow = IPFlow(
                id: nextID(), key: key, packet: packet, sourcePort: ports?.source, destinationPort: ports?.destination)
            table.insert(flow)
        }
        flow.count(packet, sourcePort: ports?.source, payloadLength: payloadLength, badChecksum: badChecksum)
    }

    func expire(now: Timestamp) {
        while let stalest = table.stalest,
              stalest.lastActivity.nanoseconds + Self.idleTimeoutSeconds * 1_000_000_000 < now.nanoseconds
        {
            table.remove(stalest)
            finished(stalest)
        }
    }

    func finishAll() {
        for flow in table.removeAll().sorted(by: { $0.id < $1.id }) { finished(flow) }
    }
}

/// A non-TCP flow (UDP, ICMP, other IP protocols): both directions' counters, so nothing read goes
/// unreported.
package final class IPFlow: ActivityTracked {
    package let id: Int
    package let transportProtocol: UInt8
    package let client: IPAddress
    /// Nil for protocols without ports.
    package let clientPort: UInt16?
    package let server: IPAddress
    package let serverPort: UInt16?
    package let firstTimestamp: Timestamp
    package private(set) var lastTimestamp: Timestamp
    /// Per direction (`FlowDirection.rawValue`).
    package private(set) var counters = [TrafficCounters(), TrafficCounters()]
    package private(set) var badChecksums = 0
    package private(set) var evicted = false
    /// The process or app the capture names for its packets (PKTAP, Apple or PCAPdroid pcapng,
    /// PCAPdroid trailers), set when its records are written.
    package internal(set) var owner: TrafficOwner?

    let key: FlowKey
    var newer: Unmanaged<IPFlow>?
    var older: Unmanaged<IPFlow>?
    var lastActivity: Timestamp { lastTimestamp }

    /// The client is the first sender, except that a flow from a well-known port (< 1024) to a
    /// higher port is taken as the server answering.
    init(id: Int, key: FlowKey, packet: IPPacket, sourcePort: UInt16?, destinationPort: UInt16?) {
        self.id = id
        self.key = key
        transportProtocol = packet.transportProtocol
        let sourceIsServer = (sourcePort ?? 0) < 1024 && (destinationPort ?? 0) >= 1024 && sourcePort != nil
        if sourceIsServer {
            client = packet.destination; clientPort = destinationPort
            server = packet.source; serverPort = sourcePort
        } else {
            client = packet.source; clientPort = sourcePort
            server = packet.destination; serverPort = destinationPort
        }
        firstTimestamp = packet.timestamp
        lastTimestamp = packet.timestamp
    }

    /// `ip:port` (or just the address for portless protocols).
    package var clientEndpoint: String { clientPort.map { client.endpoint(port: $0) } ?? client.description }
    package var serverEndpoint: String { serverPort.map { server.endpoint(port: $0) } ?? server.description }

    /// The protocol's name for records (`udp`, `icmp`, `icmpv6`, or the number).
    package var protocolName: String {
        switch transportProtocol {
        case 17: return "udp"
        case 1: return "icmp"
        case 58: return "icmpv6"
        case 132: return "sctp"
        case 47: return "gre"
        case 50: return "esp"
        default: return String(transportProtocol)
        }
    }

    func count(_ packet: IPPacket, sourcePort: UInt16?, payloadLength: Int, badChecksum: Bool) {
        let direction: FlowDirection = packet.source == client && sourcePort == clientPort ? .up : .down
        var added = packet.wire
        added.payloadBytes = payloadLength
        counters[direction.rawValue] += added
        lastTimestamp = max(lastTimestamp, packet.timestamp)
        if badChecksum || packet.hasBadHeaderChecksum { badChecksums += 1 }
    }

    func markEvicted() { evicted = true }
}

/// The consumer of a TCP connection on port 53: frames each direction's messages and hands them to the
/// transaction tracker. The connection record keeps owning the packets (its bytes stay unattributed
/// there); the transactions count each message's framed bytes as `payloadBytes`.
final class DNSOverTCPConsumer: TCPStreamConsumer {
    private let endpoints: TCPConnection.Endpoints
    private let tracker: DNSTransactionTracker
    private var framers = [DNSStreamFramer(), DNSStreamFramer()]

    init(endpoints: TCPConnection.Endpoints, tracker: DNSTransactionTracker) {
        self.endpoints = endpoints
        self.tracker = tracker
    }

    func streamData(_ data: UnsafeRawBufferPointer, offset: Int64, direction: FlowDirection, origin: PacketOrigin) {
        let client = DNSEndpoint(address: endpoints.client, port: endpoints.clientPort)
        let server = DNSEndpoint(address: endpoints.server, port: endpoints.serverPort)
        let (source, destination) = direction == .up ? (client, server) : (server, client)
        let tracker = self.tracker
        framers[direction.rawValue].append(data, origin: origin) { bytes, framedLength, first, last in
            guard let message = DNSMessage.parse(bytes, allSections: false) else { return tracker.noteUnparsed() }
            tracker.observe(
                message, from: source, to: destination, transport: .tcp,
                timestamp: message.header.isResponse ? last.timestamp : first.timestamp,
                wire: TrafficCounters(payloadBytes: framedLength))
        }
    }

    func streamGap(offset: Int64, length: Int64, direction: FlowDirection, reason: StreamGapReason) {
        framers[direction.rawValue].gap()
    }

    func streamEnded(direction: FlowDirection) {}
}

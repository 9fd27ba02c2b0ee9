/// The consumer of a TCP connection on port 53: frames each direction's messages, hands them to the
/// transaction tracker, and tells the ledger which transaction owns which stream bytes — the k-th
/// query and the k-th response (DNS over TCP answers in order unless the client pipelines, which is
/// rare) form transaction k, like the exchanges of an HTTP connection. Only whole framed messages count
/// as examined, so a packet carrying the start of a message waits until the message is framed.
///
/// Transaction k is final once response k is framed: nothing parsed later belongs to it, so the ledger
/// seals it (once acknowledged and a later transaction has begun) and the analyzer writes its record
/// while the connection is still open, then drops it (`discardExchanges(before:)`). A query without a
/// response stays open until the connection ends, unless more queries than the tracker keeps waiting
/// (`DNSTransactionTracker.maximumPending`) followed it: the tracker reported it `evicted` by then,
/// and it is final too (a response coming after all goes to the unattributed rest, as for a sealed
/// HTTP exchange), so a client that is never answered does not keep all its queries either.
final class DNSOverTCPConsumer: TCPStreamConsumer, StreamAttribution {
    private let endpoints: TCPConnection.Endpoints
    private let tracker: DNSTransactionTracker
    private var framers = [DNSStreamFramer(), DNSStreamFramer()]
    private var runs = [OwnershipRuns(), OwnershipRuns()]
    /// Per direction: stream offset just past the last framed message, and messages framed.
    private var framedEnd: [Int64] = [0, 0]
    private var messages = [0, 0]
    private var ended = [false, false]

    init(endpoints: TCPConnection.Endpoints, tracker: DNSTransactionTracker) {
        self.endpoints = endpoints
        self.tracker = tracker
    }

    func streamData(_ data: UnsafeRawBufferPointer, offset: Int64, direction: FlowDirection, origin: PacketOrigin) {
        let client = DNSEndpoint(address: endpoints.client, port: endpoints.clientPort)
        let server = DNSEndpoint(address: endpoints.server, port: endpoints.serverPort)
        let (source, destination) = direction == .up ? (client, server) : (server, client)
        let tracker = self.tracker
        let d = direction.rawValue
        framers[d].append(data, origin: origin) { bytes, framedLength, first, last in
            runs[d].set(StreamOwner(exchange: messages[d]), from: framedEnd[d])
            messages[d] += 1
            framedEnd[d] += Int64(framedLength)
            guard let message = DNSMessage.parse(bytes, allSections: false) else { return tracker.noteUnparsed() }
            tracker.observe(
                message, from: source, to: destination, transport: .tcp,
                timestamp: message.header.isResponse ? last.timestamp : first.timestamp,
                wire: TrafficCounters(payloadBytes: framedLength))
        }
    }

    func streamGap(offset: Int64, length: Int64, direction: FlowDirection, reason: StreamGapReason) {
        framers[direction.rawValue].gap()
        runs[direction.rawValue].set(.nobody, from: framedEnd[direction.rawValue])
        ended[direction.rawValue] = true
    }

    func streamEnded(direction: FlowDirection) {
        ended[direction.rawValue] = true
    }

    // MARK: StreamAttribution

    func examinedLength(_ direction: FlowDirection) -> Int64 {
        ended[direction.rawValue] ? .max : framedEnd[direction.rawValue]
    }

    func ownership(_ direction: FlowDirection) -> OwnershipRuns { runs[direction.rawValue] }

    var exchangeCount: Int { max(messages[0], messages[1]) }

    var exchangeInFlight: Int? { messages[1] < messages[0] ? messages[0] - 1 : nil }

    /// Final once its response is framed (a response framed later goes to a later transaction), or once
    /// more queries than the tracker keeps waiting followed it.
    func isFinal(_ index: Int) -> Bool {
        index < messages[FlowDirection.down.rawValue]
            || messages[FlowDirection.up.rawValue] - index > tracker.maximumPending
    }

    /// Merges the ownership runs of the transactions before `index`, once the ledger has sealed them
    /// and their records are written (`OwnershipRuns.mergeRuns(before:)`).
    func discardExchanges(before index: Int) {
        for direction in FlowDirection.allCases { runs[direction.rawValue].mergeRuns(before: index) }
    }
}

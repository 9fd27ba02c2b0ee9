/// One TCP connection: its endpoints, both stream directions, its ledger and its state.
package final class TCPConnection: ActivityTracked {
    /// Who is the client: the sender of the SYN (or receiver of the SYN-ACK); without either, the side
    /// with the higher port (ephemeral ports are high), and on equal ports the first sender.
    package struct Endpoints: Hashable, Sendable {
        package var client: IPAddress
        package var clientPort: UInt16
        package var server: IPAddress
        package var serverPort: UInt16

        package init(client: IPAddress, clientPort: UInt16, server: IPAddress, serverPort: UInt16) {
            self.client = client
            self.clientPort = clientPort
            self.server = server
            self.serverPort = serverPort
        }

        /// The endpoints implied by the first segment seen of a connection.
        init(_ ip: IPPacket, _ tcp: TCPSegment) {
            let sourceIsClient: Bool
            if tcp.flags.contains(.syn) {
                sourceIsClient = !tcp.flags.contains(.ack)
            } else {
                sourceIsClient = tcp.sourcePort >= tcp.destinationPort
            }
            if sourceIsClient {
                self.init(client: ip.source, clientPort: tcp.sourcePort, server: ip.destination, serverPort: tcp.destinationPort)
            } else {
                self.init(client: ip.destination, clientPort: tcp.destinationPort, server: ip.source, serverPort: tcp.sourcePort)
            }
        }
    }

    /// Unique in one analysis, in order of first packet.
    package let id: Int
    package let client: IPAddress
    package let clientPort: UInt16
    package let server: IPAddress
    package let serverPort: UInt16
    package let firstTimestamp: Timestamp
    package private(set) var lastTimestamp: Timestamp
    package private(set) var flags: ConnectionFlags = []
    /// The process or app the capture names for its packets (PKTAP, Apple or PCAPdroid pcapng,
    /// PCAPdroid trailers), set when its records are written.
    package internal(set) var owner: TrafficOwner?
    package private(set) var ledger = ConnectionLedger()
    /// When the client's first SYN was seen.
    package private(set) var synTime: Timestamp?
    /// When the client's ACK completing the three-way handshake was seen.
    package private(set) var establishedTime: Timestamp?
    /// When the server's first FIN was seen (the end of a close-delimited response).
    package private(set) var serverFINTime: Timestamp?
    /// Nanoseconds from the client's SYN to the handshake-completing ACK, when both were seen: about
    /// one round trip from either vantage point (client: SYN→SYN-ACK; server: SYN-ACK→ACK).
    package var handshakeNanoseconds: Int64? {
        guard let synTime, let establishedTime else { return nil }
        return establishedTime.nanoseconds - synTime.nanoseconds
    }

    /// Receives the reassembled streams, if anything wants them.
    package let consumer: (any TCPStreamConsumer)?
    /// The consumer's view of which exchange owns which stream bytes, when it is an application-layer
    /// analyzer (the same object as `consumer`, which owns it: unowned, no reference counting on every
    /// packet).
    package unowned(unsafe) let attribution: (any StreamAttribution)?
    /// `consumer` when it is the application-layer analysis (the default), unretained: the per-packet
    /// ledger calls go through it.
    private let applicationLayer: Unmanaged<ApplicationLayerAnalysis>?

    private var up: TCPStreamDirection
    private var down: TCPStreamDirection
    private var sawSYNACK = false
    private var finSeen = false

    // Links of the table's least-recently-active list.
    var newer: Unmanaged<TCPConnection>?
    var older: Unmanaged<TCPConnection>?
    var lastActivity: Timestamp { lastTimestamp }

    let key: FlowKey
    /// Exchanges (or DNS-over-TCP transactions) already handed to the output (the analyzer's
    /// bookkeeping).
    var exchangesReported = 0

    /// Drops the exchanges already handed to the output, all sealed, from the ledger and the
    /// application-layer analysis (or the DNS-over-TCP consumer): nothing reads them any more (their
    /// indices stay the same).
    func discardReportedExchanges() {
        ledger.discardExchanges(before: exchangesReported)
        attribution?.discardExchanges(before: exchangesReported)
    }

    /// - Parameters:
    ///   - lentMemory: packet memory the streams' histories may refer to instead of copying bytes.
    ///   - bufferedTotal: the reassembler's count of out-of-order bytes held by all connections.
    init(
        id: Int, endpoints: Endpoints, timestamp: Timestamp, limits: ReassemblyLimits,
        consumer: (any TCPStreamConsumer)?, lentMemory: LentPacketMemory? = nil,
        bufferedTotal: UnsafeMutablePointer<Int>? = nil
    ) {
        self.id = id
        client = endpoints.client
        clientPort = endpoints.clientPort
        server = endpoints.server
        serverPort = endpoints.serverPort
        key = FlowKey(transportProtocol: 6, client, clientPort, server, serverPort)
        firstTimestamp = timestamp
        lastTimestamp = timestamp
        self.consumer = consumer
        attribution = consumer as? any StreamAttribution
        applicationLayer = (consumer as? ApplicationLayerAnalysis).map { Unmanaged.passUnretained($0) }
        up = TCPStreamDirection(
            historyCapacity: limits.overlapCheckHistoryBytes, lentMemory: lentMemory, bufferedTotal: bufferedTotal)
        down = TCPStreamDirection(
            historyCapacity: limits.overlapCheckHistoryBytes, lentMemory: lentMemory, bufferedTotal: bufferedTotal)
    }

    /// `ip:port` of the client and server (`[ip]:port` for IPv6).
    package var clientEndpoint: String { client.endpoint(port: clientPort) }
    package var serverEndpoint: String { server.endpoint(port: serverPort) }

    /// True after a RST, or FINs from both sides.
    package var isClosed: Bool { flags.contains(.reset) || flags.isSuperset(of: [.clientFIN, .serverFIN]) }

    /// The direction of a packet sent from `address`:`port`.
    func direction(from address: IPAddress, port: UInt16) -> FlowDirection {
        address == client && port == clientPort ? .up : .down
    }

    /// True when a SYN with this sequence number from the client starts a new connection on the same
    /// ports rather than belonging to this one.
    func isNewConnection(syn sequence: UInt32, direction: FlowDirection) -> Bool {
        if isClosed { return !(direction == .up && up.sawSYN && up.initialSequence == sequence) }
        return direction == .up && up.sawSYN && up.initialSequence != sequence && up.hasData
    }

    /// Counts and reassembles one segment; true when it sealed an exchange.
    func process(_ ip: IPPacket, _ tcp: TCPSegment, limits: ReassemblyLimits) -> Bool {
        let direction = self.direction(from: ip.source, port: tcp.sourcePort)
        lastTimestamp = max(lastTimestamp, ip.timestamp)
        let origin = PacketOrigin(frameNumber: ip.frameNumber, timestamp: ip.timestamp)
        let delivery = streamDelivery(direction)
        let flagsIn = tcp.flags

        var newlyAcknowledged: Range<Int64>?
        if flagsIn.contains(.ack) && !flagsIn.contains(.rst) {
            let peerDelivery = streamDelivery(direction.reversed)
            newlyAcknowledged = withStream(direction.reversed) {
                $0.noteAcknowledgment(tcp.acknowledgment, limits: limits, delivery: peerDelivery)
            }
        }
        if flagsIn.contains(.syn) { noteSYN(tcp, direction: direction, timestamp: ip.timestamp) }

        var outcome = PayloadOutcome()
        if tcp.payloadLength > 0 && !flagsIn.contains(.rst) {
            outcome = withStream(direction) {
                $0.accept(
                    sequence: tcp.sequence &+ (flagsIn.contains(.syn) ? 1 : 0), length: tcp.payloadLength,
                    captured: tcp.payload, origin: origin, limits: limits, delivery: delivery)
            }
            if outcome.outOfWindow { flags.insert(.outOfWindow) }
            if tcp.isPayloadTruncated { flags.insert(.payloadTruncated) }
        }
        let category = classify(tcp, direction: direction, newBytes: outcome.newBytes, timestamp: ip.timestamp)
        // A client closing or resetting while an exchange is in flight (before a reset ends the streams)
        if direction == .up, !flagsIn.isDisjoint(with: [.fin, .rst]), ledger.clientClose == nil,
           let inFlight = attribution?.exchangeInFlight {
            ledger.noteClientClose(exchange: inFlight, at: ip.timestamp)
            attribution?.noteClientClose(exchange: inFlight)
        }

        if flagsIn.contains(.fin) {
            finSeen = true
            flags.insert(direction == .up ? .clientFIN : .serverFIN)
            if direction == .down && serverFINTime == nil { serverFINTime = ip.timestamp }
            withStream(direction) {
                $0.noteFIN(sequence: tcp.sequence, payloadLength: tcp.payloadLength, delivery: delivery)
            }
        }
        if flagsIn.contains(.rst) {
            flags.insert(.reset)
            // A client's reset ends its own stream; what the server had already sent still arrives
            // (the response data of a cancelled request: nginx counts it in `$bytes_sent`) and is read
            // until the connection ends. A server's reset ends both.
            if direction == .up { up.finish(delivery: streamDelivery(.up)) } else { finishStreams() }
        }
        if ip.hasBadHeaderChecksum || tcp.hasBadChecksum { flags.insert(.badChecksum) }
        if ip.wasFragmented { flags.insert(.fragmented) }

        var counters = ip.wire
        counters.payloadBytes = tcp.payloadLength
        let packet = LedgerPacket(
            direction: direction, category: category, counters: counters,
            duplicatePayloadBytes: Int(outcome.duplicateBytes), streamRange: outcome.range,
            newlyAcknowledged: newlyAcknowledged, timestamp: ip.timestamp)
        if let application = applicationLayer {
            // the common case, without retaining the analysis for the calls (an atomic on a cold line)
            return application._withUnsafeGuaranteedRef { account(packet, $0) }
        }
        guard let attribution else {
            ledger.record(packet)
            return false
        }
        return account(packet, attribution)
    }

    /// Counts and attributes one packet in the ledger and seals what became final; true when any was.
    private func account(_ packet: LedgerPacket, _ attribution: some StreamAttribution) -> Bool {
        ledger.record(packet, attribution: attribution)
        return attributeAndSeal(attribution, at: packet.timestamp)
    }

    /// Attributes the packets waiting for bytes the analyzer has now examined and seals what became
    /// final; true when any exchange was sealed.
    private func attributeAndSeal(_ attribution: some StreamAttribution, at now: Timestamp) -> Bool {
        ledger.attributePending(attribution)
        return ledger.sealFinished(attribution, at: now)
    }

    /// Seals every final exchange, the last one included (the connection has been idle); true when
    /// any was.
    func sealIdle() -> Bool {
        guard let attribution else { return false }
        let reset = flags.contains(.reset)
        if reset {
            // after a client's reset the server's stream stayed open for the data it had in flight:
            // the peer's packets have stopped for the settle time, so it is over (and never acknowledged)
            finishStreams()
            ledger.attributePending(attribution)
        }
        return ledger.sealIdle(attribution, reset: reset)
    }

    /// True when an idle seal has nothing left to do.
    var isSettled: Bool { ledger.sealedCount >= (attribution?.exchangeCount ?? 0) }

    /// Delivers everything still held, ends both streams and settles the ledger; call before reporting
    /// the connection.
    func finish(reason: ConnectionFlags = []) {
        flags.formUnion(reason)
        finishStreams()
        ledger.close(attribution)
        for direction in FlowDirection.allCases {
            let stream = direction == .up ? up : down
            ledger.setMissingBytes(Int(stream.missingBytes), direction: direction)
            if stream.missingBytes > 0 { flags.insert(.gap) }
            if stream.conflictingBytes > 0 { flags.insert(.conflictingOverlap) }
            if stream.bufferOverflows > 0 { flags.insert(.bufferOverflow) }
            if stream.wasRebased { flags.insert(.rebased) }
        }
        if !up.sawSYN && !down.sawSYN { flags.insert(.midstream) }
        if ledger.lateAfterSealing.packets > 0 { flags.insert(.lateAfterSealing) }
        if applicationLayer?._withUnsafeGuaranteedRef({ $0.reachedOpenRequestCap }) == true {
            flags.insert(.tooManyOpenRequests)
        }
    }

    /// Captured out-of-order bytes held by both directions.
    var heldBytes: Int { up.heldBytes + down.heldBytes }

    /// Forces the direction holding more out-of-order bytes past its first hole (the reassembler's
    /// total buffer cap was exceeded) and flags the connection; true when that sealed an exchange.
    func forcePastFirstHole() -> Bool {
        let direction: FlowDirection = up.heldBytes >= down.heldBytes ? .up : .down
        let delivery = streamDelivery(direction)
        guard withStream(direction, { $0.forcePastFirstHole(delivery: delivery) }) else { return false }
        flags.insert(.totalBufferOverflow)
        guard let attribution else { return false }
        return attributeAndSeal(attribution, at: lastTimestamp)
    }

    // MARK: - Private

    private func noteSYN(_ tcp: TCPSegment, direction: FlowDirection, timestamp: Timestamp) {
        _ = withStream(direction) { $0.synchronize(onSYN: tcp.sequence) }
        if tcp.flags.contains(.ack) {
            if direction == .down { sawSYNACK = true }
        } else if direction == .up && synTime == nil {
            synTime = timestamp
        }
    }

    private func classify(
        _ tcp: TCPSegment, direction: FlowDirection, newBytes: Int64, timestamp: Timestamp
    ) -> PacketCategory {
        let tcpFlags = tcp.flags
        if tcpFlags.contains(.rst) { return .teardown }
        if tcpFlags.contains(.syn) { return .setup }
        let completesHandshake = direction == .up && sawSYNACK && !flags.contains(.established)
            && tcpFlags.contains(.ack)
        if completesHandshake {
            flags.insert(.established)
            down.adoptAcknowledgedBase(tcp.acknowledgment)
            if let synTime {
                establishedTime = timestamp
                ledger.setRoundTrip(timestamp.nanoseconds - synTime.nanoseconds)
            }
        }
        if tcp.payloadLength > 0 { return newBytes > 0 ? .payload : .retransmission }
        if tcpFlags.contains(.fin) { return .teardown }
        if completesHandshake { return .setup }
        return finSeen ? .teardown : .ack
    }

    private func finishStreams() {
        up.finish(delivery: streamDelivery(.up))
        down.finish(delivery: streamDelivery(.down))
    }

    private func streamDelivery(_ direction: FlowDirection) -> StreamDelivery {
        StreamDelivery(consumer: consumer, applicationLayer: applicationLayer, direction: direction)
    }

    private func withStream<Result>(
        _ direction: FlowDirection, _ body: (inout TCPStreamDirection) -> Result
    ) -> Result {
        direction == .up ? body(&up) : body(&down)
    }
}

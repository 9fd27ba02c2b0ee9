/// Runs the pipeline on captured packets: filter → link/IP decoding → TCP reassembly (or flow counting)
/// → ledger, emitting each connection and flow record as soon as it is complete.
package final class CaptureAnalyzer {
    /// Settings of one analysis.
    package struct Options: Sendable {
        /// A BPF expression (tcpdump syntax); packets it rejects are counted as filtered.
        package var filter: String?
        package var limits = ReassemblyLimits()
        /// Caps of the HTTP/1.x parser (and whether bodies are decoded).
        package var http = HTTPLimits()
        /// Keep every exchange of an open connection, for outputs that read `TCPConnection.ledger` or
        /// its analysis after an exchange's record (comparing with app logs keeps the records). By
        /// default a connection drops each exchange once its record is written, so that memory does not
        /// grow with the exchanges of a long keep-alive connection.
        package var keepsReportedExchanges = false
        /// TLS session secrets (key logs): connections whose secrets they have are decrypted.
        package var tlsKeys: TLSKeyStore?
        /// Keep only the packets the capture says belong to this process or app (its name, effective
        /// name or app name, as `TrafficOwner` gives them); the others are counted as filtered, like
        /// the packets `filter` rejects.
        package var appName: String?
        package init(filter: String? = nil, limits: ReassemblyLimits = ReassemblyLimits(), http: HTTPLimits = HTTPLimits()) {
            self.filter = filter
            self.limits = limits
            self.http = http
        }
    }

    package private(set) var summary = CaptureSummary()
    private let decoder = PacketDecoder()
    private let filter: PacketFilter?
    /// `Options.appName`.
    private let appFilter: InlineName?
    /// The process or app of each live connection and flow.
    private let owners = OwnerTracker()
    private let reassembler: TCPReassembler
    /// Packet memory lent to the reassembler's histories of delivered bytes (by `AnalysisRun`, its
    /// packet batches): bytes there are referred to, not copied, until the memory is reclaimed.
    let lentPacketMemory = LentPacketMemory()
    private let flowTracker: IPFlowTracker
    private let quicTracker: QUICConnectionTracker
    // DNS: transactions over UDP and TCP port 53, and the answers they gave.
    private let dnsTracker: DNSTransactionTracker
    /// The answers seen so far: names connections and times the DNS phase of exchanges.
    package let dnsAnswers = DNSAnswerIndex()
    private var lastIDAssigned = 0
    private var lastExchangeID = 0
    /// Capture time of the packet being processed.
    private var now = Timestamp(nanoseconds: 0)
    /// DNS transactions already claimed by a connection (each lookup precedes one connection).
    private var claimedResolutions = Set<Int>()
    /// Some packet named its owner (`owners` has been noted in): until then no connection has one.
    private var hasOwners = false
    /// DNS-over-TCP transactions waiting for their connection to seal their exchange (which gives their
    /// packets), by client and server endpoint; the k-th transaction reported for a connection is its
    /// exchange k, and the ones written are dropped.
    private var tcpDNSAwaitingConnection: [String: PrefixDiscardingArray<DNSTransaction>] = [:]
    private var nextExpiry: Int64 = .min
    /// Counts of the decoder that decoded packets in the slots given to `process(_:)`.
    private var otherDecoderStatistics = DecoderStatistics()
    /// Where `decodeAndAnalyze` decodes each packet, for the whole run: a local was initialized and
    /// copied (200 bytes each time) for every packet.
    private let decodedPacket: UnsafeMutablePointer<DecodedPacket> = {
        let decoded = UnsafeMutablePointer<DecodedPacket>.allocate(capacity: 1)
        decoded.initialize(to: .heldFragment)
        return decoded
    }()
    private let emit: (consuming AnalysisRecord) -> Void
    /// Exchanges stay on their connection after their record (`Options.keepsReportedExchanges`).
    private let keepsReportedExchanges: Bool

    /// IP fragments of a datagram not complete after this long are reported incomplete (Linux's
    /// `ipfrag_time` is 30 s).
    private static let fragmentTimeoutNanoseconds: Int64 = 30_000_000_000

    /// Capture seconds between expiry sweeps.
    private static let expiryIntervalNanoseconds: Int64 = 1_000_000_000

    /// - Parameters:
    ///   - options: the filter, limits, HTTP caps and TLS keys of the analysis.
    ///   - makeConsumer: gives each TCP connection the consumer of its reassembled streams; by default
    ///     the application-layer analysis (HTTP/1.x, or TLS) that attributes its packets to exchanges.
    ///     Connections with port 53 on either side get the DNS-over-TCP consumer instead.
    ///   - emit: receives each finished exchange, connection and flow.
    package init(
        options: Options = Options(),
        makeConsumer: ((TCPConnection.Endpoints) -> (any TCPStreamConsumer)?)? = nil,
        emit: @escaping (consuming AnalysisRecord) -> Void
    ) {
        var httpLimits = options.http
        httpLimits.openRequestsTotal = OpenRequestBudget(limit: httpLimits.maxOpenRequestsTotal)
        if httpLimits.measureReencodedBodies { httpLimits.bodyReencoder = BodyReencoder() }
        let keepsReportedExchanges = options.keepsReportedExchanges
        let tlsKeys = options.tlsKeys
        self.emit = emit
        filter = options.filter.map { PacketFilter(expression: $0) }
        appFilter = options.appName.map { InlineName($0) }
        // The trackers call back into the analyzer, which closures can capture only once every stored
        // property, trackers included, is set: they reach it through `analyzer`, set last. The trackers
        // are `let`s so that the per-packet calls do not retain and release them. Unretained: the
        // trackers are the analyzer's own and call back only while one of its methods runs (a weak
        // reference gave the analyzer a side table, so every call back loaded it through that and
        // released it on the runtime's slow path).
        var analyzer: Unmanaged<CaptureAnalyzer>?
        func withAnalyzer<Result>(_ body: (CaptureAnalyzer) -> Result) -> Result? {
            analyzer?._withUnsafeGuaranteedRef(body)
        }
        // DNS: port-53 connections get the DNS-over-TCP consumer, the others `makeConsumer`'s.
        let dnsTracker = DNSTransactionTracker(answers: dnsAnswers, finished: { transaction in withAnalyzer { $0.report(transaction) } })
        let dnsOrOtherConsumer: (TCPConnection.Endpoints) -> (any TCPStreamConsumer)? = { endpoints in
            if DNSPorts.carriesDNS(endpoints.clientPort, endpoints.serverPort) {
                return DNSOverTCPConsumer(endpoints: endpoints, tracker: dnsTracker)
            }
            if let makeConsumer { return makeConsumer(endpoints) }
            return ApplicationLayerAnalysis(
                httpLimits: httpLimits, resolution: withAnalyzer { $0.claimResolution(of: endpoints.server) } ?? nil,
                tlsKeys: tlsKeys)
        }
        let nextID: () -> Int = { withAnalyzer { $0.assignID() } ?? 0 }
        self.dnsTracker = dnsTracker
        reassembler = TCPReassembler(
            limits: options.limits, nextID: nextID, makeConsumer: dnsOrOtherConsumer,
            sealed: { connection in
                withAnalyzer { $0.reportSealedExchanges(of: connection, discarding: !keepsReportedExchanges) }
            },
            finished: { connection in withAnalyzer { $0.report(connection) } }, lentMemory: lentPacketMemory)
        flowTracker = IPFlowTracker(
            limits: options.limits, nextID: nextID, finished: { flow in withAnalyzer { $0.report(flow) } })
        quicTracker = QUICConnectionTracker(
            limits: options.limits, keys: tlsKeys, httpLimits: httpLimits, nextID: nextID,
            resolve: { address in withAnalyzer { $0.claimResolution(of: address) } ?? nil },
            sealed: { connection in withAnalyzer { $0.reportExchanges(of: connection) } },
            finished: { connection in withAnalyzer { $0.report(connection) } })
        self.keepsReportedExchanges = keepsReportedExchanges
        analyzer = .passUnretained(self)
    }

    deinit { decodedPacket.deallocate() }  // plain data: nothing to deinitialize

    /// The next record id (shared by connections and flows).
    private func assignID() -> Int {
        lastIDAssigned += 1
        return lastIDAssigned
    }

    /// Analyses one packet. Its bytes are not kept past the call.
    package func process(_ packet: CapturedPacket) {
        withUnsafePointer(to: packet) { packet in
            guard count(packet) else { return }
            decodeAndAnalyze(packet)
        }
    }

    /// Counts and analyses the packet in a batch's slot (`AnalysisRun`), read where it lies: the packet
    /// and the form the reader decoded it into (`isDecoded`, whose counts go to
    /// `addDecoderStatistics`) are not copied out of the slot (a copy of the packet retained and
    /// released its owner, one of the decoded packet moved 200 bytes).
    func process(_ slot: UnsafePointer<PacketBatch.Slot>) {
        let packet = slot.pointer(to: \.packet).unsafelyUnwrapped
        guard count(packet) else { return }
        if slot.pointee.isDecoded {
            analyze(slot.pointer(to: \.decoded).unsafelyUnwrapped, of: packet)
        } else {
            decodeAndAnalyze(packet)
        }
    }

    /// Decodes `packet` and analyses it, the decoded form built where it is read (`decodedPacket`).
    @inline(__always)
    private func decodeAndAnalyze(_ packet: UnsafePointer<CapturedPacket>) {
        decoder.decode(packet.pointee, into: &decodedPacket.pointee)
        analyze(decodedPacket, of: packet)
    }

    /// Counts a packet read and lets capture time advance to it; false when the filter or the app
    /// filter (given the packet's `owner`) rejects it. The packet is read in place.
    @inline(__always)
    private func count(_ packet: UnsafePointer<CapturedPacket>) -> Bool {
        let timestamp = packet.pointee.timestamp
        let frame = TrafficCounters(packets: 1, ipBytes: 0, frameBytes: packet.pointee.originalLength, payloadBytes: 0)
        summary.read += frame
        now = timestamp
        if summary.firstTimestamp == nil { summary.firstTimestamp = timestamp }
        summary.lastTimestamp = max(summary.lastTimestamp ?? timestamp, timestamp)
        if timestamp.nanoseconds >= nextExpiry { expire(now: timestamp) }
        reassembler.settle(now: timestamp)

        if let filter, !passes(packet.pointee, filter) {
            summary.filtered += frame
            return false
        }
        if let appFilter, !(packet.pointee.owner?.matches(name: appFilter) ?? false) {
            summary.filtered += frame
            return false
        }
        return true
    }

    /// Counts `packet` decoded and hands it to the reassembler or the flow tracker; both read in place.
    /// The packet's owner is read last, where it is noted: read first (for every packet, though
    /// most name none), it was held across the analysis, its ~100 bytes copied about.
    @inline(__always)
    private func analyze(_ decoded: UnsafePointer<DecodedPacket>, of packet: UnsafePointer<CapturedPacket>) {
        switch decoded.pointee {
        case let .tcp(ip, tcp):
            var counted = ip.wire
            counted.payloadBytes = tcp.payloadLength
            summary.inConnections += counted
            reassembler.process(ip, tcp)
        case let .udp(ip, udp):
            var counted = ip.wire
            counted.payloadBytes = udp.payloadLength
            if quicTracker.count(
                ip, sourcePort: udp.sourcePort, destinationPort: udp.destinationPort, payload: udp.payload,
                payloadLength: udp.payloadLength, badChecksum: udp.hasBadChecksum)
            {
                summary.inQUICConnections += counted
            } else {
                summary.inFlows += counted
                flowTracker.count(
                    ip, ports: (udp.sourcePort, udp.destinationPort), payloadLength: udp.payloadLength,
                    badChecksum: udp.hasBadChecksum)
            }
            if DNSPorts.carriesDNS(udp.sourcePort, udp.destinationPort) { dnsTracker.observe(ip, udp) }  // DNS
        case let .otherIP(ip):
            summary.inFlows += ip.wire
            flowTracker.count(ip, ports: nil, payloadLength: 0, badChecksum: false)
        case .heldFragment:
            break
        case let .undecoded(failure, wire):
            summary.undecoded[failure, default: TrafficCounters()] += wire
            if failure == .unknownLinkType { summary.unknownLinkTypes[packet.pointee.linkType.rawValue, default: 0] += 1 }
        }
        if let owner = packet.pointee.owner { note(owner, of: decoded.pointee) }
    }

    /// Notes the owner of a decoded packet for its connection or flow (after the packet was
    /// analysed: a port reuse it caused has ended the previous connection first).
    private func note(_ owner: PacketOwner, of decoded: borrowing DecodedPacket) {
        hasOwners = true
        switch decoded {
        case let .tcp(ip, tcp):
            owners.note(owner, key: FlowKey(transportProtocol: 6, ip.source, tcp.sourcePort, ip.destination, tcp.destinationPort))
        case let .udp(ip, udp):
            owners.note(owner, key: FlowKey(transportProtocol: 17, ip.source, udp.sourcePort, ip.destination, udp.destinationPort))
        case let .otherIP(ip):
            owners.note(owner, key: FlowKey(transportProtocol: ip.transportProtocol, ip.source, 0, ip.destination, 0))
        case .heldFragment, .undecoded:
            break
        }
    }

    /// TCP connections open now.
    package var openConnections: Int { reassembler.connectionCount }

    /// Lets time pass without a packet (a live capture's clock when the interface is quiet): seals the
    /// last exchanges of connections idle for the settle time (`limits.settleNanoseconds`), runs the
    /// expiry a packet at this time would run (a QUIC connection closed 3 s ago, idle flows), reads the
    /// QUIC datagrams held for secrets the key log now has. Records do not depend on when this is
    /// called: a connection's next packet applies the same rules first.
    package func advanceClock(to time: Timestamp) {
        let current = max(time, now)
        if current.nanoseconds >= nextExpiry { expire(now: current) }
        reassembler.settle(now: current)
        quicTracker.releaseHeldDatagrams(now: current)
    }

    /// Adds the counts of a decoder that decoded the packets of the slots given to `process(_:)`; call before
    /// `finish`.
    func addDecoderStatistics(_ statistics: DecoderStatistics) {
        otherDecoderStatistics = otherDecoderStatistics.merged(withStateless: statistics)
    }

    /// Notes an input error; the records already produced stay valid.
    package func noteError(_ error: Error) {
        summary.errors.append(String(describing: error))
    }

    /// Finalises every connection and flow still open and returns the summary.
    package func finish(timestampDigits: Int) -> CaptureSummary {
        // With a settle time, time runs on past the last packet (as it did in a live capture until it
        // was stopped): idle connections settle first, in the order of their deadlines.
        reassembler.settle(now: Timestamp(nanoseconds: .max))
        reassembler.finishAll()
        flowTracker.finishAll()
        quicTracker.finishAll()
        dnsTracker.finishAll()  // DNS
        for key in tcpDNSAwaitingConnection.keys.sorted() {
            tcpDNSAwaitingConnection[key]?.forEach { emit(.dns($0)) }  // their connection ended first
        }
        tcpDNSAwaitingConnection.removeAll()
        summary.incompleteFragments += decoder.flushFragments()
        summary.timestampDigits = timestampDigits
        summary.connectionEvictions = reassembler.evictions
        summary.idleExpirations = reassembler.idleExpirations
        summary.bufferCapGaps = reassembler.bufferCapGaps
        summary.flowEvictions = flowTracker.evictions
        summary.quicConnectionEvictions = quicTracker.evictions
        summary.idleExpirations += quicTracker.idleExpirations
        let statistics = decoder.statistics.merged(withStateless: otherDecoderStatistics)
        summary.badIPChecksums = statistics.badIPv4HeaderChecksums
        summary.badTransportChecksums = statistics.badTransportChecksums
        summary.fragmentedDatagrams = statistics.fragmentedDatagrams
        return summary
    }

    /// A filter that does not compile for this packet's link type rejects it; the error is noted once.
    private func passes(_ packet: CapturedPacket, _ filter: PacketFilter) -> Bool {
        do {
            return try filter.matches(packet)
        } catch {
            let message = String(describing: error)
            if !summary.errors.contains(message) { summary.errors.append(message) }
            return false
        }
    }

    private func expire(now: Timestamp) {
        nextExpiry = now.nanoseconds + Self.expiryIntervalNanoseconds
        reassembler.expire(now: now)
        flowTracker.expire(now: now)
        quicTracker.expire(now: now)
        dnsTracker.expire(now: now)  // DNS
        let staleBefore = Timestamp(nanoseconds: now.nanoseconds - Self.fragmentTimeoutNanoseconds)
        summary.incompleteFragments += decoder.expireFragments(olderThan: staleBefore)
    }

    private func report(_ connection: TCPConnection) {
        reportExchanges(of: connection, upTo: .max)
        if hasOwners { connection.owner = owners.take(connection.key) ?? connection.owner }
        if connection.consumer is DNSOverTCPConsumer { reportDNS(of: connection, upTo: .max) }
        summary.connections += 1
        if connection.flags.contains(.tooManyOpenRequests) { summary.openRequestCapConnections += 1 }
        if let status = (connection.consumer as? ApplicationLayerAnalysis)?.tls?.decryptionStatus {
            summary.tlsDecryption[status, default: 0] += 1
        }
        let missing = connection.ledger.tally(.up).missingBytes + connection.ledger.tally(.down).missingBytes
        if missing > 0 {
            summary.connectionsWithGaps += 1
            summary.missingBytes += missing
        }
        emit(.connection(connection))
    }

    /// Emits the connection's newly sealed exchanges (or DNS-over-TCP transactions), then
    /// (`discarding`) drops them from the connection: their records are written and nothing changes
    /// them, so a long keep-alive connection keeps only the exchanges not sealed yet.
    private func reportSealedExchanges(of connection: TCPConnection, discarding: Bool) {
        reportExchanges(of: connection, upTo: connection.ledger.sealedCount, taking: discarding)
        if connection.consumer is DNSOverTCPConsumer { reportDNS(of: connection, upTo: connection.ledger.sealedCount) }
        if discarding { connection.discardReportedExchanges() }
    }

    /// Emits the connection's exchanges not reported yet, up to index `end` (exclusive): the sealed
    /// ones while it is open, all of them when it ends. `taking`: they are discarded right after, so
    /// their records take them from the analysis instead of copying them.
    private func reportExchanges(of connection: TCPConnection, upTo end: Int, taking: Bool = false) {
        guard let application = connection.consumer as? ApplicationLayerAnalysis,
              connection.exchangesReported < min(end, application.exchangeCount) else { return }
        // One box for the exchanges reported now. The tracker is not asked and the connection's owner
        // not read when no packet ever named an owner: then no connection has one (the tracker's nil
        // answer cost two copies of a nil `TrafficOwner?`, ~150 bytes each, a report round).
        var owner: SharedTrafficOwner?
        if hasOwners {
            if let tracked = owners.owner(of: connection.key) { connection.owner = tracked }  // not the owner copied onto itself
            owner = connection.owner.map(SharedTrafficOwner.init)
        }
        // The session's fields read where they are (`application.tls?.session` copied all of it).
        let tls = application.tls
        var handshake: ExchangeTimer.Interval?
        if let tls, let hello = tls.session.clientHelloTime, let finished = tls.session.clientFinishedTime {
            handshake = ExchangeTimer.Interval(start: hello, end: finished)
        }
        let connect = connection.synTime.flatMap { syn in
            connection.establishedTime.map { ExchangeTimer.Interval(start: syn, end: $0) }
        }
        let reported = connection.exchangesReported..<min(end, application.exchangesEndIndex)
        let tlsRecords = tls?.recordBytes(of: reported)
        // Read for each record, unless the records take the exchanges: then the analysis must hold the
        // only reference to them, or taking one would copy them all.
        let kept = taking ? nil : application.exchanges
        let serverName = tls?.session.sni ?? application.resolution?.name
        for index in reported {
            report(
                taking ? application.takeExchange(index) : kept.unsafelyUnwrapped[index], of: connection,
                application: application, owner: owner, serverName: serverName, tlsRecords: tlsRecords,
                connect: connect, handshake: handshake)
        }
    }

    /// Emits one exchange of a TCP connection (`reportExchanges`) with the server name, TLS record
    /// bytes and cancellation its connection gives it, and `owner` (its connection's, boxed). The
    /// exchange is a parameter of its own so that it is moved into the record (a local `var` of the
    /// loop was copied into it, then destroyed); its record is made last, by `ExchangeRecord`'s TCP
    /// initializer.
    private func report(
        _ exchange: consuming HTTPExchange, of connection: TCPConnection, application: ApplicationLayerAnalysis,
        owner: SharedTrafficOwner?, serverName: String?, tlsRecords: DirectionPair<[Int: TLSExchangeRecordBytes]>?,
        connect: ExchangeTimer.Interval?, handshake: ExchangeTimer.Interval?
    ) {
        // Set only when there is one: the exchange has none before its report, and assigning nil
        // destroyed the old nil through a generic value-witness call.
        if let serverName { exchange.serverName = serverName }
        if let tlsRecords {
            exchange.tlsRecords = DirectionPair(
                tlsRecords.up[exchange.index] ?? TLSExchangeRecordBytes(),
                tlsRecords.down[exchange.index] ?? TLSExchangeRecordBytes())
        }
        if let close = connection.ledger.clientClose, close.exchange == exchange.index,
           exchange.response?.flags.contains(.incomplete) == true {  // mid-response (HTTP/2: unless its stream was reset first)
            exchange.cancelledAt = exchange.cancelledAt ?? close.at
        }
        if exchange.cancelledAt != nil, !exchange.settleAfterCancel() {  // estimated: what arrived after
            let after = connection.ledger.exchanges.wire(exchange.index).afterClientClose.down
            exchange.unreadResponseBytes = after.payload.payloadBytes - after.duplicateBytesInPayloadPackets
        }
        connection.exchangesReported = exchange.index + 1
        let id = complete(
            &exchange, payloadTimes: connection.ledger.exchanges.payloadTimes(exchange.index),
            resolution: application.resolution, connectedAt: connection.synTime, connect: connect, tls: handshake,
            serverFIN: connection.serverFINTime)
        emit(ExchangeRecord(consume exchange, id: id, of: connection, tls: application.tls, owner: owner))
    }

    /// Emits a QUIC connection's sealed exchanges not reported yet (all of them once it has ended),
    /// then, unless they are kept, drops them from the connection.
    private func reportExchanges(of connection: QUICConnection) {
        let end = connection.ledger.sealedCount
        guard connection.exchangesReported < end else { return }
        connection.owner = owners.owner(of: Self.firstPathKey(of: connection)) ?? connection.owner
        let (connect, handshake) = connection.handshakePhases
        let serverName = connection.tlsSession?.sni ?? connection.resolution?.name
        for var exchange in connection.exchanges(connection.exchangesReported ..< end) {
            exchange.serverName = serverName
            connection.exchangesReported = exchange.index + 1
            let carrier = ExchangeConnection(connection, exchange: exchange.index)
            let id = complete(
                &exchange, payloadTimes: carrier.wire.payloadTimes, resolution: connection.resolution,
                connectedAt: connection.clientFirstInitialTime, connect: connect, tls: handshake)
            emit(ExchangeRecord(exchange, id: id, connection: carrier))
        }
        if !keepsReportedExchanges { connection.discardReportedExchanges() }
    }

    /// Fills in what an exchange's record tells beyond its messages, and gives its record id: the DNS
    /// lookup (`resolution`: the first exchange carries its bytes), and the timing phases from its
    /// payload packets' times (`payloadTimes`, its wire's), the transport handshake (`connect`, begun
    /// `connectedAt`) and TLS handshake (`tls`) that preceded its connection, and `serverFIN`.
    private func complete(
        _ exchange: inout HTTPExchange, payloadTimes: DirectionPair<ClosedRange<Timestamp>?>, resolution: DNSResolution?,
        connectedAt: Timestamp?, connect: ExchangeTimer.Interval?, tls: ExchangeTimer.Interval?, serverFIN: Timestamp? = nil
    ) -> Int {
        if exchange.index == 0, let resolution {
            exchange.dnsAnswerIPBytes = resolution.responseWire.ipBytes
            exchange.dnsQueryIPBytes = resolution.wire.ipBytes - resolution.responseWire.ipBytes
        }
        // The lookup ends with its last answer (A and AAAA), unless the client connected before it.
        let lookup = resolution.map {
            let end = $0.lookupEndTimestamp <= (connectedAt ?? $0.lookupEndTimestamp) ? $0.lookupEndTimestamp : $0.answerTimestamp
            return ExchangeTimer.Interval(start: $0.queryTimestamp ?? $0.answerTimestamp, end: end)
        }
        let timing = ExchangeTimer.timing(
            ofExchange: exchange.index, request: exchange.request, response: exchange.response, payloadTimes: payloadTimes,
            dns: lookup, connect: connect, tls: tls, serverFIN: serverFIN)
        exchange.timing = timing
        lastExchangeID += 1
        return lastExchangeID
    }

    /// Emits an exchange's record, counted in the summary (its wire read in the record's memory), handed
    /// on without a retain (and its caller's release).
    private func emit(_ record: consuming ExchangeRecord) {
        summary.exchanges += 1
        summary.attributedIPBytes += record.connection.wire.tallies.up.ipBytes + record.connection.wire.tallies.down.ipBytes
        emit(.exchange(record))
    }

    /// The most recent DNS answer that gave `address`, unless an earlier connection already used it
    /// (then the client had the address cached: no lookup preceded this connection).
    private func claimResolution(of address: IPAddress) -> DNSResolution? {
        guard let resolution = dnsAnswers.lookup(address: address, before: now),
              claimedResolutions.insert(resolution.transactionID).inserted else { return nil }
        return resolution
    }

    private func report(_ connection: QUICConnection) {
        reportExchanges(of: connection)
        connection.owner = owners.take(Self.firstPathKey(of: connection)) ?? connection.owner
        summary.quicConnections += 1
        if let decryption = connection.info.decryption { summary.tlsDecryption[decryption.status, default: 0] += 1 }
        emit(.quicConnection(connection))
    }

    /// The UDP key of a QUIC connection's first path, which its owner is noted under.
    private static func firstPathKey(of connection: QUICConnection) -> FlowKey {
        FlowKey(transportProtocol: 17, connection.client, connection.clientPort, connection.server, connection.serverPort)
    }

    private func report(_ flow: IPFlow) {
        flow.owner = owners.take(flow.key)
        summary.flows += 1
        emit(.flow(flow))
    }

    // DNS
    private func report(_ transaction: DNSTransaction) {
        summary.dnsTransactions += 1
        guard transaction.transport == .tcp else { return emit(.dns(transaction)) }
        tcpDNSAwaitingConnection["\(transaction.client)-\(transaction.server)", default: .init()].append(transaction)
    }

    /// Emits a DNS-over-TCP connection's transactions not written yet, up to index `end` (exclusive:
    /// the sealed ones while it is open, all of them when it ends), each with the packets the ledger
    /// gave its exchange; the written ones are dropped.
    private func reportDNS(of connection: TCPConnection, upTo end: Int) {
        let key = "\(connection.clientEndpoint)-\(connection.serverEndpoint)"
        guard var transactions = tcpDNSAwaitingConnection.removeValue(forKey: key) else { return }
        let written = connection.exchangesReported..<max(connection.exchangesReported, min(end, transactions.endIndex))
        for index in written {
            var transaction = transactions[index]
            let wire = connection.ledger.exchanges.wire(index)  // not `ledger.exchange(_:)`: a copy of the ledger
            transaction.wire = wire.tally(.up).total + wire.tally(.down).total
            transaction.responseWire = wire.tally(.down).total
            transaction.connectionID = connection.id
            transaction.connectionIndex = index
            emit(.dns(transaction))
        }
        connection.exchangesReported = written.upperBound
        guard end < .max else { return }  // the connection ended: later transactions have no exchange
        transactions.discard(before: written.upperBound)
        tcpDNSAwaitingConnection[key] = transactions
    }
}

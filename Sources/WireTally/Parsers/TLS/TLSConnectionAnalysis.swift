/// The TLS layer of one TCP connection, without keys: reads both directions' records, keeps what the
/// handshake shows in clear (`session`), and — for HTTP/1.x over TLS — estimates the exchanges from the
/// application data: a client burst of application-data records is a request, the server's following
/// burst its response, the client's next burst the next exchange.
///
/// Ownership of stream bytes (what the ledger attributes):
/// - everything before the first application-data record (ClientHello … Finished, the TLS 1.3
///   encrypted handshake and NewSessionTickets sent before the first request) is connection setup and
///   belongs to exchange 0, as the TCP handshake does (README: "handshake packets go to the first
///   exchange as setup"); while no exchange exists yet the analysis reports nothing examined, so the
///   ledger holds those packets back — if no exchange ever appears they end up unattributed;
/// - from the start of burst k on, a direction's bytes belong to exchange k (alerts, close_notify and
///   renegotiation records inside or after a burst included);
/// - bytes after a gap or after data that is not TLS belong to nobody;
/// - with ALPN `h2` (or another non-HTTP/1 protocol), or TLS 1.3 with the choice unknown and `h2`
///   offered, the connection is one session: no exchanges, every byte unattributed.
package final class TLSConnectionAnalysis: TCPStreamConsumer, StreamAttribution {
    /// How the analysis splits the connection.
    package enum Mode: String, Sendable {
        /// No application data seen yet.
        case undecided
        /// HTTP/1.x assumed: estimated exchanges from the bursts.
        case estimatedExchanges
        /// A multiplexed or unknown protocol (h2…): attributed per connection only.
        case session
    }

    package private(set) var session = TLSSessionInfo() {
        didSet { shared = nil }  // no `oldValue`: the session is still changed in place
    }
    /// The session as last shared, until it changes.
    private var shared: TLSSessionSnapshot?
    /// The session as it is now, by reference: one object shared by the exchanges reported while the
    /// session does not change.
    package var sharedSession: TLSSessionSnapshot {
        if let shared { return shared }
        let snapshot = TLSSessionSnapshot(session)
        shared = snapshot
        return snapshot
    }
    package private(set) var mode = Mode.undecided

    /// True when `exchanges` are estimates from record bursts (the integrator flags them
    /// `encrypted`/`estimated`).
    package var isEstimated: Bool { mode == .estimatedExchanges && decrypted == nil }

    private struct Burst {
        var start: Int64
        var end: Int64
        var firstOrigin: PacketOrigin
        var lastOrigin: PacketOrigin
        var applicationRecords = 0
        var estimatedPlaintext = 0
        var flags: HTTPMessageFlags = []
    }

    private struct Estimated {
        var request: Burst?
        var response: Burst?
    }

    /// The estimated exchanges from the first one not discarded (`discardExchanges(before:)`).
    private var estimated = PrefixDiscardingArray<Estimated>()
    /// True once an exchange was estimated (the array's `isEmpty` is also true once all are discarded).
    private var hasEstimated: Bool { estimated.endIndex > 0 }
    /// The record reader of each direction, reached with `read` on every packet: through the
    /// subscript's `get` the compiler retained and released the reader around each call.
    private let readers: DirectionPair<TLSRecordReader>
    private var runs = [OwnershipRuns(), OwnershipRuns()]
    private var examined = DirectionPair<Int64>(0, 0)
    private var endedDirections = 0
    /// Exchange whose burst owns each direction's current run.
    private var currentRun = DirectionPair<Int?>(nil, nil)
    /// Where each direction's first alert record (a TLS 1.2 alert, or a TLS 1.3 close_notify) starts:
    /// packets from there on still belong to the current burst's bytes, but are not its last packet
    /// for timing (the client's close_notify after the last response is not part of the request).
    private var closingFrom = DirectionPair<Int64?>(nil, nil)
    private var lastApplicationDirection: FlowDirection?
    private var changeCipherSpecSeen = DirectionPair(false, false)
    private var serverHelloDone = false
    private var serverSentType23 = false
    private var clientFinishedSeen = false
    private var awaitingClientFinished = false
    private var clientFinishedRecordOpen = false
    private var inRecord = DirectionPair(false, false)
    private var earlyDataRecords = 0
    /// A gap hit the direction between bursts: the next burst is flagged `gap`.
    private var pendingGap = DirectionPair(false, false)
    private var endOfEarlyDataSeen = false
    private var sessionOnlyIfH2Unknown: Bool

    // Decryption (with keys)
    private let keys: TLSKeyStore?
    private let httpLimits: HTTPLimits
    /// Whether the connection is decrypted (see `decryptionStatus` for what is reported).
    package private(set) var decryption: TLSDecryption
    /// The plaintext layer, once the connection's secrets were found.
    private(set) var plaintext: TLSPlaintextLayer? {
        didSet { unretainedPlaintext = plaintext.map { Unmanaged.passUnretained($0) } }
    }
    /// `plaintext`, for the calls made on every packet (the ledger's questions, delivered offsets)
    /// without retaining it: a call through the optional property retains and releases the layer each
    /// time. Valid while `plaintext` holds the layer; none of those calls replaces `plaintext`.
    private var unretainedPlaintext: Unmanaged<TLSPlaintextLayer>?
    /// Per direction: where the record being read starts, whether it was kept for decryption.
    private var recordStart = DirectionPair<Int64>(0, 0)
    private var recordKept = DirectionPair(false, false)
    /// Per direction: the cleartext records read before decryption started (their stream ranges and
    /// types), mapped as control records once it does.
    private var clearRecords = DirectionPair<[(start: Int64, end: Int64, type: TLSContentType)]>([], [])

    /// Protected records held while the secrets may still come (a growing key store), in order.
    private var heldRecords: [(record: TLSHeldRecord, direction: FlowDirection)] = []
    private var heldBytes = 0
    /// Most record bytes a connection holds while its secrets are not logged yet.
    package static let maxHeldRecordBytes = 256 << 10

    /// The plaintext layer while it is the connection's attribution (decrypted).
    private var decrypted: TLSPlaintextLayer? { decryption == .decrypted ? plaintext : nil }
    /// `body` run on `decrypted` (nil when there is none), the layer reached without retaining it (see
    /// `unretainedPlaintext`): for the per-packet calls, which cannot replace `plaintext`.
    @inline(__always)
    private func withDecrypted<Result>(_ body: (TLSPlaintextLayer) -> Result) -> Result? {
        guard decryption == .decrypted, let layer = unretainedPlaintext else { return nil }
        return layer._withUnsafeGuaranteedRef(body)
    }

    /// Nothing is attributed yet: the secrets were found but no record opened, or records wait for
    /// secrets that may still be logged.
    private var isWaitingForKeys: Bool { decryption == .pending || !heldRecords.isEmpty }

    /// - Parameters:
    ///   - maxHandshakeMessage: cap of a buffered handshake message (longer ones are skipped).
    ///   - unknownALPNWithH2IsSession: TLS 1.3 with several ALPN protocols offered including `h2` (the
    ///     server's choice is encrypted): treat as one session (true, default) or estimate HTTP/1.1
    ///     exchanges anyway (false).
    ///   - keys: the session secrets to decrypt with; the connection's are looked up by the
    ///     ClientHello's random when its first protected record arrives.
    ///   - httpLimits: caps of the HTTP/1.x parser that reads the decrypted application data.
    package init(
        maxHandshakeMessage: Int = 64 << 10, unknownALPNWithH2IsSession: Bool = true, keys: TLSKeyStore? = nil,
        httpLimits: HTTPLimits = HTTPLimits()
    ) {
        sessionOnlyIfH2Unknown = unknownALPNWithH2IsSession
        self.keys = keys
        self.httpLimits = httpLimits
        decryption = keys == nil ? .notAttempted : .awaitingRecord
        readers = DirectionPair(
            TLSRecordReader(maxHandshakeMessage: maxHandshakeMessage, isClient: true),
            TLSRecordReader(maxHandshakeMessage: maxHandshakeMessage, isClient: false))
        for direction in FlowDirection.allCases {
            let reader = readers[direction.rawValue]
            reader.keepsProtectedRecords = keys != nil
            // `unowned(unsafe)`: the readers are this analysis's own and only its calls feed them, so it
            // outlives every call; a checked `unowned` took and dropped a strong reference at each event.
            reader.isEncrypted = { [unowned(unsafe) self] _ in isProtected(direction) }
            reader.handler = { [unowned(unsafe) self] event in handle(event, direction: direction) }
        }
    }

    // MARK: TCPStreamConsumer

    package func streamData(_ data: UnsafeRawBufferPointer, offset: Int64, direction: FlowDirection, origin: PacketOrigin) {
        let d = direction.rawValue
        readers.read(d) { $0.feed(data, offset: offset, origin: origin) }
        examined[d] = offset + Int64(data.count)
        let examinedEnd = examined[d]
        unretainedPlaintext?._withUnsafeGuaranteedRef { $0.delivered(upTo: examinedEnd, direction) }
        if let k = currentRun[d], !data.isEmpty {
            extend(k, direction, to: examined[d], origin: offset < (closingFrom[d] ?? .max) ? origin : nil)
        }
    }

    package func streamGap(offset: Int64, length: Int64, direction: FlowDirection, reason: StreamGapReason) {
        readers.read(direction.rawValue) { $0.gap(offset: offset, length: length) }
        examined[direction.rawValue] = offset + length
        unretainedPlaintext?._withUnsafeGuaranteedRef { $0.delivered(upTo: offset + length, direction) }
    }

    package func streamEnded(direction: FlowDirection) {
        let d = direction.rawValue
        if inRecord[d], let k = currentRun[d] { update(k, direction) { $0.flags.insert(.incomplete) } }
        endedDirections += 1
        // The connection is over: the held records are opened with the secrets there are, or estimated
        // as without keys when none came.
        if endedDirections >= 2 && decryption == .awaitingRecord && !heldRecords.isEmpty {
            if startDecryption(waitingForEverySecret: false) { openHeldRecords() } else { stopDecryption(.noKey) }
        }
        plaintext?.ended(direction)
    }

    // MARK: StreamAttribution

    // Decrypted, the plaintext layer attributes; while the first protected record has not opened yet
    // nothing is attributed; without keys (or when they failed) the estimate from the bursts does.

    /// With keys and no protected record yet, nothing is examined either: the first one tells whether
    /// they open this connection (TLS 1.2 sends the handshake in the clear up to the client's Finished;
    /// decrypted, it goes to the first exchange).
    package func examinedLength(_ direction: FlowDirection) -> Int64 {
        if let length = withDecrypted({ $0.examinedLength(direction) }) { return length }
        return mode == .undecided || isWaitingForKeys || decryption == .awaitingRecord ? 0 : examined[direction.rawValue]
    }

    package func ownership(_ direction: FlowDirection) -> OwnershipRuns {
        decrypted?.ownership(direction) ?? runs[direction.rawValue]
    }

    package func ownerRun(at offset: Int64, _ direction: FlowDirection) -> OwnerRun {
        if let run = withDecrypted({ $0.ownerRun(at: offset, direction) }) { return run }
        return runs[direction.rawValue].run(containing: offset)
    }

    package func start(ofExchangeAfter index: Int, _ direction: FlowDirection) -> Int64? {
        if let start = withDecrypted({ $0.start(ofExchangeAfter: index, direction) }) { return start }
        return runs[direction.rawValue].start(ofExchangeAfter: index)
    }

    package func end(ofExchangesThrough index: Int, _ direction: FlowDirection) -> Int64? {
        if let end = withDecrypted({ $0.end(ofExchangesThrough: index, direction) }) { return end }
        return runs[direction.rawValue].start(ofExchangeAfter: index)  // estimated exchanges follow each other
    }

    package var splitsPacketsByShare: Bool { withDecrypted { $0.splitsPacketsByShare } ?? false }

    package var exchangeInFlight: Int? {
        if let inFlight = withDecrypted({ $0.exchangeInFlight }) { return inFlight }
        return endedDirections >= 2 || !hasEstimated || isWaitingForKeys ? nil : estimated.endIndex - 1
    }

    package var exchangeCount: Int {
        if let count = withDecrypted({ $0.exchangeCount }) { return count }
        return isWaitingForKeys ? 0 : estimated.endIndex
    }

    /// Final once a later exchange exists and neither direction's current burst is its own: a new
    /// exchange starts with the client's first record after the server's, so exchange k is final once
    /// the server's records for k + 1 began (or a loss ended its response) — no later record changes
    /// it, and its ownership runs are over.
    package func isFinal(_ index: Int) -> Bool {
        if let decrypted { return decrypted.isFinal(index) }
        return index < estimated.endIndex - 1 && currentRun[0] != index && currentRun[1] != index
    }

    package func cancelTime(of index: Int) -> Timestamp? { withDecrypted { $0.cancelTime(of: index) } ?? nil }

    package func noteClientClose(exchange index: Int) { decrypted?.noteClientClose(exchange: index) }

    /// Drops the exchanges before `index`, once their records are written (they are final and sealed).
    /// Indices stay the same; their ownership runs merge (`OwnershipRuns.mergeRuns(before:)`).
    package func discardExchanges(before index: Int) {
        if let decrypted { return decrypted.discardExchanges(before: index) }
        estimated.discard(before: index)
        for direction in FlowDirection.allCases { runs[direction.rawValue].mergeRuns(before: index) }
    }

    /// The estimated exchanges (empty unless `isEstimated`): each message's `bytes.body` is the estimated
    /// plaintext of its application-data records (record length − protection overhead), `framing` the
    /// rest of its stream range (record headers, protection overhead, alerts and other records inside
    /// the burst), so `bytes.total` is the burst's stream bytes. `method`, `target`, `status` are nil;
    /// `version` is the ALPN protocol or "". From the first one not discarded.
    package var exchanges: PrefixDiscardingArray<HTTPExchange> {
        if let decrypted { return decrypted.child?.exchanges ?? PrefixDiscardingArray() }
        var exchanges = PrefixDiscardingArray<HTTPExchange>()
        exchanges.discard(before: estimated.startIndex)
        let inFlight = exchangeInFlight
        for index in estimated.indices {
            var exchange = HTTPExchange(index: index)
            exchange.request = estimated[index].request.map { message($0, kind: .request, index: index) }
            exchange.response = estimated[index].response.map { message($0, kind: .response, index: index) }
            exchange.isInFlight = inFlight == index
            exchanges.append(exchange)
        }
        return exchanges
    }

    private func message(_ burst: Burst, kind: HTTPMessage.Kind, index: Int) -> HTTPMessage {
        let total = Int(burst.end - burst.start)
        let body = min(burst.estimatedPlaintext, total)
        return HTTPMessage(
            kind: kind, exchangeIndex: index, streamRange: burst.start ..< burst.end, version: session.alpn ?? "",
            bytes: HTTPByteCounts(body: body, framing: total - body), firstOrigin: burst.firstOrigin,
            lastOrigin: burst.lastOrigin, flags: burst.flags)
    }

    // MARK: Records

    /// Whether handshake/alert records of `direction` are encrypted: after its ChangeCipherSpec, except
    /// in TLS 1.3 (where protected records are type 23 and a CCS is only a compatibility record).
    private func isProtected(_ direction: FlowDirection) -> Bool {
        changeCipherSpecSeen[direction.rawValue] && !likelyTLS13
    }

    /// TLS 1.3 negotiated, or no ServerHello yet and the client offered 1.3 (a compatibility CCS may come
    /// right after the ClientHello, before the ServerHello, with 0-RTT).
    private var likelyTLS13: Bool {
        if let version = session.version { return version == 0x0304 }
        return session.clientHello?.supportedVersions.contains(0x0304) ?? false
    }

    private func handle(_ event: TLSRecordEvent, direction: FlowDirection) {
        let d = direction.rawValue
        switch event {
        case let .recordStarted(type, _, length, headerLength, offset, origin):
            inRecord[d] = true
            recordStart[d] = offset
            recordStarted(type, length: length, headerLength: headerLength, offset: offset, origin: origin, direction)
        case let .recordEnded(type, end, origin):
            inRecord[d] = false
            if !recordKept[d] { clearRecord(start: recordStart[d], end: end, type: type, direction) }
            recordKept[d] = false
            recordEnded(type, origin: origin, direction)
        case let .protectedRecord(record):
            recordKept[d] = true
            protectedRecord(record, direction)
        case let .handshakeMessage(type, body, _):
            handshakeMessage(type, body, direction)
        case let .sslv2ClientHello(body, _):
            if session.clientHello == nil { session.clientHello = TLSHelloParser.sslv2ClientHello(body) }
            if session.handshakeMessages[d].count < 64 { session.handshakeMessages[d].append(1) }
        case let .alert(level, description, origin):
            addAlert(TLSAlertInfo(direction: direction, level: level, description: description, origin: origin))
        case let .lost(offset, mayResume):
            // A record cut by the loss is lost from its header on.
            plaintext?.lost(from: inRecord[d] ? recordStart[d] : offset, mayResume: mayResume, direction)
            session.lostAt[d] = offset
            inRecord[d] = false
            if let k = currentRun[d] {
                update(k, direction) {
                    $0.flags.insert(mayResume ? .gap : .malformed)
                    $0.end = max($0.start, min($0.end, offset))
                }
                currentRun[d] = nil
            } else if mayResume {
                pendingGap[d] = true
            }
            if mode == .estimatedExchanges { runs[d].set(.nobody, from: offset) }
        case .handshakeTooLarge:
            session.handshakeTooLarge = true
        case .resynchronized:
            session.resynchronizations += 1
        }
    }

    private func recordStarted(
        _ type: TLSContentType, length: Int, headerLength: Int, offset: Int64, origin: PacketOrigin, _ direction: FlowDirection
    ) {
        let d = direction.rawValue
        let bytes = headerLength + length
        var stats = session.stats[d]
        stats.headerBytes += headerLength
        func add(_ tally: inout TLSRecordTally) {
            tally.records += 1
            tally.bytes += bytes
        }
        switch type {
        case .handshake: add(&stats.handshake)
        case .changeCipherSpec: add(&stats.changeCipherSpec)
        case .alert: add(&stats.alert)
        case .applicationData: add(&stats.applicationData)
        case .heartbeat: add(&stats.heartbeat)
        }
        let isTLS13 = session.version == 0x0304
        let encrypted = type == .applicationData || ((type == .handshake || type == .alert || type == .heartbeat) && isProtected(direction))
        var overhead = 0
        if encrypted, let suite = session.cipherSuite, let version = session.version, suite.protection != .unknown {
            overhead = suite.protectionOverhead(recordLength: length, version: version)
            stats.protectionOverheadBytes += overhead
            stats.protectedRecords += 1
        }
        if type == .alert, closingFrom[d] == nil { closingFrom[d] = offset }
        if type == .alert && encrypted {
            addAlert(TLSAlertInfo(direction: direction, level: nil, description: nil, origin: origin))
        }

        if direction == .up && type == .handshake && session.clientHelloOrigin == nil {
            session.clientHelloOrigin = origin
        }
        // The client's Finished: TLS ≤ 1.2 its first record after its ChangeCipherSpec.
        if direction == .up && awaitingClientFinished && !isTLS13 {
            awaitingClientFinished = false
            clientFinishedSeen = true
            clientFinishedRecordOpen = true
        }

        var isApplication = type == .applicationData
        if type == .applicationData && direction == .up && !serverSentType23 && !clientFinishedSeen && likelyTLS13 {
            earlyDataRecords += 1  // 0-RTT: the client's type-23 records before the server's encrypted flight
        }
        if type == .applicationData && isTLS13 {
            if direction == .down {
                if !clientFinishedSeen {
                    serverSentType23 = true
                    isApplication = false
                } else if !hasEstimated {
                    isApplication = false  // NewSessionTicket before the first request
                }
            } else if serverSentType23 && !clientFinishedSeen {
                if earlyDataRecords > 0 && !endOfEarlyDataSeen {
                    endOfEarlyDataSeen = true  // EndOfEarlyData precedes the Finished after 0-RTT
                } else {
                    clientFinishedSeen = true
                    clientFinishedRecordOpen = true
                    // The handshake separates the early-data request from the next one.
                    if lastApplicationDirection == .up { lastApplicationDirection = .down }
                }
                isApplication = false
            }
            if !isApplication {
                stats.encryptedHandshake.records += 1
                stats.encryptedHandshake.bytes += bytes
            }
        }
        session.stats[d] = stats
        if isApplication { applicationRecord(direction, offset: offset, origin: origin, plaintext: length - overhead) }
    }

    private func recordEnded(_ type: TLSContentType, origin: PacketOrigin, _ direction: FlowDirection) {
        let d = direction.rawValue
        if direction == .up && clientFinishedRecordOpen {
            clientFinishedRecordOpen = false
            if session.clientFinishedOrigin == nil { session.clientFinishedOrigin = origin }
        }
        guard type == .changeCipherSpec else { return }
        changeCipherSpecSeen[d] = true
        if !likelyTLS13 {
            if direction == .up && !clientFinishedSeen { awaitingClientFinished = true }
            if direction == .down && session.serverHello != nil && !serverHelloDone { session.resumed = true }
        }
    }

    private func handshakeMessage(_ type: UInt8, _ body: [UInt8], _ direction: FlowDirection) {
        let d = direction.rawValue
        if session.handshakeMessages[d].count < 64 { session.handshakeMessages[d].append(type) }
        switch (direction, type) {
        case (.up, 1):
            if session.clientHello == nil { session.clientHello = TLSHelloParser.clientHello(body) }
        case (.down, 2):
            guard let hello = TLSHelloParser.serverHello(body) else { return }
            if hello.isHelloRetryRequest {
                session.helloRetry = true
                return
            }
            guard session.serverHello == nil else { return }
            session.noteServerHello(hello)
            serverHelloParsed()
        case (.down, 14):
            serverHelloDone = true
        default:
            break
        }
    }

    /// Chooses the mode once the ServerHello told what it could of the application protocol.
    private func serverHelloParsed() {
        let offered = session.clientHello?.alpn ?? []
        guard mode == .undecided else { return }
        if let alpn = session.alpn, !alpn.hasPrefix("http/1") {
            mode = .session
        } else if session.alpnSource == .unknown && offered.contains("h2") && sessionOnlyIfH2Unknown {
            mode = .session
        }
    }

    private func addAlert(_ alert: TLSAlertInfo) {
        session.alertCount += 1
        if session.alerts.count < 64 { session.alerts.append(alert) }
    }

    // MARK: Bursts

    private func applicationRecord(_ direction: FlowDirection, offset: Int64, origin: PacketOrigin, plaintext: Int) {
        guard mode != .session else { return }
        if direction == .up && lastApplicationDirection != .up && hasEstimated && session.version == 0x0304 && plaintext <= 2 {
            // No HTTP/1 request is 2 bytes long: a TLS 1.3 client record this small is an encrypted
            // alert (close_notify), which stays with the current exchange instead of opening one.
            if closingFrom[direction.rawValue] == nil { closingFrom[direction.rawValue] = offset }
            return
        }
        let d = direction.rawValue
        if direction == .up ? lastApplicationDirection != .up : !hasEstimated {
            estimated.append(Estimated())
        }
        lastApplicationDirection = direction
        let k = estimated.endIndex - 1
        if mode == .undecided {
            mode = .estimatedExchanges
            for other in FlowDirection.allCases {
                runs[other.rawValue].set(StreamOwner(exchange: 0), from: 0)
                if let lost = session.lostAt[other.rawValue] { runs[other.rawValue].set(.nobody, from: lost) }
            }
        }
        if currentRun[d] != k {
            if let previous = currentRun[d] { update(previous, direction) { $0.end = max($0.start, offset) } }
            currentRun[d] = k
            runs[d].set(StreamOwner(exchange: k), from: offset)
            let burst = Burst(start: offset, end: offset, firstOrigin: origin, lastOrigin: origin)
            // Re-entering a burst after a gap keeps it (its range spans the gap; it is flagged `gap`).
            if direction == .up {
                if estimated[k].request == nil { estimated[k].request = burst }
            } else {
                if estimated[k].response == nil { estimated[k].response = burst }
            }
        }
        let flagGap = pendingGap[d]
        pendingGap[d] = false
        update(k, direction) {
            if flagGap { $0.flags.insert(.gap) }
            $0.applicationRecords += 1
            $0.estimatedPlaintext += max(0, plaintext)
        }
        // The bytes already delivered in this call are credited when `streamData` extends the burst.
    }

    /// Extends burst `k` to `end`; `origin` (nil: a closing alert's packet) becomes its last packet.
    private func extend(_ k: Int, _ direction: FlowDirection, to end: Int64, origin: PacketOrigin?) {
        update(k, direction) {
            if end > $0.end {
                $0.end = end
                if let origin { $0.lastOrigin = origin }
            }
        }
    }

    private func update(_ k: Int, _ direction: FlowDirection, _ change: (inout Burst) -> Void) {
        guard estimated.indices.contains(k) else { return }
        if direction == .up {
            if estimated[k].request != nil { change(&estimated[k].request!) }
        } else {
            if estimated[k].response != nil { change(&estimated[k].response!) }
        }
    }
}

/// Whether a TLS connection's records were decrypted.
package enum TLSDecryption: String, Sendable {
    /// No key log was given to the analysis.
    case notAttempted = "not_attempted"
    /// Keys were given; no protected record has come yet.
    case awaitingRecord = "awaiting_record"
    /// The key log has no secret for the connection (or the handshake was not seen in clear).
    case noKey = "no_key"
    /// The key log has secrets, but the suite's records are not ones wiretally opens.
    case unsupportedCipher = "unsupported_cipher"
    /// Secrets found; no record has opened yet.
    case pending
    case decrypted
    /// The first records did not open with the logged secrets (wrong key): estimated as without keys.
    case failed
}

extension TLSConnectionAnalysis {
    /// What the connection record reports as `tls.decryption`: `decrypted`, `partial` (decrypted, but
    /// some records were lost or did not open), `no_key`, `failed`, `unsupported_cipher`; nil when no
    /// key log was given.
    package var decryptionStatus: String? {
        switch decryption {
        case .notAttempted: return nil
        case .awaitingRecord, .noKey: return TLSDecryption.noKey.rawValue
        case .pending: return TLSDecryption.failed.rawValue  // secrets, but nothing ever opened
        case .decrypted: return (plaintext?.gaps ?? 0) > 0 ? "partial" : TLSDecryption.decrypted.rawValue
        case .failed, .unsupportedCipher: return decryption.rawValue
        }
    }

    /// Application-data plaintext bytes per direction (what `tshark -z follow,tls` shows), once
    /// decrypted.
    package var plaintextBytes: DirectionPair<Int64>? { decrypted.map(\.plaintextBytes) }

    /// The per-direction TLS bytes of the exchanges in `range` beyond their plaintext, when decrypted.
    package func recordBytes(of range: Range<Int>) -> DirectionPair<[Int: TLSExchangeRecordBytes]>? {
        guard let decrypted else { return nil }
        return DirectionPair(decrypted.recordBytes(of: range, .up), decrypted.recordBytes(of: range, .down))
    }

    /// The HTTP/2 analysis of the decrypted application data (ALPN `h2`).
    package var http2: HTTP2ConnectionAnalysis? { decrypted?.child as? HTTP2ConnectionAnalysis }

    /// True when the connection decrypted to a protocol wiretally does not parse (an ALPN other than
    /// HTTP/1.x and h2).
    package var plaintextNotParsed: Bool { decrypted?.isUnparsedProtocol ?? false }

    /// Protected records lost or not opened after decryption started (`tls_gap`).
    package var decryptionGaps: Int { decrypted?.gaps ?? 0 }

    /// The connection flags decryption adds: `decrypt_failed` (the secrets did not open its records:
    /// estimated as without keys), `tls_gap` (records lost or not opened after it started),
    /// `plaintext_not_parsed` (decrypted to a protocol wiretally does not parse: one session, its
    /// plaintext counted).
    package var decryptionFlags: [String] {
        var flags: [String] = []
        if decryption == .failed || decryption == .pending { flags.append("decrypt_failed") }
        if decryptionGaps > 0 { flags.append("tls_gap") }
        if plaintextNotParsed { flags.append("plaintext_not_parsed") }
        return flags
    }

    /// `mode` as reported: `decrypted` (or `session` for a protocol not parsed) once decrypted.
    package var reportedMode: String {
        guard let decrypted else { return mode.rawValue }
        return decrypted.isUnparsedProtocol ? Mode.session.rawValue : "decrypted"
    }

    /// A cleartext record ended: mapped once decryption started, kept for then until it does.
    fileprivate func clearRecord(start: Int64, end: Int64, type: TLSContentType, _ direction: FlowDirection) {
        if let plaintext {
            plaintext.controlRecord(start: start, end: end, type: type, direction)
        } else if decryption == .awaitingRecord, clearRecords[direction.rawValue].count < 64 {
            clearRecords[direction.rawValue].append((start, end, type))
        }
    }

    fileprivate func protectedRecord(_ record: TLSProtectedRecord, _ direction: FlowDirection) {
        if decryption == .awaitingRecord {
            guard startDecryption(waitingForEverySecret: true) else {
                // The secrets are not all logged yet (a growing store): hold the record, bounded.
                if decryption == .awaitingRecord {
                    if heldBytes + record.body.count <= Self.maxHeldRecordBytes {
                        heldRecords.append((TLSHeldRecord(copying: record), direction))
                        heldBytes += record.body.count
                    } else if startDecryption(waitingForEverySecret: false) {
                        openHeldRecords()
                        open(record, direction)
                    } else {
                        stopDecryption(.noKey)
                    }
                }
                return
            }
            openHeldRecords()
        }
        open(record, direction)
    }

    /// Opens the records held while the secrets were awaited, in the order they came.
    private func openHeldRecords() {
        let records = heldRecords
        heldRecords = []
        heldBytes = 0
        for (held, direction) in records { open(held.record, direction) }
    }

    /// Opens a protected record with the plaintext layer, if decrypting.
    private func open(_ record: TLSProtectedRecord, _ direction: FlowDirection) {
        // The layer is reached without retaining it (`unretainedPlaintext`): opening a record does not
        // replace `plaintext`; giving up below may, after the call.
        guard let layer = unretainedPlaintext else { return }
        let result = layer._withUnsafeGuaranteedRef { $0.protectedRecord(record, direction) }
        if decryption == .pending {
            switch result {
            case .opened: decryption = .decrypted
            case .skipped: break
            case .failed: stopDecryption(.failed)
            }
        }
        if session.alpnSource != .encryptedExtensions, withDecrypted({ $0.decryptor.sawEncryptedExtensions }) == true {
            session.alpn = plaintext?.decryptor.encryptedExtensionsALPN
            session.alpnSource = .encryptedExtensions
        }
    }

    /// Looks the connection's secrets up by its client random and starts the plaintext layer; false
    /// when it did not (given up, or still `awaitingRecord`: a growing store without the secrets yet —
    /// with `waitingForEverySecret`, without all the secrets the connection needs: a client logs each
    /// as it derives it, so the first protected record may come before its application secrets are in
    /// the file — or 0-RTT early data before the ServerHello).
    private func startDecryption(waitingForEverySecret: Bool) -> Bool {
        guard let keys, let client = session.clientHello, client.random.count == 32 else { stopDecryption(.noKey); return false }
        // 0-RTT: the client's early data comes before the ServerHello that names the suite: held.
        guard let server = session.serverHello, let suite = session.cipherSuite else { return false }
        guard let secrets = keys.secrets(clientRandom: client.random) else {
            if !keys.isGrowing { stopDecryption(.noKey) }
            return false
        }
        if keys.isGrowing && waitingForEverySecret && !secrets.areComplete(forVersion: server.version) { return false }
        guard let decryptor = TLSDecryptor(
            secrets: secrets, suite: suite, version: server.version, clientRandom: client.random,
            serverRandom: server.random, encryptThenMAC: server.encryptThenMAC)
        else { stopDecryption(.unsupportedCipher); return false }
        let layer = TLSPlaintextLayer(decryptor: decryptor, httpLimits: httpLimits) { [unowned self] in session.alpn }
        for direction in FlowDirection.allCases {
            for record in clearRecords[direction.rawValue] {
                layer.controlRecord(start: record.start, end: record.end, type: record.type, direction)
            }
            layer.delivered(upTo: examined[direction.rawValue], direction)
        }
        clearRecords = DirectionPair([], [])
        plaintext = layer
        decryption = .pending
        return true
    }

    /// Gives up decrypting (`reason`): the connection is estimated as without keys.
    private func stopDecryption(_ reason: TLSDecryption) {
        decryption = reason
        plaintext = nil
        clearRecords = DirectionPair([], [])
        heldRecords = []
        heldBytes = 0
        readers.up.keepsProtectedRecords = false
        readers.down.keepsProtectedRecords = false
    }
}

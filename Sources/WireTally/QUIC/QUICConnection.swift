/// One QUIC connection (RFC 9000), followed by its connection IDs across the UDP paths it used: every
/// datagram of it is counted here, once, by direction and category, and it becomes a
/// `{"type":"connection","transport":"quic",…}` record.
///
/// The observer reads what the Initial packets show (version, connection IDs, ClientHello and
/// ServerHello, a CONNECTION_CLOSE) and counts QUIC packets per packet-number space; without keys the
/// exchanges are estimated from the protected datagrams (`QUICExchangeEstimator`) and the ledger
/// gives each datagram to one of them.
package final class QUICConnection: ActivityTracked {
    package let id: Int
    /// The endpoints of the first path (the one the handshake used).
    package let client: IPAddress
    package let clientPort: UInt16
    package let server: IPAddress
    package let serverPort: UInt16
    package let firstTimestamp: Timestamp
    package private(set) var lastTimestamp: Timestamp
    /// What the long headers and Initial packets told (and, with keys, every packet).
    package let observer: QUICConnectionObserver
    /// Where every datagram was counted.
    package private(set) var ledger = QUICConnectionLedger()
    /// How its exchanges are found: decided by its first 0-RTT or 1-RTT packet — parsed from the
    /// decrypted packets when that one could be decrypted, else estimated from the datagrams.
    private var exchangeSource = ExchangeSource.undecided
    private var estimator = QUICExchangeEstimator()
    private let httpLimits: HTTPLimits
    private let keys: TLSKeyStore?
    /// Datagrams waiting for the connection's secrets in a growing key log (live).
    private var held = QUICHeldDatagrams()
    /// The key log had every secret the connection needs (no more waiting, no more look-ups).
    private var hasSecrets = false

    private enum ExchangeSource {
        case undecided, estimated
        case decrypted(HTTP3ConnectionAnalysis)
    }
    /// Exchanges whose records were written (0..<exchangesReported).
    var exchangesReported = 0
    /// The DNS answer that gave the server's address, when one preceded the connection.
    package internal(set) var resolution: DNSResolution?
    /// The paths (address and port pairs) its datagrams used, the first included, in the order seen.
    package private(set) var paths: [QUICPath]
    package private(set) var flags: QUICConnectionFlags = []
    /// The process or app the capture names for its packets (PKTAP, Apple or PCAPdroid pcapng,
    /// PCAPdroid trailers), set when its records are written.
    package internal(set) var owner: TrafficOwner?
    /// The client's first Initial (it carries the ClientHello's first byte).
    package private(set) var clientFirstInitialOrigin: PacketOrigin?
    /// When the client's first Initial and the server's first long-header packet after it were seen.
    package var clientFirstInitialTime: Timestamp? { clientFirstInitialOrigin?.timestamp }
    package private(set) var serverFirstPacketTime: Timestamp?
    /// The client's datagram that ended its handshake: with keys the one completing its TLS Finished;
    /// without, its first datagram with a Handshake packet (its answer to the server's flight, which
    /// carries the Finished).
    package private(set) var clientHandshakeDoneOrigin: PacketOrigin?
    /// When a CONNECTION_CLOSE was first seen.
    package private(set) var closeTime: Timestamp?

    let key: FlowKey
    var newer: Unmanaged<QUICConnection>?
    var older: Unmanaged<QUICConnection>?
    var lastActivity: Timestamp { lastTimestamp }

    /// A connection whose first datagram came from `client` (its sender) to `server`.
    init(id: Int, key: FlowKey, from client: IPAddress, _ clientPort: UInt16, to server: IPAddress, _ serverPort: UInt16,
         at time: Timestamp, keys: TLSKeyStore? = nil, httpLimits: HTTPLimits = HTTPLimits()) {
        self.id = id
        observer = QUICConnectionObserver(keys: keys)
        self.keys = keys
        self.httpLimits = httpLimits
        self.key = key
        self.client = client
        self.clientPort = clientPort
        self.server = server
        self.serverPort = serverPort
        firstTimestamp = time
        lastTimestamp = time
        paths = [QUICPath(key: key, client: client, clientPort: clientPort, server: server, serverPort: serverPort)]
    }

    package var clientEndpoint: String { client.endpoint(port: clientPort) }
    package var serverEndpoint: String { server.endpoint(port: serverPort) }
    package var info: QUICConnectionInfo { observer.info }

    /// What the TLS handshake showed: the hellos in the Initial packets (as for TLS over TCP without
    /// keys: the ALPN choice known only when the client offered one protocol), with keys the server's
    /// EncryptedExtensions too; nil before any hello.
    /// Its ClientHello is the client's first Initial, its Finished `clientHandshakeDoneOrigin`
    /// (`tls.handshake_ms` is the span between them).
    package var tlsSession: TLSSessionInfo? {
        guard var session = info.tlsSession else { return nil }
        session.clientHelloOrigin = clientFirstInitialOrigin
        session.clientFinishedOrigin = clientHandshakeDoneOrigin
        return session
    }

    /// The phases of its handshake as curl times HTTP/3: `connect` from the client's first Initial to
    /// the server's first answer (curl's `time_connect`: the first byte from the server), `tls` from
    /// there to the end of the client's handshake (`clientHandshakeDoneOrigin`, curl's
    /// `time_appconnect`); each nil when not seen.
    package var handshakePhases: (connect: ExchangeTimer.Interval?, tls: ExchangeTimer.Interval?) {
        guard let start = clientFirstInitialTime, let answer = serverFirstPacketTime, answer >= start else { return (nil, nil) }
        let done = clientHandshakeDoneOrigin.map { ExchangeTimer.Interval(start: answer, end: max(answer, $0.timestamp)) }
        return (ExchangeTimer.Interval(start: start, end: answer), done)
    }

    /// The HTTP/3 layer's connection-level facts, when the exchanges were parsed from decrypted packets.
    package var http3Info: HTTP3ConnectionInfo? {
        if case let .decrypted(analysis) = exchangeSource { return analysis.info }
        return nil
    }

    /// Time from the client's first Initial to the server's first answer (one round trip plus the
    /// server's processing), when both were seen.
    package var handshakeNanoseconds: Int64? {
        guard let start = clientFirstInitialTime, let end = serverFirstPacketTime, end >= start else { return nil }
        return end.nanoseconds - start.nanoseconds
    }

    /// Counts one datagram of this connection that came on `path` (an index into `paths`) — or holds
    /// it while a growing key log lacks the connection's secrets (`QUICHeldDatagrams`).
    func count(
        _ packet: IPPacket, sourcePort: UInt16, payload: UnsafeRawBufferPointer, payloadLength: Int, on path: Int,
        badChecksum: Bool
    ) {
        releaseHeldDatagrams(at: packet.timestamp)
        if !held.isEmpty || isAwaitingSecrets {
            held.hold(packet, sourcePort: sourcePort, payload: payload, payloadLength: payloadLength, path: path,
                      badChecksum: badChecksum)
            lastTimestamp = max(lastTimestamp, packet.timestamp)
            if held.hasRunOut(at: packet.timestamp) { releaseHeldDatagrams(at: packet.timestamp, force: true) }
            return
        }
        read(packet, sourcePort: sourcePort, payload: payload, payloadLength: payloadLength, on: path, badChecksum: badChecksum)
    }

    /// True when `id` is a connection ID the connection's long headers showed, held datagrams included.
    func knows(_ id: UnsafeRawBufferPointer) -> Bool {
        observer.knows(id) || held.carriesSourceConnectionID(id)
    }

    /// True while datagrams are held for the connection's secrets.
    var isHoldingDatagrams: Bool { !held.isEmpty }

    /// Reads the held datagrams once the key log has the connection's secrets, or once the wait ran out
    /// at capture time `now`, or (`force`) now whatever the key log has.
    func releaseHeldDatagrams(at now: Timestamp, force: Bool = false) {
        guard !held.isEmpty else { return }
        let ready = !isAwaitingSecrets
        guard ready || force || held.hasRunOut(at: now) else { return }
        for datagram in held.release(givingUp: !ready) {
            datagram.payload.withUnsafeBytes {
                read(datagram.packet, sourcePort: datagram.sourcePort, payload: $0, payloadLength: datagram.payloadLength,
                     on: datagram.path, badChecksum: datagram.badChecksum)
            }
        }
    }

    /// A growing key log (live) should give this connection's secrets but has not yet: its ClientHello
    /// was read, and the log lacks its handshake or application secrets.
    private var isAwaitingSecrets: Bool {
        guard !hasSecrets, !held.gaveUp, let keys, keys.isGrowing, let random = observer.info.clientHello?.random else {
            return false
        }
        hasSecrets = keys.secrets(clientRandom: random)?.areComplete(forVersion: 0x0304) ?? false
        return !hasSecrets
    }

    /// Reads and counts one datagram.
    private func read(
        _ packet: IPPacket, sourcePort: UInt16, payload: UnsafeRawBufferPointer, payloadLength: Int, on path: Int,
        badChecksum: Bool
    ) {
        let fromClient = paths[path].isClient(packet.source, sourcePort)
        let contents = observer.observe(payload, fromClient: fromClient)
        let direction: FlowDirection = fromClient ? .up : .down
        var counters = packet.wire
        counters.payloadBytes = payloadLength
        let origin = PacketOrigin(frameNumber: packet.frameNumber, timestamp: packet.timestamp)
        decideExchangeSource(by: contents)
        switch exchangeSource {
        case let .decrypted(analysis):
            let shares = analysis.shares(of: contents, fromClient: fromClient, origin: origin)
            while ledger.exchangeCount < analysis.exchanges.endIndex { ledger.addExchange() }
            ledger.record(counters, shares: shares, direction: direction, at: packet.timestamp)
            ledger.seal(before: analysis.finalCount)
            flags.formUnion(analysis.flags)
        case .estimated where contents.category == .payload:
            let owner = estimator.owner(
                ofDatagramFromClient: fromClient, payloadLength: payloadLength, plaintext: contents.protectedPayloadBytes,
                origin: origin)
            while ledger.exchangeCount < estimator.count { ledger.addExchange() }
            ledger.seal(before: estimator.finalCount)
            ledger.record(counters, as: contents.category, direction: direction, at: packet.timestamp, owner: owner)
        default:
            ledger.record(counters, as: contents.category, direction: direction, at: packet.timestamp, owner: nil)
        }
        lastTimestamp = max(lastTimestamp, packet.timestamp)
        if contents.opensWithHandshakePacket {
            if fromClient, clientFirstInitialOrigin == nil { clientFirstInitialOrigin = origin }
            // after a Version Negotiation (the client's first Initial in an unknown version is not
            // this connection's), the server's first answer to the Initial that is
            if !fromClient, serverFirstPacketTime == nil, clientFirstInitialOrigin != nil { serverFirstPacketTime = packet.timestamp }
        }
        if fromClient, clientHandshakeDoneOrigin == nil,
           contents.completesClientFinished || contents.packets.contains(where: { $0.space == .handshake && !$0.decrypted }) {
            clientHandshakeDoneOrigin = origin
        }
        if contents.closesConnection {
            flags.insert(.closed)
            if closeTime == nil { closeTime = packet.timestamp }
        }
        if badChecksum || packet.hasBadHeaderChecksum { flags.insert(.badChecksum) }
        if packet.wasFragmented { flags.insert(.fragmented) }
    }

    /// The first datagram with a 0-RTT or 1-RTT packet decides where exchanges come from: the HTTP/3
    /// parser when one of those packets was decrypted, else the estimator.
    private func decideExchangeSource(by contents: QUICDatagramContents) {
        guard case .undecided = exchangeSource else { return }
        let protected = contents.packets.filter { $0.space == .zeroRTT || $0.space == .oneRTT }
        guard !protected.isEmpty || contents.category == .payload else { return }
        exchangeSource = protected.contains(where: \.decrypted)
            ? .decrypted(HTTP3ConnectionAnalysis(limits: httpLimits, roundTripNanoseconds: handshakeNanoseconds))
            : .estimated
    }

    /// True when its exchanges were parsed from decrypted packets (HTTP/3), not estimated.
    package var isDecrypted: Bool {
        if case .decrypted = exchangeSource { return true }
        return false
    }

    /// Adds a path the connection moved to (NAT rebinding or migration); returns its index.
    func addPath(_ path: QUICPath) -> Int {
        flags.insert(.migrated)
        paths.append(path)
        return paths.count - 1
    }

    func insert(_ flag: QUICConnectionFlags) { flags.insert(flag) }

    /// Exchanges estimated so far.
    package var exchangeCount: Int { ledger.exchangeCount }

    /// The estimated exchanges of `range` (not yet discarded), flagged by the caller `encrypted`,
    /// `estimated`; their version is the negotiated application protocol when it is known.
    package func exchanges(_ range: Range<Int>) -> [HTTPExchange] {
        switch exchangeSource {
        case .undecided: return []
        case .estimated: return estimator.exchanges(range, version: tlsSession?.alpn ?? "")
        case let .decrypted(analysis): return Array(analysis.exchanges[range])
        }
    }

    /// The connection ended: the last exchange takes the teardown, every exchange is final.
    func finish() {
        releaseHeldDatagrams(at: lastTimestamp, force: true)
        if case let .decrypted(analysis) = exchangeSource {
            analysis.finish()
            while ledger.exchangeCount < analysis.exchanges.endIndex { ledger.addExchange() }
        }
        ledger.settle()
        ledger.seal(before: ledger.exchangeCount)
    }

    /// Drops the exchanges before `index` (their records are written).
    func discardReportedExchanges() {
        ledger.discardExchanges(before: exchangesReported)
        estimator.discard(before: exchangesReported)
        if case let .decrypted(analysis) = exchangeSource { analysis.discardExchanges(before: exchangesReported) }
    }
}

/// One address and port pair a QUIC connection's datagrams used, with its client side.
package struct QUICPath: Sendable {
    let key: FlowKey
    package let client: IPAddress
    package let clientPort: UInt16
    package let server: IPAddress
    package let serverPort: UInt16

    /// True when a datagram from `source`:`sourcePort` was sent by this path's client.
    func isClient(_ source: IPAddress, _ sourcePort: UInt16) -> Bool { source == client && sourcePort == clientPort }
}

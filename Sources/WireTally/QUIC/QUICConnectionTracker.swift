/// Finds the QUIC connection of each UDP datagram (RFC 9000 §5.2, §9): by its address/port pair
/// first, then — on a pair not seen before — by the Destination Connection ID it carries, so a
/// connection that moved to a new path (NAT rebinding, migration) stays one connection, flagged
/// `migrated`. A datagram of no known connection starts one only when it opens with a v1/v2 long
/// header or a Version Negotiation packet (QUIC on any port); others are not QUIC and go to the UDP
/// flows. Its sender is taken as the client unless that packet is one only servers send (Retry,
/// Version Negotiation).
///
/// Connection IDs known here are those the long headers showed (the client's first DCID, and each
/// side's Source Connection IDs); IDs issued later in NEW_CONNECTION_ID frames are encrypted, so a
/// migration to one of them starts a new path without keys. A client Initial on a known path whose
/// DCID the connection never used is a new connection (the old one ends, flagged `path_reused`), except
/// after a Version Negotiation alone (the client's retry in an offered version continues it).
///
/// A connection ends after `closingSeconds` without datagrams once a CONNECTION_CLOSE was seen, after
/// the client's max_idle_timeout (else `defaultIdleTimeoutSeconds`) without datagrams, when evicted at
/// the connection cap (`ReassemblyLimits.maxConnections`), or at the end of the capture.
final class QUICConnectionTracker {
    private var table = ActivityTable<QUICConnection>()
    /// Every path of every live connection: the path's index in its connection.
    private var paths: [FlowKey: (connection: QUICConnection, path: Int)] = [:]
    /// Connection IDs of live connections.
    private var connectionIDs: [QUICConnectionIDKey: QUICConnection] = [:]
    /// Connections holding datagrams for their secrets (a growing key log), by connection id.
    private var holding: [Int: QUICConnection] = [:]
    /// How many of each connection's seen IDs are in `connectionIDs`, by connection id.
    private var registeredIDs: [Int: Int] = [:]
    /// How many known connection IDs have each length: the DCID lengths a short header may have.
    private var idLengths: [Int: Int] = [:]
    private let limits: ReassemblyLimits
    /// Session secrets: connections whose secrets they hold are decrypted and parsed as HTTP/3.
    private let keys: TLSKeyStore?
    private let httpLimits: HTTPLimits
    private let nextID: () -> Int
    private let resolve: (IPAddress) -> DNSResolution?
    private let sealed: (QUICConnection) -> Void
    private let finished: (QUICConnection) -> Void
    private(set) var evictions = 0
    private(set) var idleExpirations = 0

    /// Idle time without datagrams after which a connection whose client gave no max_idle_timeout is
    /// reported (the UDP flows' timeout).
    static let defaultIdleTimeoutSeconds: Int64 = IPFlowTracker.idleTimeoutSeconds
    /// Longest idle timeout honoured (a client may offer hours).
    static let maxIdleTimeoutSeconds: Int64 = 600
    /// Time after a CONNECTION_CLOSE without datagrams after which the connection is reported (its
    /// closing and draining periods last three PTOs, well under this).
    static let closingSeconds: Int64 = 3

    /// - Parameters:
    ///   - resolve: the DNS answer a new connection's server address came from, if any (claimed).
    ///   - sealed: called when a connection has exchanges final before it ends.
    ///   - finished: called once per connection, when it ends.
    init(
        limits: ReassemblyLimits, keys: TLSKeyStore? = nil, httpLimits: HTTPLimits = HTTPLimits(), nextID: @escaping () -> Int, resolve: @escaping (IPAddress) -> DNSResolution?,
        sealed: @escaping (QUICConnection) -> Void, finished: @escaping (QUICConnection) -> Void
    ) {
        self.limits = limits
        self.keys = keys
        self.httpLimits = httpLimits
        self.nextID = nextID
        self.resolve = resolve
        self.sealed = sealed
        self.finished = finished
    }

    /// Live connections.
    var connectionCount: Int { table.count }

    /// Counts a UDP datagram in its QUIC connection; false when it belongs to none (not QUIC).
    func count(
        _ packet: IPPacket, sourcePort: UInt16, destinationPort: UInt16, payload: UnsafeRawBufferPointer,
        payloadLength: Int, badChecksum: Bool
    ) -> Bool {
        let key = FlowKey(transportProtocol: 17, packet.source, sourcePort, packet.destination, destinationPort)
        var found = paths[key]
        if let (connection, path) = found, startsNewConnection(payload, on: connection, path: path, packet, sourcePort) {
            connection.insert(.pathReused)
            end(connection)
            found = nil
        }
        if found == nil, let connection = connection(carrying: payload) {
            let path = connection.addPath(newPath(key, packet, sourcePort, destinationPort, payload, of: connection))
            paths[key] = (connection, path)
            found = (connection, path)
        }
        if found == nil, QUICPacketHeaderView.looksLikeQUIC(payload) {
            let connection = open(key, packet, sourcePort, destinationPort, payload)
            found = (connection, 0)
        }
        guard let (connection, path) = found else { return false }
        table.touch(connection)
        connection.count(
            packet, sourcePort: sourcePort, payload: payload, payloadLength: payloadLength, on: path,
            badChecksum: badChecksum)
        didRead(connection)
        return true
    }

    /// After datagrams of `connection` were read (or held): its new IDs, its sealed exchanges, whether
    /// it holds datagrams.
    private func didRead(_ connection: QUICConnection) {
        registerNewConnectionIDs(of: connection)
        if connection.ledger.sealedCount > connection.exchangesReported { sealed(connection) }
        holding[connection.id] = connection.isHoldingDatagrams ? connection : nil
    }

    /// Reads the datagrams connections held for their secrets once the key log has them or the wait ran
    /// out at capture time `now` (a live capture's clock runs on when the interface is quiet).
    func releaseHeldDatagrams(now: Timestamp) {
        guard !holding.isEmpty else { return }
        for connection in holding.values.sorted(by: { $0.id < $1.id }) {
            connection.releaseHeldDatagrams(at: now)
            didRead(connection)
        }
    }

    /// Reports connections idle past their timeout at capture time `now`, stalest first (a closed
    /// connection behind an idle open one waits for it, as TCP connections do).
    func expire(now: Timestamp) {
        releaseHeldDatagrams(now: now)
        while let stalest = table.stalest {
            let closed = stalest.closeTime != nil
            let timeout = closed ? Self.closingSeconds * 1_000_000_000 : Self.idleTimeoutNanoseconds(of: stalest)
            guard stalest.lastActivity.nanoseconds + timeout < now.nanoseconds else { return }
            if !closed {
                stalest.insert(.idleTimeout)
                idleExpirations += 1
            }
            end(stalest)
        }
    }

    func finishAll() {
        for connection in table.removeAll().sorted(by: { $0.id < $1.id }) {
            if connection.closeTime == nil { connection.insert(.openAtEnd) }
            forget(connection)
            connection.finish()
            finished(connection)
        }
    }

    private static func idleTimeoutNanoseconds(of connection: QUICConnection) -> Int64 {
        let offered = connection.info.clientMaxIdleTimeoutMilliseconds ?? 0
        let seconds = offered == 0 ? defaultIdleTimeoutSeconds : min(maxIdleTimeoutSeconds, Int64(offered / 1000) + 1)
        return seconds * 1_000_000_000
    }

    /// A new connection from the datagram's sender (or to it, when its first packet is one only
    /// servers send), evicting the stalest at the cap.
    private func open(
        _ key: FlowKey, _ packet: IPPacket, _ sourcePort: UInt16, _ destinationPort: UInt16,
        _ payload: UnsafeRawBufferPointer
    ) -> QUICConnection {
        if table.count >= limits.maxConnections, let stalest = table.stalest {
            evictions += 1
            stalest.insert(.evicted)
            end(stalest)
        }
        let sentByServer = Self.onlyServersSend(payload)
        let connection = sentByServer
            ? QUICConnection(id: nextID(), key: key, from: packet.destination, destinationPort, to: packet.source, sourcePort,
                             at: packet.timestamp, keys: keys, httpLimits: httpLimits)
            : QUICConnection(id: nextID(), key: key, from: packet.source, sourcePort, to: packet.destination, destinationPort,
                             at: packet.timestamp, keys: keys, httpLimits: httpLimits)
        connection.resolution = resolve(connection.server)
        table.insert(connection)
        paths[key] = (connection, 0)
        return connection
    }

    /// True when the datagram's first packet is a Retry or Version Negotiation packet.
    private static func onlyServersSend(_ payload: UnsafeRawBufferPointer) -> Bool {
        guard let header = QUICPacketHeaderView(datagram: payload) else { return false }
        return header.kind == .versionNegotiation || header.kind == .long(.retry)
    }

    /// The connection owning the Destination Connection ID the datagram's first packet carries,
    /// trying each known ID length for a short header.
    private func connection(carrying payload: UnsafeRawBufferPointer) -> QUICConnection? {
        guard !connectionIDs.isEmpty, let first = payload.first else { return nil }
        if first & 0x80 != 0 {
            guard let header = QUICPacketHeaderView(datagram: payload), header.kind != .unknownVersion,
                  let id = QUICConnectionIDKey(UnsafeRawBufferPointer(rebasing: payload[header.destinationConnectionID]))
            else { return nil }
            return connectionIDs[id]
        }
        guard first & 0x40 != 0 else { return nil }  // a short header has its fixed bit set
        for length in idLengths.keys where payload.count > 1 + length {
            if let id = QUICConnectionIDKey(UnsafeRawBufferPointer(rebasing: payload[1 ..< 1 + length])),
               let connection = connectionIDs[id]
            {
                return connection
            }
        }
        return nil
    }

    /// The path a datagram of `connection` arrived on: its sender is the client when the DCID it
    /// carries is one the server chose.
    private func newPath(
        _ key: FlowKey, _ packet: IPPacket, _ sourcePort: UInt16, _ destinationPort: UInt16,
        _ payload: UnsafeRawBufferPointer, of connection: QUICConnection
    ) -> QUICPath {
        let sentByClient = connection.observer.seenConnectionIDs.contains { seen in
            !seen.chosenByClient && payload.count > seen.bytes.count
                && Self.destinationConnectionID(of: payload, length: seen.bytes.count).elementsEqual(seen.bytes)
        }
        return sentByClient
            ? QUICPath(key: key, client: packet.source, clientPort: sourcePort, server: packet.destination, serverPort: destinationPort)
            : QUICPath(key: key, client: packet.destination, clientPort: destinationPort, server: packet.source, serverPort: sourcePort)
    }

    /// The bytes where a DCID of `length` bytes sits: after the length byte in a long header, after
    /// the first byte in a short one.
    private static func destinationConnectionID(of payload: UnsafeRawBufferPointer, length: Int) -> UnsafeRawBufferPointer {
        let start = payload[0] & 0x80 != 0 ? 6 : 1
        guard payload.count >= start + length else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(rebasing: payload[start ..< start + length])
    }

    /// True when the datagram is a client's Initial on a known path whose DCID the connection never
    /// saw: a new connection reusing the addresses and ports. Not after a Version Negotiation alone:
    /// the client's first Initial in a version the server offered continues that attempt.
    private func startsNewConnection(
        _ payload: UnsafeRawBufferPointer, on connection: QUICConnection, path: Int, _ packet: IPPacket,
        _ sourcePort: UInt16
    ) -> Bool {
        guard connection.info.version != nil, let first = payload.first, first & 0x80 != 0,
              connection.paths[path].isClient(packet.source, sourcePort),
              let header = QUICPacketHeaderView(datagram: payload), header.kind == .long(.initial), header.fixedBit,
              !header.destinationConnectionID.isEmpty
        else { return false }
        return !connection.knows(UnsafeRawBufferPointer(rebasing: payload[header.destinationConnectionID]))
    }

    /// Adds the connection IDs the connection's long headers showed since the last call.
    private func registerNewConnectionIDs(of connection: QUICConnection) {
        let seen = connection.observer.seenConnectionIDs
        let registered = registeredIDs[connection.id] ?? 0
        guard seen.count > registered else { return }
        for id in seen[registered...] {
            guard let key = QUICConnectionIDKey(id.bytes), connectionIDs[key] == nil else { continue }
            connectionIDs[key] = connection
            idLengths[key.count, default: 0] += 1
        }
        registeredIDs[connection.id] = seen.count
    }

    /// Reports a connection and forgets it.
    private func end(_ connection: QUICConnection) {
        table.remove(connection)
        forget(connection)
        connection.finish()
        finished(connection)
    }

    /// Drops a connection's paths and IDs from the lookup tables.
    private func forget(_ connection: QUICConnection) {
        for path in connection.paths where paths[path.key]?.connection === connection { paths[path.key] = nil }
        for id in connection.observer.seenConnectionIDs {
            guard let key = QUICConnectionIDKey(id.bytes), connectionIDs[key] === connection else { continue }
            connectionIDs[key] = nil
            idLengths[key.count, default: 1] -= 1
            if idLengths[key.count] == 0 { idLengths[key.count] = nil }
        }
        registeredIDs[connection.id] = nil
        holding[connection.id] = nil
    }
}

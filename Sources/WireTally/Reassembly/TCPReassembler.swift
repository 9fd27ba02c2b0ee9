/// Tracks every TCP connection of a capture: finds or creates the connection of each segment (a new SYN
/// after a close starts a new one), reassembles it, and hands each connection over when it is done —
/// closed and lingered, idle too long, evicted by the cap, or at the end of the capture.
package final class TCPReassembler {
    package let limits: ReassemblyLimits
    /// Connections evicted to respect `limits.maxConnections`.
    package private(set) var evictions = 0
    /// Connections finalised by the idle timeout while still open.
    package private(set) var idleExpirations = 0
    /// Holes declared missing to respect `limits.maxBufferedBytesTotal`.
    package private(set) var bufferCapGaps = 0
    /// Out-of-order bytes buffered now by all live connections (never above
    /// `limits.maxBufferedBytesTotal` between packets).
    package var bufferedBytes: Int { bufferedTotal.pointee }

    /// Kept up to date by every connection's out-of-order buffers as they grow and shrink: an add
    /// only when a segment is held or released, nothing on in-order packets.
    private let bufferedTotal: UnsafeMutablePointer<Int>

    private var table = ActivityTable<TCPConnection>()
    private let makeConsumer: (TCPConnection.Endpoints) -> (any TCPStreamConsumer)?
    private let finished: (TCPConnection) -> Void
    private let sealed: (TCPConnection) -> Void
    private let nextID: () -> Int
    /// Packet memory the streams' histories may refer to instead of copying delivered bytes.
    private let lentMemory: LentPacketMemory?
    /// Capture time (ns) of the earliest settle deadline of a connection not visited since.
    private var nextSettle: Int64 = .max

    /// - Parameters:
    ///   - limits: the caps on connections and buffered bytes, and the idle and settle times.
    ///   - nextID: hands out record ids (shared with other record kinds).
    ///   - makeConsumer: gives each new connection the consumer of its streams (nil: count only).
    ///   - sealed: receives a connection still open when some of its exchanges were sealed.
    ///   - finished: receives each connection once it is finalised.
    ///   - lentMemory: packet memory the streams' histories may refer to instead of copying
    ///     delivered bytes (nil: they copy them).
    package init(
        limits: ReassemblyLimits, nextID: @escaping () -> Int,
        makeConsumer: @escaping (TCPConnection.Endpoints) -> (any TCPStreamConsumer)? = { _ in nil },
        sealed: @escaping (TCPConnection) -> Void = { _ in },
        finished: @escaping (TCPConnection) -> Void,
        lentMemory: LentPacketMemory? = nil
    ) {
        self.limits = limits
        self.lentMemory = lentMemory
        self.nextID = nextID
        self.makeConsumer = makeConsumer
        self.sealed = sealed
        self.finished = finished
        bufferedTotal = .allocate(capacity: 1)
        bufferedTotal.initialize(to: 0)
    }

    deinit { bufferedTotal.deallocate() }

    /// Live connections.
    package var connectionCount: Int { table.count }

    /// Counts and reassembles one TCP segment.
    package func process(_ ip: IPPacket, _ tcp: TCPSegment) {
        let key = FlowKey(transportProtocol: 6, ip.source, tcp.sourcePort, ip.destination, tcp.destinationPort)
        // Unretained: the table keeps the connection alive while it is processed (only a port reuse
        // removes it, and that branch holds it strongly), so no reference counting on every packet.
        var connection = table.unretainedFlow(for: key)
        if let existing = connection, tcp.flags.contains(.syn), !tcp.flags.contains(.ack),
           existing._withUnsafeGuaranteedRef({
               $0.isNewConnection(syn: tcp.sequence, direction: $0.direction(from: ip.source, port: tcp.sourcePort))
           })
        {
            let reused = existing.takeUnretainedValue()
            table.remove(reused)
            reused.finish(reason: .portReused)
            finished(reused)
            connection = nil
        }
        let live = connection ?? .passUnretained(open(key, ip, tcp))
        if let settle = limits.settleNanoseconds { nextSettle = min(nextSettle, ip.timestamp.nanoseconds + settle) }
        live._withUnsafeGuaranteedRef { live in
            table.touch(live)
            if live.process(ip, tcp, limits: limits) { sealed(live) }
        }
        if bufferedTotal.pointee > limits.maxBufferedBytesTotal { enforceBufferCap() }
    }

    /// Brings the out-of-order bytes of all connections to 3/4 of `limits.maxBufferedBytesTotal`
    /// by forcing streams past their first holes, the connections holding the most first, each
    /// until it holds nothing or the target is reached.
    ///
    /// Biggest first: each forced hole frees the most bytes, so the fewest holes are declared
    /// missing, and a hostile connection piling megabytes behind a hole goes before ordinary
    /// reordering, which holds a window at most (least recently active would pick idle victims
    /// with a few bytes instead). The scan of every live connection runs only when the cap is
    /// exceeded, and stopping a quarter below it means another quarter of the cap must arrive
    /// out of order before the next scan.
    private func enforceBufferCap() {
        let target = limits.maxBufferedBytesTotal - limits.maxBufferedBytesTotal / 4
        let holders = table.flows.values.filter { $0.heldBytes > 0 }.sorted {
            ($0.heldBytes, $1.id) > ($1.heldBytes, $0.id)
        }
        for connection in holders {
            while bufferedTotal.pointee > target, connection.heldBytes > 0 {
                bufferCapGaps += 1
                if connection.forcePastFirstHole() { sealed(connection) }
            }
            if bufferedTotal.pointee <= target { break }
        }
        // a forced hole can give an idle, already swept connection a new exchange to settle
        table.forgetSweeps()
    }

    /// Seals the last exchanges of connections idle for `limits.settleNanoseconds` at time `now`.
    /// Called before every packet (and, in a live capture, as wall time passes without packets): a
    /// connection is settled before the first packet at or after its deadline, whichever clock
    /// reaches it, so live and offline runs emit the same records in the same order. Each sweep starts
    /// after the connections an earlier sweep visited and that saw no packet since (nothing can change
    /// for them but through a packet or the buffer cap), so many idle connections cost once, not per sweep.
    @inline(__always)
    package func settle(now: Timestamp) {
        guard now.nanoseconds >= nextSettle, let settle = limits.settleNanoseconds else { return }
        sweepIdle(now: now, settle: settle)
    }

    /// The sweep of `settle(now:)`, once a deadline has been reached (`settle`: the settle time).
    private func sweepIdle(now: Timestamp, settle: Int64) {
        nextSettle = .max
        while let connection = table.firstUnswept {
            let deadline = connection.lastActivity.nanoseconds + settle
            guard deadline <= now.nanoseconds else {
                nextSettle = deadline
                return
            }
            table.markSwept(connection)
            if !connection.isSettled, connection.sealIdle() { sealed(connection) }
        }
    }

    /// Finalises connections idle past their timeout at capture time `now`.
    package func expire(now: Timestamp) {
        while let stalest = table.stalest {
            let timeout = stalest.isClosed ? limits.closedLingerSeconds : limits.idleTimeoutSeconds
            guard stalest.lastActivity.nanoseconds + timeout * 1_000_000_000 < now.nanoseconds else { return }
            table.remove(stalest)
            if !stalest.isClosed { idleExpirations += 1 }
            stalest.finish(reason: stalest.isClosed ? [] : .idleTimeout)
            finished(stalest)
        }
    }

    /// Finalises every live connection (end of capture), in order of first packet.
    package func finishAll() {
        for connection in table.removeAll().sorted(by: { $0.id < $1.id }) {
            connection.finish(reason: connection.isClosed ? [] : .openAtEnd)
            finished(connection)
        }
    }

    private func open(_ key: FlowKey, _ ip: IPPacket, _ tcp: TCPSegment) -> TCPConnection {
        if table.count >= limits.maxConnections, let stalest = table.stalest {
            table.remove(stalest)
            evictions += 1
            stalest.finish(reason: .evicted)
            finished(stalest)
        }
        let endpoints = TCPConnection.Endpoints(ip, tcp)
        let connection = TCPConnection(
            id: nextID(), endpoints: endpoints, timestamp: ip.timestamp, limits: limits,
            consumer: makeConsumer(endpoints), lentMemory: lentMemory, bufferedTotal: bufferedTotal)
        table.insert(connection)
        return connection
    }
}

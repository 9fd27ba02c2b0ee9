/// The HTTP/3 layer of one QUIC connection whose packets are decrypted (RFC 9114 over RFC 9000): reads
/// the frames of every packet, puts each stream's data back in order (`QUICStreamReassembler`), feeds
/// it to the HTTP/3 parser, keeps one exchange per request stream (client-initiated bidirectional, in
/// order of first appearance), and says who owns each byte of each datagram (`shares(of:…)`):
///
/// - Initial and Handshake packets are the setup of the connection's first exchange, and so are the
///   handshake's CRYPTO frames and HANDSHAKE_DONE in 1-RTT packets (the NewSessionTicket);
/// - a packet carrying a CONNECTION_CLOSE, and a stateless reset, are the teardown of the connection's
///   last exchange;
/// - a request stream's STREAM frames, and the RESET_STREAM, STOP_SENDING, MAX_STREAM_DATA and
///   STREAM_DATA_BLOCKED frames naming it, belong to its exchange; data received before (a
///   retransmitted or duplicated range) counts as retransmitted (category `retransmission` when all of
///   a frame's data was);
/// - an ACK frame belongs to the exchange that owned the largest packet it newly acknowledges (the
///   packet's largest stream share; `QUICPacketLog`), else to the exchange in flight (category `ack`);
/// - everything else is the connection's, shared by the requests: the control and QPACK streams,
///   PADDING, PING, MAX_DATA, MAX_STREAMS, NEW_CONNECTION_ID, NEW_TOKEN and the other connection-level
///   frames, and each packet's header, packet number and AEAD tag. A packet's shared bytes go to the
///   owners of its other frames in proportion to their bytes; a packet with nothing else goes whole to
///   the exchange in flight (the latest whose request stream is not over both ways, else the latest);
///   before the first request, to the first exchange (held for it).
/// - a request stream the client cancelled (its STOP_SENDING or RESET_STREAM while the response was not
///   complete) is the exchange's `cancelledAt` (the datagram carrying the frame); the server's frames on
///   it still in flight after that stay the exchange's, and its shares of later datagrams are marked
///   `afterCancel` (the ledger counts them in the exchange's `afterClientClose`: `after_cancel`); the
///   new stream bytes in those datagrams are its `afterCancelStreamBytes`, the body bytes read after the
///   cancel its `afterCancelBodyBytes` (the response's: `unreadResponseBytes`);
/// - packets that could not be decrypted: Initial/Handshake as setup, 0-RTT/1-RTT to the exchange in
///   flight.
///
/// The datagram's IP and UDP headers and the bytes after its last packet are then split over these
/// shares in proportion (`QUICConnectionLedger`).
///
/// Bounded: at most `HTTPLimits.maxOpenRequests` exchanges not final at once (a request stream beyond
/// gets none: its bytes are shared, flag `tooManyOpenRequests`), at most `maxStreams` streams followed,
/// at most `maxBufferedBytes` of stream data waiting past holes on the connection (past it, the stream
/// that grew gives up its hole as a gap: `streamBufferCap`).
///
/// An exchange is final once its stream is over both ways (FIN, or RESET_STREAM) and the connection
/// went on for `linger` after that — long enough for the acknowledgements of its last packets: twice
/// the handshake's round trip plus the default max_ack_delay (25 ms) — and a later request began (the
/// latest exchange takes the connection's idle traffic until then). Exchanges are final in order.
final class HTTP3ConnectionAnalysis: HTTP3ParserDelegate {
    /// Per exchange: its stream and how far its messages got.
    private struct Progress {
        let streamID: UInt64
        var requestDone = false
        var responseDone = false
        var completedAt: Timestamp?
        /// Per direction, the body bytes read when the client cancelled.
        var bodyAtCancel = DirectionPair(0, 0)
        var isDone: Bool { requestDone && responseDone }
    }

    /// The reassemblers of one stream: up (client → server) and down.
    private final class StreamState {
        var directions = [QUICStreamReassembler(), QUICStreamReassembler()]
    }

    /// Request streams forgotten after their exchange was final, remembered so that late frames of
    /// theirs open no new exchange.
    static let retiredStreamMemory = 1024
    /// Stream data waiting past holes on one connection, all streams together.
    static let maxBufferedBytes = 16 << 20
    /// Streams followed at once beyond the open requests (control, QPACK and other unidirectional ones).
    static let maxOtherStreams = 256

    /// The exchanges, one per request stream, from the first not discarded.
    private(set) var exchanges = PrefixDiscardingArray<HTTPExchange>()
    private var progress = PrefixDiscardingArray<Progress>()
    /// Set once in `init` (the parser needs `self` as its delegate).
    private var parser: HTTP3ConnectionParser!
    private var streams: [UInt64: StreamState] = [:]
    private var exchangeOfStream: [UInt64: Int] = [:]
    private var retiredStreams = Set<UInt64>()
    private var retiredOrder: [UInt64] = []
    /// Per direction: the application-space packets it sent.
    private var packetLogs = DirectionPair(QUICPacketLog(), QUICPacketLog())
    /// Exchanges before this one are final.
    private(set) var finalCount = 0
    private let lingerNanoseconds: Int64
    /// The datagram being read (the last one once the connection ended).
    private var origin = PacketOrigin(frameNumber: 0, timestamp: Timestamp(nanoseconds: 0))
    private var now: Timestamp { origin.timestamp }
    /// Caps met (`tooManyOpenRequests`, `streamBufferCap`).
    private(set) var flags: QUICConnectionFlags = []
    private let maxOpenRequests: Int
    /// Stream bytes waiting past holes, all streams together.
    private var bufferedBytes = 0

    /// - Parameter roundTripNanoseconds: the handshake's round trip, if measured (100 ms assumed otherwise).
    init(limits: HTTPLimits, roundTripNanoseconds: Int64?) {
        lingerNanoseconds = 2 * (roundTripNanoseconds ?? 100_000_000) + 25_000_000
        maxOpenRequests = max(1, limits.maxOpenRequests)
        parser = HTTP3ConnectionParser(limits: limits, delegate: self)
    }

    /// Connection-level facts of HTTP/3 (settings, GOAWAY, QPACK, stream bytes).
    var info: HTTP3ConnectionInfo { parser.info }

    /// The owners of one datagram's bytes (weights: bytes of its packets), reading its frames on the
    /// way; `origin` is the packet that carried it.
    func shares(of contents: QUICDatagramContents, fromClient: Bool, origin: PacketOrigin) -> [QUICDatagramShare] {
        self.origin = origin
        if contents.isStatelessReset {  // the connection's end: the teardown of its last exchange
            return [QUICDatagramShare(owner: .firstExchange, category: .teardown, weight: 1, carriesStreamData: false)]
        }
        var shares: [QUICDatagramShare] = []
        for packet in contents.packets { add(packet, fromClient: fromClient, to: &shares) }
        advanceFinal()
        if shares.isEmpty {
            shares.append(QUICDatagramShare(owner: inFlightOwner, category: .payload, weight: 1, carriesStreamData: false))
        }
        for index in shares.indices {
            if case let .exchange(owner) = shares[index].owner, let cancel = cancelTime(of: owner), now > cancel {
                shares[index].afterCancel = true
            }
        }
        return shares
    }

    /// When the client cancelled exchange `index` (STOP_SENDING or RESET_STREAM on its request stream
    /// while the response was not complete), nil otherwise or once it is discarded.
    func cancelTime(of index: Int) -> Timestamp? {
        index >= exchanges.startIndex && index < exchanges.endIndex ? exchanges[index].cancelledAt : nil
    }

    /// The client stopped or reset request stream `id`: its exchange is cancelled now unless its
    /// response is complete (or it was cancelled before).
    private func noteClientCancel(of id: UInt64) {
        guard let index = exchangeOfStream[id], index >= max(finalCount, exchanges.startIndex),
              !progress[index].responseDone, exchanges[index].cancelledAt == nil else { return }
        exchanges[index].cancelledAt = now
        progress[index].bodyAtCancel = DirectionPair(parser.bodyBytesRead(stream: id, direction: .up),
                                                     parser.bodyBytesRead(stream: id, direction: .down))
    }

    /// The connection ended: bytes waiting past holes are parsed after them, messages not over are
    /// delivered incomplete, every exchange is final.
    func finish() {
        for (id, state) in streams.sorted(by: { $0.key < $1.key }) {
            for d in 0 ..< 2 {
                state.directions[d].flush(deliver: deliverer(id, fromClient: d == 0), gap: gapper(id, fromClient: d == 0))
            }
        }
        parser.finish()
        for index in exchanges.startIndex ..< exchanges.endIndex { exchanges[index].isInFlight = !progress[index].isDone }
        finalCount = exchanges.endIndex
    }

    /// Drops the exchanges before `index` (final and reported).
    func discardExchanges(before index: Int) {
        let end = min(index, finalCount)
        guard end > exchanges.startIndex else { return }
        exchanges.discard(before: end)
        progress.discard(before: end)
    }

    // MARK: HTTP3ParserDelegate

    func http3MessageFinished(_ message: consuming HTTPMessage, stream: UInt64, direction: FlowDirection) {
        guard let index = exchangeOfStream[stream], index >= exchanges.startIndex else { return }
        var message = message
        message.exchangeIndex = index
        if message.bytes.total == 0, message.http3?.frames == 0 {
            // nothing of it was sent (a stream reset before its first byte): it ended with this datagram
            message.firstOrigin = origin
            message.lastOrigin = origin
        }
        if exchanges[index].cancelledAt != nil {
            exchanges[index].noteBodyAfterCancel(of: message, direction, bodyAtCancel: progress[index].bodyAtCancel[direction.rawValue])
        }
        if direction == .up {
            exchanges[index].request = message
            progress[index].requestDone = true
        } else {
            exchanges[index].response = message
            progress[index].responseDone = true
        }
        if progress[index].isDone, progress[index].completedAt == nil {
            progress[index].completedAt = now
            exchanges[index].isInFlight = false
        }
    }

    // MARK: Packets and frames

    /// The shares of one packet.
    private func add(_ packet: QUICPacketRecord, fromClient: Bool, to shares: inout [QUICDatagramShare]) {
        let length = packet.range.count
        guard packet.decrypted, let space = packet.space, let packetNumber = packet.packetNumber else {
            let protected = packet.space == .zeroRTT || packet.space == .oneRTT
            merge(QUICDatagramShare(owner: protected ? inFlightOwner : .firstExchange, category: protected ? .payload : .setup,
                                    weight: length, carriesStreamData: false), into: &shares)
            return
        }
        if packet.frames.contains(where: { if case .connectionClose = $0.kind { true } else { false } }) {
            return merge(QUICDatagramShare(owner: .firstExchange, category: .teardown, weight: length, carriesStreamData: false),
                         into: &shares)
        }
        guard space == .zeroRTT || space == .oneRTT else {
            return merge(QUICDatagramShare(owner: .firstExchange, category: .setup, weight: length, carriesStreamData: false),
                         into: &shares)
        }
        let direction: FlowDirection = fromClient ? .up : .down
        let isNew = packetLogs[direction.rawValue].note(packetNumber, owner: nil)
        var parts: [QUICDatagramShare] = []
        var owned = 0
        for frame in packet.frames {
            guard let part = read(frame, of: packet, fromClient: fromClient) else { continue }
            owned += part.weight
            merge(part, into: &parts)
        }
        if parts.isEmpty {
            parts.append(QUICDatagramShare(owner: inFlightOwner, category: .payload, weight: 0, carriesStreamData: false))
        }
        // the shared bytes (header, tag, padding, connection-level frames) follow the owned ones
        let shared = LargestRemainder.split(length - owned, by: parts.map(\.weight))
        for index in parts.indices {
            parts[index].weight += shared[index]
            if !isNew { parts[index].category = .retransmission }
        }
        if let main = parts.filter({ $0.category != .ack }).max(by: { $0.weight < $1.weight }), case let .exchange(owner) = main.owner {
            packetLogs[direction.rawValue].setOwner(owner, of: packetNumber)
        }
        for part in parts { merge(part, into: &shares) }
    }

    /// The owned share of one frame (nil: the frame is the connection's, shared).
    private func read(_ frame: QUICFrame, of packet: QUICPacketRecord, fromClient: Bool) -> QUICDatagramShare? {
        let bytes = frame.range.count
        switch frame.kind {
        case let .stream(id, offset, data, fin):
            let outcome = packet.plaintext.withUnsafeBytes { plaintext in
                streamData(id, fromClient: fromClient, offset: offset, data: UnsafeRawBufferPointer(rebasing: plaintext[data]), fin: fin)
            }
            guard let owner = requestOwner(id) else { return nil }
            if case let .exchange(index) = owner, let cancel = cancelTime(of: index), now > cancel {
                exchanges[index].afterCancelStreamBytes[fromClient ? 0 : 1] += outcome.newBytes
            }
            let retransmitted = outcome.newBytes == 0 && outcome.duplicateBytes > 0
            return QUICDatagramShare(owner: owner, category: retransmitted ? .retransmission : .payload, weight: bytes,
                                     duplicateBytes: outcome.duplicateBytes, carriesStreamData: !retransmitted)
        case let .resetStream(id, errorCode, finalSize):
            let owner = requestOwner(id)
            if fromClient { noteClientCancel(of: id) }
            if let state = streams[id] {
                let d = fromClient ? 0 : 1
                bufferedBytes -= state.directions[d].bufferedBytes
                state.directions[d].reset(finalSize: finalSize)
            }
            parser.reset(stream: id, fromClient: fromClient, errorCode: errorCode, finalSize: finalSize)
            return owner.map { QUICDatagramShare(owner: $0, category: .payload, weight: bytes) }
        case let .stopSending(id, errorCode):
            let owner = requestOwner(id)
            if fromClient { noteClientCancel(of: id) }
            parser.stopSending(stream: id, fromClient: fromClient, errorCode: errorCode)
            return owner.map { QUICDatagramShare(owner: $0, category: .payload, weight: bytes) }
        case let .maxStreamData(id, _), let .streamDataBlocked(id, _):
            return requestOwner(id).map { QUICDatagramShare(owner: $0, category: .payload, weight: bytes) }
        case let .ack(_, ranges, _):
            let acknowledged = packetLogs[fromClient ? 1 : 0].acknowledge(ranges)
            let owner = acknowledged.flatMap { $0 >= finalCount ? QUICShareOwner.exchange($0) : nil } ?? inFlightOwner
            return QUICDatagramShare(owner: owner, category: .ack, weight: bytes, carriesStreamData: false)
        case .crypto, .handshakeDone:
            return QUICDatagramShare(owner: .firstExchange, category: .setup, weight: bytes, carriesStreamData: false)
        default:
            return nil
        }
    }

    /// Feeds one STREAM frame's data, carried by the datagram being read, to its stream; says how much
    /// of it was new.
    private func streamData(_ id: UInt64, fromClient: Bool, offset: UInt64, data: UnsafeRawBufferPointer, fin: Bool)
        -> QUICStreamReassembler.Outcome
    {
        let followed = isRequestStream(id) ? requestOwner(id).map { $0 != .nobody } ?? false
            : streams[id] != nil || streams.count < exchanges.endIndex - finalCount + Self.maxOtherStreams
        guard followed else {
            return QUICStreamReassembler.Outcome(newBytes: 0, duplicateBytes: data.count)
        }
        let state = state(of: id)
        let d = fromClient ? 0 : 1
        let before = state.directions[d].bufferedBytes
        let outcome = state.directions[d].add(
            offset: offset, data: data, fin: fin, origin: origin, deliver: deliverer(id, fromClient: fromClient),
            gap: gapper(id, fromClient: fromClient))
        bufferedBytes += state.directions[d].bufferedBytes - before
        if bufferedBytes > Self.maxBufferedBytes {
            flags.insert(.streamBufferCap)
            let waiting = state.directions[d].bufferedBytes
            state.directions[d].flush(deliver: deliverer(id, fromClient: fromClient), gap: gapper(id, fromClient: fromClient))
            bufferedBytes -= waiting
        }
        return outcome
    }

    private func deliverer(_ id: UInt64, fromClient: Bool) -> (UInt64, UnsafeRawBufferPointer, Bool, PacketOrigin) -> Void {
        { [parser] offset, bytes, fin, origin in
            parser!.receive(stream: id, fromClient: fromClient, offset: Int64(offset), bytes: bytes, fin: fin, origin: origin)
        }
    }

    private func gapper(_ id: UInt64, fromClient: Bool) -> (UInt64, UInt64) -> Void {
        { [parser] offset, length in
            parser!.gap(stream: id, fromClient: fromClient, offset: Int64(offset), length: Int64(length))
        }
    }

    private func state(of id: UInt64) -> StreamState {
        if let state = streams[id] { return state }
        let state = StreamState()
        streams[id] = state
        return state
    }

    /// Client-initiated bidirectional streams carry requests (RFC 9114 §6.1).
    private func isRequestStream(_ id: UInt64) -> Bool { id & 0x3 == 0 }

    /// The exchange of a request stream, opened on its first frame; nil for other streams and for
    /// request streams beyond the open-requests cap (their bytes are shared); `nobody` for request
    /// streams whose exchange was final and forgotten (their late frames belong to nobody).
    private func requestOwner(_ id: UInt64) -> QUICShareOwner? {
        guard isRequestStream(id) else { return nil }
        if let index = exchangeOfStream[id] { return index >= finalCount ? .exchange(index) : .nobody }
        if retiredStreams.contains(id) { return .nobody }
        guard exchanges.endIndex - finalCount < maxOpenRequests else {
            flags.insert(.tooManyOpenRequests)
            return nil
        }
        let index = exchanges.endIndex
        exchanges.append(HTTPExchange(index: index))
        progress.append(Progress(streamID: id))
        exchangeOfStream[id] = index
        return .exchange(index)
    }

    /// The exchange in flight: the latest whose stream is not over both ways, else the latest not
    /// final; before the first request, the first exchange (held for it).
    private var inFlightOwner: QUICShareOwner {
        guard exchanges.endIndex > 0 else { return .firstExchange }
        var index = exchanges.endIndex - 1
        while index >= max(finalCount, exchanges.startIndex) {
            if !progress[index].isDone { return .exchange(index) }
            index -= 1
        }
        return .exchange(exchanges.endIndex - 1)
    }

    /// Makes final the exchanges, in order, whose streams are over and lingered — never the latest
    /// while the connection is open: it takes the connection-level bytes until a later request.
    private func advanceFinal() {
        while finalCount < exchanges.endIndex - 1, let done = progress[finalCount].completedAt,
              now.nanoseconds - done.nanoseconds >= lingerNanoseconds
        {
            retire(progress[finalCount].streamID)
            finalCount += 1
        }
    }

    /// Forgets a final exchange's stream.
    private func retire(_ id: UInt64) {
        if let state = streams.removeValue(forKey: id) { bufferedBytes -= state.directions.reduce(0) { $0 + $1.bufferedBytes } }
        exchangeOfStream[id] = nil
        retiredStreams.insert(id)
        retiredOrder.append(id)
        if retiredOrder.count > 2 * Self.retiredStreamMemory {
            for old in retiredOrder.prefix(retiredOrder.count - Self.retiredStreamMemory) { retiredStreams.remove(old) }
            retiredOrder.removeFirst(retiredOrder.count - Self.retiredStreamMemory)
        }
    }

    /// Adds `share` to the list, summed with an equal owner and category.
    private func merge(_ share: QUICDatagramShare, into shares: inout [QUICDatagramShare]) {
        if let index = shares.firstIndex(where: { $0.owner == share.owner && $0.category == share.category }) {
            shares[index].weight += share.weight
            shares[index].duplicateBytes += share.duplicateBytes
            shares[index].carriesStreamData = shares[index].carriesStreamData || share.carriesStreamData
        } else {
            shares.append(share)
        }
    }
}

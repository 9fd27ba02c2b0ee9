/// The HTTP/2 application layer of one connection (h2 inside TLS, h2c with prior knowledge): feeds both
/// streams to the HTTP/2 parser, keeps one exchange per HTTP/2 stream, and tells the ledger who owns
/// each byte:
/// - a stream's frames belong to its exchange (a PUSH_PROMISE to the promised stream's);
/// - connection-level bytes are what the requests cost, not any one of them: the preface and every
///   connection-level frame before the connection's first stream frame (the SETTINGS exchange, an early
///   WINDOW_UPDATE) are the setup of the first exchange; a GOAWAY is the teardown of the latest
///   exchange when it is read; every other connection-level frame (SETTINGS and their ACKs later, PING,
///   stream-0 WINDOW_UPDATE, frames of unknown types, frames outside any open stream) goes to the
///   exchange whose stream frame was read last on the connection, in either direction, when it is read:
///   the stream in flight it serves (a WINDOW_UPDATE reopening the window for the DATA just received, a
///   PING's ACK). Once that stream is over (its exchange may be sealed and reported any time), to the
///   latest exchange whose stream is still open, or else the latest exchange (never sealed before the
///   connection ends or idles). Each exchange counts these bytes as its `connectionShareBytes`;
/// - a stream the client cancelled (RST_STREAM while its response was not complete) is the exchange's
///   `cancelledAt`; the server's frames on it still in flight after that (DATA, HEADERS, CONTINUATION)
///   are still the exchange's: their bytes count in its response (frame headers as `framing`, the
///   rest as `body`, or `headers` for a header block) once each frame is read, and the ledger counts
///   its packets after the cancel as `after_cancel`;
/// - bytes the parser could not frame belong to nobody.
/// Packets and TLS records carrying bytes of several streams are split by share
/// (`splitsPacketsByShare`).
package final class HTTP2ConnectionAnalysis: ExchangeAnalysis, HTTP2ParserDelegate {
    /// The exchanges found, one per stream in order of first appearance, from the first not discarded.
    package private(set) var exchanges = PrefixDiscardingArray<HTTPExchange>()
    /// Set once in `init` (the parser needs `self` as its delegate, which it holds unowned).
    private var parser: HTTP2ConnectionParser!
    private var runs = DirectionPair(OwnershipRuns(), OwnershipRuns())
    private var examined = DirectionPair<Int64>(0, 0)
    private var endedDirections = 0
    /// What the bytes of a run are to its exchange.
    private enum RunRole {
        /// Its stream's frames (counted by the parser in its messages).
        case stream
        /// Connection-level frames given to it (`connectionShareBytes`).
        case connectionShare
        /// Control frames sent on its stream after the stream was over (the message's `control`).
        case afterEnd
        /// The server's frames on its stream after the client cancelled it (counted per frame, once read).
        case afterCancel
    }
    /// Per direction: the run being read (its owner, where its bytes not yet credited to the owner begin,
    /// what they are to it).
    private var currentRun = DirectionPair<(owner: Int, start: Int64, role: RunRole)?>(nil, nil)
    /// The exchange whose stream frame was read last, in either direction.
    private var latestStreamExchange: Int?
    /// Per direction: the exchange whose stream, already over, a control frame being read is on (the
    /// exchange is not final until the frame is counted).
    private var frameAfterEnd = DirectionPair<Int?>(nil, nil)
    /// Connection-level runs read before the first stream, per direction: their span and bytes, given
    /// to exchange 0 when it appears.
    private var setup = DirectionPair<(span: Range<Int64>, bytes: Int)?>(nil, nil)
    /// Set when the analysis measures re-encoded bodies (`HTTPLimits.measureReencodedBodies`).
    private let reencoder: BodyReencoder?

    package init(limits: HTTPLimits = HTTPLimits()) {
        reencoder = limits.reencoder
        parser = HTTP2ConnectionParser(limits: limits, delegate: self)
    }

    /// h2c by `Upgrade: h2c` (RFC 9113 §3.2): the connection's HTTP/1.1 exchanges so far, the last of
    /// which upgraded — its request is stream 1's, its `101` becomes an interim response of stream 1's
    /// response, and later streams are the exchanges after it.
    package init(limits: HTTPLimits = HTTPLimits(), upgradingFrom exchanges: PrefixDiscardingArray<HTTPExchange>) {
        reencoder = limits.reencoder
        self.exchanges = exchanges
        latestStreamExchange = exchanges.endIndex - 1
        self.exchanges[exchanges.endIndex - 1].isInFlight = true  // until stream 1 is over
        parser = HTTP2ConnectionParser(limits: limits, delegate: self,
                                       upgradedStream: HTTP2UpgradedStream(exchangeIndex: exchanges.endIndex - 1))
    }

    /// Frames and bytes per type and direction, and the client preface.
    package var frameTotals: DirectionPair<HTTP2FrameTotals> { parser.frameTotals }

    /// Connection-level facts: settings, GOAWAY, HPACK errors, resynchronisations.
    package var connectionInfo: HTTP2ConnectionInfo { parser.connectionInfo }

    // MARK: TCPStreamConsumer

    package func streamData(_ data: UnsafeRawBufferPointer, offset: Int64, direction: FlowDirection, origin: PacketOrigin) {
        parser.streamData(data, offset: offset, direction: direction, origin: origin)
        noteExamined(upTo: offset + Int64(data.count), direction)
    }

    package func streamGap(offset: Int64, length: Int64, direction: FlowDirection, reason: StreamGapReason) {
        parser.streamGap(offset: offset, length: length, direction: direction, reason: reason)
        noteExamined(upTo: offset + length, direction)
    }

    package func streamEnded(direction: FlowDirection) {
        parser.streamEnded(direction: direction)
        frameAfterEnd[direction.rawValue] = nil  // a frame the end cut
        endedDirections += 1
        guard endedDirections == 2 else { return }
        parser.finish()
        // Connection-level bytes with no stream ever: nobody's.
        if exchanges.endIndex == 0 { for direction in FlowDirection.allCases { runs[direction.rawValue].set(.nobody, from: 0) } }
    }

    /// Bytes whose owner the parser has decided (a frame header still incomplete is not).
    private func noteExamined(upTo end: Int64, _ direction: FlowDirection) {
        var end = end
        if let undecided = parser.undecidedOffset(direction) { end = min(end, undecided) }
        examined[direction.rawValue] = max(examined[direction.rawValue], end)
        creditCurrentRun(direction, through: examined[direction.rawValue])
    }

    // MARK: HTTP2ParserDelegate

    package func http2Bytes(direction: FlowDirection, from offset: Int64, owner: HTTP2ByteOwner) {
        closeRun(direction, at: offset)
        frameAfterEnd[direction.rawValue] = nil
        switch owner {
        case let .exchange(index):
            slot(index)
            latestStreamExchange = index
            open(index, .stream, at: offset, direction)
        case let .connection(kind):
            open(connectionFrameOwner(kind), .connectionShare, at: offset, direction)
        case let .endedStream(index):
            // the stream's control while its exchange is held, else a connection-level frame
            if isHeld(index), message(of: index, sentIn: direction) != nil {
                frameAfterEnd[direction.rawValue] = index
                open(index, .afterEnd, at: offset, direction)
            } else {
                open(connectionFrameOwner(.other), .connectionShare, at: offset, direction)
            }
        case let .cancelledStream(index):
            if isHeld(index) {
                frameAfterEnd[direction.rawValue] = index
                open(index, .afterCancel, at: offset, direction)
            } else {
                open(connectionFrameOwner(.other), .connectionShare, at: offset, direction)
            }
        case .unparsed:
            currentRun[direction.rawValue] = nil
            runs[direction.rawValue].set(.nobody, from: offset)
        }
    }

    /// The exchange a connection-level frame read now belongs to (the rule in the type's comment).
    private func connectionFrameOwner(_ kind: HTTP2ConnectionByteKind) -> Int {
        guard let latest = latestStreamExchange else { return 0 }  // setup of the first exchange (nobody's if no stream comes)
        if kind == .goaway { return exchanges.endIndex - 1 }
        if isHeld(latest) && exchanges[latest].isInFlight { return latest }
        return exchangeInFlight ?? exchanges.endIndex - 1
    }

    package func http2ControlFrameAfterEnd(_ frame: HTTP2ControlFrameAfterEnd) {
        let d = frame.direction.rawValue
        guard frameAfterEnd[d] == frame.exchange, isHeld(frame.exchange) else { return }
        frameAfterEnd[d] = nil
        updateMessage(of: frame.exchange, sentIn: frame.direction) { message in
            switch frame.type {
            case HTTP2FrameType.data, HTTP2FrameType.headers, HTTP2FrameType.continuation:  // in flight after a cancel
                let payload = frame.bytes - HTTP2FrameHeader.size
                message.bytes.framing += HTTP2FrameHeader.size
                if frame.type == HTTP2FrameType.data { message.bytes.body += payload } else { message.bytes.headers += payload }
                message.http2?.frames += 1
            default:
                message.http2?.countControlFrameAfterEnd(frame)
            }
        }
    }

    package func http2StreamCancelled(exchange: Int, at time: Timestamp) {
        guard isHeld(exchange) else { return }
        exchanges[exchange].cancelledAt = time
        noteClientClose(exchange: exchange)
    }

    /// Notes how much of exchange `index`'s messages had been read when the client cancelled it (its
    /// RST_STREAM, or the connection's close while it was in flight): `HTTPExchange.readAtCancel`, the
    /// first time.
    package func noteClientClose(exchange index: Int) {
        guard isHeld(index), exchanges[index].readAtCancel == nil, var read = parser.messagesRead(ofExchange: index) else { return }
        // While a stream is open its exchange holds a response only after an h2c upgrade: the HTTP/1.1
        // `101`, which becomes an interim response of the stream's (`http2MessageFinished`).
        read.down.stream += exchanges[index].response.map { HTTPMessageRead($0).stream } ?? 0
        // the connection-level frames given to it so far (`HTTPExchange.settleAfterCancel` counts those after)
        read.up.stream += exchanges[index].connectionShareBytes.up
        read.down.stream += exchanges[index].connectionShareBytes.down
        exchanges[index].readAtCancel = read
    }

    /// Whether exchange `index` is found and not discarded.
    private func isHeld(_ index: Int) -> Bool { index >= exchanges.startIndex && index < exchanges.endIndex }

    /// The message held exchange `index` sends in `direction`: its request up, its response down.
    private func message(of index: Int, sentIn direction: FlowDirection) -> HTTPMessage? {
        direction == .up ? exchanges[index].request : exchanges[index].response
    }

    /// Changes `message(of: index, sentIn: direction)`, if there is one.
    private func updateMessage(of index: Int, sentIn direction: FlowDirection, _ change: (inout HTTPMessage) -> Void) {
        switch direction {
        case .up: if exchanges[index].request != nil { change(&exchanges[index].request!) }
        case .down: if exchanges[index].response != nil { change(&exchanges[index].response!) }
        }
    }

    package func http2MessageFinished(_ message: consuming HTTPMessage, direction: FlowDirection) {
        if let reencoder { Estimator.measureReencodedBody(&message, with: reencoder) }
        let index = message.exchangeIndex
        slot(index)
        guard isHeld(index) else { return }
        exchanges[index].isInFlight = false  // a stream's messages are reported once it is over
        if message.kind == .request {
            exchanges[index].request = consume message
        } else if let switching = exchanges[index].response {
            // h2c by Upgrade: the HTTP/1.1 `101 Switching Protocols` is an interim response of stream 1's
            var response = message
            response.interimCount += switching.interimCount + 1
            response.interimBytes += switching.interimBytes + switching.bytes.total
            response.firstOrigin = switching.firstOrigin
            response.streamRange = switching.streamRange.lowerBound ..< response.streamRange.upperBound
            exchanges[index].response = response
        } else {
            exchanges[index].response = consume message
        }
    }

    /// From `offset` on, `direction`'s bytes are exchange `index`'s.
    private func open(_ index: Int, _ role: RunRole, at offset: Int64, _ direction: FlowDirection) {
        currentRun[direction.rawValue] = (index, offset, role)
        runs[direction.rawValue].set(StreamOwner(exchange: index), from: offset)
        guard isHeld(index) else { return }
        exchanges[index].streamSpans.update(direction.rawValue) { span in
            span = min(span?.lowerBound ?? offset, offset) ..< max(span?.upperBound ?? offset, offset)
        }
    }

    /// The run read in `direction` ends at `offset`: its exchange's bytes reach there.
    private func closeRun(_ direction: FlowDirection, at offset: Int64) {
        creditCurrentRun(direction, through: offset)
        currentRun[direction.rawValue] = nil
    }

    /// Credits the run being read in `direction` with its bytes up to `end` (as they are examined, so
    /// an exchange's span and connection share are current whenever it is reported).
    private func creditCurrentRun(_ direction: FlowDirection, through end: Int64) {
        guard let run = currentRun[direction.rawValue], end > run.start else { return }
        credit(run, through: end, direction)
        currentRun[direction.rawValue]?.start = end
    }

    private func credit(_ run: (owner: Int, start: Int64, role: RunRole), through end: Int64, _ direction: FlowDirection) {
        let index = run.owner
        if index == 0 && exchanges.endIndex == 0 {
            setup.update(direction.rawValue) { setup in
                setup = ((setup?.span.lowerBound ?? run.start) ..< end, (setup?.bytes ?? 0) + Int(end - run.start))
            }
            return
        }
        guard isHeld(index) else { return }
        exchanges[index].streamSpans.update(direction.rawValue) { span in
            span = min(span?.lowerBound ?? run.start, run.start) ..< max(span?.upperBound ?? end, end)
        }
        let bytes = Int(end - run.start)
        switch run.role {
        case .stream: break
        case .connectionShare: exchanges[index].connectionShareBytes[direction.rawValue] += bytes
        case .afterEnd:
            updateMessage(of: index, sentIn: direction) { $0.bytes.control += bytes }
        case .afterCancel:
            break  // counted per frame (`http2ControlFrameAfterEnd`)
        }
    }

    // MARK: StreamAttribution

    package func examinedLength(_ direction: FlowDirection) -> Int64 {
        // Connection-level bytes before the first stream wait for it (they are its setup).
        exchanges.endIndex == 0 && endedDirections < 2 ? 0 : examined[direction.rawValue]
    }

    package func ownership(_ direction: FlowDirection) -> OwnershipRuns { runs[direction.rawValue] }

    package func ownerRun(at offset: Int64, _ direction: FlowDirection) -> OwnerRun {
        runs[direction.rawValue].run(containing: offset)
    }

    /// The first byte owned by an exchange after `index` (streams interleave: the earliest of theirs).
    package func start(ofExchangeAfter index: Int, _ direction: FlowDirection) -> Int64? {
        var first: Int64?
        for later in max(index + 1, exchanges.startIndex) ..< exchanges.endIndex {
            if let start = exchanges[later].streamSpans[direction.rawValue]?.lowerBound { first = min(first ?? start, start) }
        }
        return first
    }

    /// After the last byte owned by the exchanges up to `index` (not discarded), the run being read
    /// counted as far as examined.
    package func end(ofExchangesThrough index: Int, _ direction: FlowDirection) -> Int64? {
        var last: Int64?
        for earlier in exchanges.startIndex ..< max(exchanges.startIndex, min(index + 1, exchanges.endIndex)) {
            if let end = exchanges[earlier].streamSpans[direction.rawValue]?.upperBound { last = max(last ?? end, end) }
        }
        if let run = currentRun[direction.rawValue], run.owner <= index { last = max(last ?? 0, examined[direction.rawValue]) }
        return last
    }

    package var exchangeInFlight: Int? {
        var index = exchanges.endIndex - 1
        while index >= exchanges.startIndex && !exchanges[index].isInFlight { index -= 1 }
        return index >= exchanges.startIndex ? exchanges[index].index : nil
    }

    package var exchangeCount: Int { exchanges.endIndex }

    /// Final once its stream is over (both END_STREAMs, a reset, or the end of the connection) and no
    /// control frame sent on it after that is being read.
    package func isFinal(_ index: Int) -> Bool {
        isHeld(index) && !exchanges[index].isInFlight && frameAfterEnd.up != index && frameAfterEnd.down != index
    }

    package var splitsPacketsByShare: Bool { true }

    package func cancelTime(of index: Int) -> Timestamp? { isHeld(index) ? exchanges[index].cancelledAt : nil }

    /// Drops the exchanges before `index` (sealed, their records written) and merges their ownership
    /// runs (`OwnershipRuns.mergeRuns(before:)`: up to the first run of a later exchange), so a long
    /// connection keeps runs only for the streams around its latest bytes. (A packet split by share
    /// after that is a retransmission: its finished owners' share goes to the unattributed rest.)
    package func discardExchanges(before index: Int) {
        discardExchanges(before: index, keepingOwnersFrom: DirectionPair(.max, .max))
    }

    /// Inside TLS: a record still to be reported and shared with finished streams is split by the
    /// finished streams' runs as they were when its later owners' bytes were attributed.
    package func discardExchanges(before index: Int, keepingOwnersFrom kept: DirectionPair<Int64>) {
        exchanges.discard(before: index)
        for direction in FlowDirection.allCases {
            runs[direction.rawValue].mergeRuns(before: index, endingBy: kept[direction.rawValue])
        }
    }

    private func slot(_ index: Int) {
        guard exchanges.endIndex <= index else { return }
        let first = exchanges.endIndex == 0
        while exchanges.endIndex <= index { exchanges.append(HTTPExchange(index: exchanges.endIndex)) }
        guard first else { return }
        for direction in FlowDirection.allCases {
            guard let early = setup[direction.rawValue] else { continue }
            exchanges[0].streamSpans[direction.rawValue] = early.span
            exchanges[0].connectionShareBytes[direction.rawValue] = early.bytes
        }
        setup = DirectionPair(nil, nil)
    }
}

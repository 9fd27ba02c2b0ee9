/// An application protocol's analysis of one connection's pair of byte streams (cleartext TCP, or the
/// plaintext of TLS): it parses them, keeps the exchanges it finds, and owns stream bytes for the
/// ledger. The same analysis runs whatever carries its streams.
package protocol ExchangeAnalysis: TCPStreamConsumer, StreamAttribution {
    /// The exchanges found, from the first one not discarded.
    var exchanges: PrefixDiscardingArray<HTTPExchange> { get }
    /// `discardExchanges(before:)` under a layer that maps these bytes into its own units (TLS
    /// records): the owners of bytes from `kept` on are still read to split units yet to be reported,
    /// so they stay as they are.
    func discardExchanges(before index: Int, keepingOwnersFrom kept: DirectionPair<Int64>)
}

extension ExchangeAnalysis {
    /// Exchanges in stream order split nothing by share: what a unit's owners are called once
    /// discarded does not matter.
    package func discardExchanges(before index: Int, keepingOwnersFrom kept: DirectionPair<Int64>) {
        discardExchanges(before: index)
    }
}

/// The HTTP application layer of one TCP connection: feeds both reassembled streams to the HTTP/1.x
/// parser, keeps the exchanges it finds, and tells the ledger which exchange owns each stream byte.
/// A request with `Upgrade: h2c` answered `101` switches the connection to HTTP/2 (RFC 9113 §3.2):
/// from each direction's switch on, the bytes go to an `HTTP2ConnectionAnalysis` that takes the
/// exchanges over (the upgraded request is stream 1's).
package final class HTTPConnectionAnalysis: ExchangeAnalysis, HTTPParserDelegate {
    /// The exchanges found, from the first one not discarded (`discardExchanges(before:)`); after an
    /// h2c upgrade, the HTTP/2 analysis's.
    package var exchanges: PrefixDiscardingArray<HTTPExchange> { upgrade?.http2.exchanges ?? http1Exchanges }
    private var http1Exchanges = PrefixDiscardingArray<HTTPExchange>()
    /// The HTTP/2 analysis the connection switched to with `Upgrade: h2c`, if it did.
    package var upgradedToHTTP2: HTTP2ConnectionAnalysis? { upgrade?.http2 }
    /// After `Upgrade: h2c`: the HTTP/2 analysis, the exchange that upgraded, and where each direction
    /// switched (nil until it has).
    private var upgrade: (http2: HTTP2ConnectionAnalysis, exchange: Int, at: DirectionPair<Int64?>)?
    /// Owned through a retain taken in `init` and given back in `deinit`: the parser needs `self` as its
    /// delegate, so it cannot be a `let`, and a `var` is retained and released around every call.
    private var parser: Unmanaged<HTTP1ConnectionParser>!
    /// Set when the analysis measures re-encoded bodies (`HTTPLimits.measureReencodedBodies`).
    private let reencoder: BodyReencoder?
    private var runs = DirectionPair(OwnershipRuns(), OwnershipRuns())
    private var examined = DirectionPair<Int64>(0, 0)
    private var endedDirections = 0

    private let limits: HTTPLimits

    package init(limits: HTTPLimits = HTTPLimits()) {
        self.limits = limits
        reencoder = limits.reencoder
        parser = Unmanaged.passRetained(HTTP1ConnectionParser(limits: limits, delegate: self))
    }

    deinit { parser.release() }

    // MARK: TCPStreamConsumer

    package func streamData(_ data: UnsafeRawBufferPointer, offset: Int64, direction: FlowDirection, origin: PacketOrigin) {
        if let switched = upgrade?.at[direction.rawValue], offset + Int64(data.count) > switched {
            return forwardUpgraded(data, offset: offset, direction: direction, origin: origin)
        }
        parser._withUnsafeGuaranteedRef { $0.streamData(data, offset: offset, direction: direction, origin: origin) }
        // The same bytes may carry the 101 and the first HTTP/2 frames.
        forwardUpgraded(data, offset: offset, direction: direction, origin: origin)
        // A start line split over packets is announced once complete: its first bytes are examined
        // but not owned yet, so the ledger waits for them (else they would go to nobody).
        var end = offset + Int64(data.count)
        if let undecided = parser._withUnsafeGuaranteedRef({ $0.undecidedOffset(direction) }) { end = min(end, undecided) }
        // Set by name: the index subscript's modify accessor is a call per packet.
        if direction == .up { examined.up = end } else { examined.down = end }
    }

    /// Hands the bytes of `data` from `direction`'s switch on to the HTTP/2 analysis (none before an h2c
    /// upgrade switched the direction).
    private func forwardUpgraded(_ data: UnsafeRawBufferPointer, offset: Int64, direction: FlowDirection, origin: PacketOrigin) {
        guard let upgrade, let switched = upgrade.at[direction.rawValue], offset + Int64(data.count) > switched else { return }
        upgrade.http2.streamData(UnsafeRawBufferPointer(rebasing: data[Int(max(0, switched - offset))...]),
                                 offset: max(offset, switched), direction: direction, origin: origin)
    }

    package func streamGap(offset: Int64, length: Int64, direction: FlowDirection, reason: StreamGapReason) {
        if let upgrade, let switched = upgrade.at[direction.rawValue], offset + length > switched {
            return upgrade.http2.streamGap(offset: max(offset, switched), length: offset + length - max(offset, switched),
                                           direction: direction, reason: reason)
        }
        parser._withUnsafeGuaranteedRef {
            $0.streamGap(offset: offset, length: length, direction: direction, reason: reason)
        }
        var end = offset + length
        if let undecided = parser._withUnsafeGuaranteedRef({ $0.undecidedOffset(direction) }) { end = min(end, undecided) }
        examined[direction.rawValue] = end
    }

    package func streamEnded(direction: FlowDirection) {
        upgrade?.http2.streamEnded(direction: direction)
        parser._withUnsafeGuaranteedRef { $0.streamEnded(direction: direction) }
        endedDirections += 1
        if endedDirections == 2 { parser._withUnsafeGuaranteedRef { $0.finish() } }
    }

    // MARK: HTTPParserDelegate

    package func httpMessageStarted(direction: FlowDirection, offset: Int64, exchangeIndex: Int) {
        slot(exchangeIndex)
        runs[direction.rawValue].set(StreamOwner(exchange: exchangeIndex), from: offset)
    }

    package func httpMessageFinished(_ message: consuming HTTPMessage, direction: FlowDirection) {
        if let reencoder { Estimator.measureReencodedBody(&message, with: reencoder) }
        let index = message.exchangeIndex
        slot(index)
        // A request completing after its exchange was sealed and dropped (the server answered early):
        // the record is written, nothing would read it.
        guard index >= http1Exchanges.startIndex else { return }
        if message.kind == .request {
            http1Exchanges[index].request = consume message
        } else {
            http1Exchanges[index].response = consume message
            http1Exchanges[index].isInFlight = false
        }
    }

    package func httpUnparsed(direction: FlowDirection, from offset: Int64) {
        runs[direction.rawValue].set(.nobody, from: offset)
    }

    package func httpUpgraded(direction: FlowDirection, from offset: Int64, exchangeIndex: Int) {
        slot(exchangeIndex)
        if exchangeIndex >= http1Exchanges.startIndex { http1Exchanges[exchangeIndex].upgraded = true }  // not if dropped
        runs[direction.rawValue].set(StreamOwner(exchange: exchangeIndex, upgraded: true), from: offset)
        if upgrade == nil, exchangeIndex == http1Exchanges.endIndex - 1, isUpgradeToH2C(http1Exchanges[exchangeIndex]) {
            upgrade = (HTTP2ConnectionAnalysis(limits: limits, upgradingFrom: http1Exchanges), exchangeIndex, DirectionPair(nil, nil))
        }
        if let upgrade, upgrade.exchange == exchangeIndex { self.upgrade?.at[direction.rawValue] = offset }
    }

    /// `Upgrade: h2c` in the request, answered `101` with `Upgrade: h2c`.
    private func isUpgradeToH2C(_ exchange: HTTPExchange) -> Bool {
        exchange.response?.status == 101
            && exchange.request?.header("Upgrade")?.lowercased().split(separator: ",").contains { $0.trimmingHTTPWhitespace() == "h2c" } == true
            && exchange.response?.header("Upgrade")?.lowercased().trimmingHTTPWhitespace() == "h2c"
    }

    // MARK: StreamAttribution
    // After an h2c upgrade, a direction's bytes from its switch on are the HTTP/2 analysis's, and so are
    // the exchanges from the one that upgraded on.

    package func examinedLength(_ direction: FlowDirection) -> Int64 {
        guard let upgrade, upgrade.at[direction.rawValue] != nil else { return examined[direction.rawValue] }
        return max(examined[direction.rawValue], upgrade.http2.examinedLength(direction))
    }

    package func ownership(_ direction: FlowDirection) -> OwnershipRuns {
        guard upgrade != nil else { return runs[direction.rawValue] }
        return OwnershipRuns(walking: self, direction, to: examinedLength(direction))
    }

    package func ownerRun(at offset: Int64, _ direction: FlowDirection) -> OwnerRun {
        let run = runs.read(direction.rawValue) { $0.run(containing: offset) }
        guard let upgrade, let switched = upgrade.at[direction.rawValue] else { return run }
        if offset >= switched { return upgrade.http2.ownerRun(at: offset, direction) }
        return OwnerRun(owner: run.owner, end: min(run.end, switched))
    }

    package func start(ofExchangeAfter index: Int, _ direction: FlowDirection) -> Int64? {
        if let upgrade, index >= upgrade.exchange { return upgrade.http2.start(ofExchangeAfter: index, direction) }
        return runs[direction.rawValue].start(ofExchangeAfter: index)
    }

    package func end(ofExchangesThrough index: Int, _ direction: FlowDirection) -> Int64? {
        if let upgrade, index >= upgrade.exchange {
            return upgrade.http2.end(ofExchangesThrough: index, direction) ?? upgrade.at[direction.rawValue]
        }
        return runs[direction.rawValue].start(ofExchangeAfter: index)
    }

    package var exchangeInFlight: Int? {
        if let upgrade { return upgrade.http2.exchangeInFlight }
        // By index: `last(where:)` would copy each exchange (messages, headers) it looks at.
        // Discarded exchanges were final: none was in flight.
        var index = http1Exchanges.endIndex - 1
        while index >= http1Exchanges.startIndex && !http1Exchanges[index].isInFlight { index -= 1 }
        return index >= http1Exchanges.startIndex ? http1Exchanges[index].index : nil
    }

    package var exchangeCount: Int { upgrade?.http2.exchangeCount ?? http1Exchanges.endIndex }

    /// True once the client direction stopped at the cap on open requests (`HTTPLimits.maxOpenRequests`).
    package var reachedOpenRequestCap: Bool { parser._withUnsafeGuaranteedRef { $0.reachedOpenRequestCap } }

    /// Final once its response is complete (an exchange that switched protocols stays open; after an h2c
    /// upgrade, once its stream is over).
    package func isFinal(_ index: Int) -> Bool {
        if let upgrade { return upgrade.http2.isFinal(index) }
        return index < http1Exchanges.endIndex && !http1Exchanges[index].isInFlight && !http1Exchanges[index].upgraded
            && http1Exchanges[index].response != nil
    }

    package var splitsPacketsByShare: Bool { upgrade != nil }

    package func cancelTime(of index: Int) -> Timestamp? { upgrade?.http2.cancelTime(of: index) }

    /// Notes how much of exchange `index`'s messages had been read (`HTTPExchange.readAtCancel`): the
    /// message being read as far as it got, one already delivered whole, one not begun as nothing.
    package func noteClientClose(exchange index: Int) {
        if let upgrade, index >= upgrade.exchange { return upgrade.http2.noteClientClose(exchange: index) }
        guard index >= http1Exchanges.startIndex, index < http1Exchanges.endIndex else { return }
        func read(_ direction: FlowDirection) -> HTTPMessageRead {
            parser._withUnsafeGuaranteedRef { $0.messageRead(ofExchange: index, direction) }
                ?? (direction == .up ? http1Exchanges[index].request : http1Exchanges[index].response).map(HTTPMessageRead.init)
                ?? HTTPMessageRead()
        }
        http1Exchanges[index].readAtCancel = DirectionPair(read(.up), read(.down))
    }

    /// Exchange `index`, moved out for its record when it is discarded right after: until
    /// `discardExchanges(before:)` drops it, its place holds an exchange with nothing but its index, so
    /// nothing may read the exchanges in between. After an h2c upgrade, a copy of the HTTP/2 analysis's.
    package func takeExchange(_ index: Int) -> HTTPExchange {
        if let upgrade { return upgrade.http2.exchanges[index] }
        var taken = HTTPExchange(index: index)
        swap(&taken, &http1Exchanges[index])
        return taken
    }

    /// Drops the exchanges before `index`, once their records are written: they are final and sealed
    /// (nothing parsed later changes them), so nothing reads them any more. Indices stay the same.
    /// Their ownership runs merge (`OwnershipRuns.mergeRuns(before:)`; by name: the pair's index
    /// subscript is a call).
    package func discardExchanges(before index: Int) {
        upgrade?.http2.discardExchanges(before: index)
        http1Exchanges.discard(before: index)
        runs.up.mergeRuns(before: index)
        runs.down.mergeRuns(before: index)
    }

    private func slot(_ index: Int) {
        while http1Exchanges.endIndex <= index { http1Exchanges.append(HTTPExchange(index: http1Exchanges.endIndex)) }
    }
}

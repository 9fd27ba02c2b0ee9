/// An application protocol's analysis of one connection's pair of byte streams (cleartext TCP, or the
/// plaintext of TLS): it parses them, keeps the exchanges it finds, and owns stream bytes for the
/// ledger. The same analysis runs whatever carries its streams.
public protocol ExchangeAnalysis: TCPStreamConsumer, StreamAttribution {
    /// The exchanges found, from the first one not discarded.
    var exchanges: PrefixDiscardingArray<HTTPExchange> { get }
}

/// The HTTP application layer of one TCP connection: feeds both reassembled streams to the HTTP/1.x
/// parser, keeps the exchanges it finds, and tells the ledger which exchange owns each stream byte.
public final class HTTPConnectionAnalysis: ExchangeAnalysis, HTTPParserDelegate {
    /// The exchanges found, from the first one not discarded (`discardExchanges(before:)`).
    public private(set) var exchanges = PrefixDiscardingArray<HTTPExchange>()
    /// Owned through a retain taken in `init` and given back in `deinit`: the parser needs `self` as its
    /// delegate, so it cannot be a `let`, and a `var` is retained and released around every call.
    private var parser: Unmanaged<HTTP1ConnectionParser>!
    private let measureRegzippedBodies: Bool
    private var runs = DirectionPair(OwnershipRuns(), OwnershipRuns())
    private var examined = DirectionPair<Int64>(0, 0)
    private var endedDirections = 0

    public init(limits: HTTPLimits = HTTPLimits()) {
        measureRegzippedBodies = limits.measureRegzippedBodies
        parser = Unmanaged.passRetained(HTTP1ConnectionParser(limits: limits, delegate: self))
    }

    deinit { parser.release() }

    // MARK: TCPStreamConsumer

    public func streamData(_ data: UnsafeRawBufferPointer, offset: Int64, direction: FlowDirection, origin: PacketOrigin) {
        parser._withUnsafeGuaranteedRef { $0.streamData(data, offset: offset, direction: direction, origin: origin) }
        // A start line split over packets is announced once complete: its first bytes are examined
        // but not owned yet, so the ledger waits for them (else they would go to nobody).
        var end = offset + Int64(data.count)
        if let undecided = parser._withUnsafeGuaranteedRef({ $0.undecidedOffset(direction) }) { end = min(end, undecided) }
        // Set by name: the index subscript's modify accessor is a call per packet.
        if direction == .up { examined.up = end } else { examined.down = end }
    }

    public func streamGap(offset: Int64, length: Int64, direction: FlowDirection, reason: StreamGapReason) {
        parser._withUnsafeGuaranteedRef {
            $0.streamGap(offset: offset, length: length, direction: direction, reason: reason)
        }
        var end = offset + length
        if let undecided = parser._withUnsafeGuaranteedRef({ $0.undecidedOffset(direction) }) { end = min(end, undecided) }
        examined[direction.rawValue] = end
    }

    public func streamEnded(direction: FlowDirection) {
        parser._withUnsafeGuaranteedRef { $0.streamEnded(direction: direction) }
        endedDirections += 1
        if endedDirections == 2 { parser._withUnsafeGuaranteedRef { $0.finish() } }
    }

    // MARK: HTTPParserDelegate

    public func httpMessageStarted(direction: FlowDirection, offset: Int64, exchangeIndex: Int) {
        slot(exchangeIndex)
        runs[direction.rawValue].set(StreamOwner(exchange: exchangeIndex), from: offset)
    }

    public func httpMessageFinished(_ message: consuming HTTPMessage, direction: FlowDirection) {
        if measureRegzippedBodies { Estimator.measureRegzippedBody(&message) }
        let index = message.exchangeIndex
        slot(index)
        // A request completing after its exchange was sealed and dropped (the server answered early):
        // the record is written, nothing would read it.
        guard index >= exchanges.startIndex else { return }
        if message.kind == .request {
            exchanges[index].request = consume message
        } else {
            exchanges[index].response = consume message
            exchanges[index].isInFlight = false
        }
    }

    public func httpUnparsed(direction: FlowDirection, from offset: Int64) {
        runs[direction.rawValue].set(.nobody, from: offset)
    }

    public func httpUpgraded(direction: FlowDirection, from offset: Int64, exchangeIndex: Int) {
        slot(exchangeIndex)
        if exchangeIndex >= exchanges.startIndex { exchanges[exchangeIndex].upgraded = true }  // not if dropped
        runs[direction.rawValue].set(StreamOwner(exchange: exchangeIndex, upgraded: true), from: offset)
    }

    // MARK: StreamAttribution

    public func examinedLength(_ direction: FlowDirection) -> Int64 { examined[direction.rawValue] }

    public func ownership(_ direction: FlowDirection) -> OwnershipRuns { runs[direction.rawValue] }

    public func ownerRun(at offset: Int64, _ direction: FlowDirection) -> OwnerRun {
        runs[direction.rawValue].run(containing: offset)
    }

    public func start(ofExchangeAfter index: Int, _ direction: FlowDirection) -> Int64? {
        runs[direction.rawValue].start(ofExchangeAfter: index)
    }

    public var exchangeInFlight: Int? {
        // By index: `last(where:)` would copy each exchange (messages, headers) it looks at.
        // Discarded exchanges were final: none was in flight.
        var index = exchanges.endIndex - 1
        while index >= exchanges.startIndex && !exchanges[index].isInFlight { index -= 1 }
        return index >= exchanges.startIndex ? exchanges[index].index : nil
    }

    public var exchangeCount: Int { exchanges.endIndex }

    /// True once the client direction stopped at the cap on open requests (`HTTPLimits.maxOpenRequests`).
    public var reachedOpenRequestCap: Bool { parser._withUnsafeGuaranteedRef { $0.reachedOpenRequestCap } }

    /// Final once its response is complete (an exchange that switched protocols stays open).
    public func isFinal(_ index: Int) -> Bool {
        index < exchanges.endIndex && !exchanges[index].isInFlight && !exchanges[index].upgraded
            && exchanges[index].response != nil
    }

    /// Drops the exchanges before `index`, once their records are written: they are final and sealed
    /// (nothing parsed later changes them), so nothing reads them any more. Indices stay the same.
    /// Their ownership runs merge (`OwnershipRuns.mergeRuns(before:)`).
    public func discardExchanges(before index: Int) {
        exchanges.discard(before: index)
        for direction in FlowDirection.allCases { runs[direction.rawValue].mergeRuns(before: index) }
    }

    private func slot(_ index: Int) {
        while exchanges.endIndex <= index { exchanges.append(HTTPExchange(index: exchanges.endIndex)) }
    }
}

/// The application layer of one TCP connection, chosen from its first bytes: TLS when the client opens
/// with a ClientHello (or, picked up mid-stream, the first bytes seen are a TLS record), HTTP/2 (h2c
/// with prior knowledge) when it opens with the HTTP/2 connection preface, HTTP/1.x otherwise (which
/// leaves a stream that is not HTTP unparsed and unattributed). The few bytes seen before the choice
/// are held and replayed to the chosen analysis.
package final class ApplicationLayerAnalysis: TCPStreamConsumer, StreamAttribution {
    /// The analysis chosen for the connection.
    package enum Layer {
        case http(HTTPConnectionAnalysis)
        case http2(HTTP2ConnectionAnalysis)
        case tls(TLSConnectionAnalysis)
    }

    /// What the first bytes say the connection carries.
    private enum Choice { case http, http2, tls }

    /// The analysis chosen for the connection (nil before the choice).
    package var layer: Layer? {
        switch chosen {
        case let .http(http): return .http(http.takeUnretainedValue())
        case let .http2(http2): return .http2(http2.takeUnretainedValue())
        case let .tls(tls): return .tls(tls.takeUnretainedValue())
        case nil: return nil
        }
    }
    /// Owns the chosen analysis, which `chosen` and `httpLayer` reach without reference counting. A
    /// plain reference rather than an enum of them: a multi-payload enum keeps its case in the spare
    /// high bits of the pointer, and LeakSanitizer's scan of memory does not take that word for a
    /// pointer to the object (it reported every HTTP/2 and TLS analysis held only that way as leaked;
    /// `AnalysisLifetimeTests` shows them freed with their connection).
    private var owner: AnyObject?
    /// The chosen layer, unretained (`owner` holds it), so the per-packet calls neither rebuild it from
    /// an enum nor count references: a call through a strong or unowned reference retains and releases
    /// the object each time.
    private var chosen: ChosenLayer?
    /// The HTTP analysis (the common case), called directly.
    private var httpLayer: Unmanaged<HTTPConnectionAnalysis>?

    private enum ChosenLayer {
        case http(Unmanaged<HTTPConnectionAnalysis>)
        case http2(Unmanaged<HTTP2ConnectionAnalysis>)
        case tls(Unmanaged<TLSConnectionAnalysis>)
    }

    /// `body` run on the chosen layer (nil before the choice), the layer reached without retaining it.
    @inline(__always)
    private func withChosen<Result>(_ body: (any TCPStreamConsumer & StreamAttribution) -> Result) -> Result? {
        switch chosen {
        case let .http(http): return http._withUnsafeGuaranteedRef { body($0) }
        case let .http2(http2): return http2._withUnsafeGuaranteedRef { body($0) }
        case let .tls(tls): return tls._withUnsafeGuaranteedRef { body($0) }
        case nil: return nil
        }
    }
    /// The DNS lookup that gave the server address just before the connection opened (the first
    /// connection to an address after an answer claims it), if the capture saw one.
    package let resolution: DNSResolution?
    private let httpLimits: HTTPLimits
    private var heldEvents: [HeldEvent] = []
    private var clientBytes: [UInt8] = []

    private enum HeldEvent {
        case data([UInt8], offset: Int64, direction: FlowDirection, origin: PacketOrigin)
        case gap(offset: Int64, length: Int64, direction: FlowDirection, reason: StreamGapReason)
        case ended(FlowDirection)
    }

    /// The session secrets TLS connections are decrypted with (nil: none given).
    private let tlsKeys: TLSKeyStore?

    package init(httpLimits: HTTPLimits = HTTPLimits(), resolution: DNSResolution? = nil, tlsKeys: TLSKeyStore? = nil) {
        self.httpLimits = httpLimits
        self.resolution = resolution
        self.tlsKeys = tlsKeys
    }

    /// The exchanges found (HTTP/1.x over TLS: parsed from the decrypted records, else estimated from
    /// record bursts), from the first one not discarded.
    package var exchanges: PrefixDiscardingArray<HTTPExchange> {
        switch layer {
        case let .http(http): return http.exchanges
        case let .http2(http2): return http2.exchanges
        case let .tls(tls): return tls.exchanges
        case nil: return PrefixDiscardingArray()
        }
    }

    /// `exchanges.endIndex`, read without copying the array (a retain and a release) on cleartext
    /// HTTP/1.x, where it is the exchange count.
    package var exchangesEndIndex: Int {
        if let http = httpLayer { return http._withUnsafeGuaranteedRef { $0.exchangeCount } }
        return exchanges.endIndex
    }

    /// Exchange `index` for its record when it is discarded right after (`discardExchanges(before:)`
    /// past it follows before anything reads the exchanges again): cleartext HTTP/1.x moves it out (no
    /// copy of it, no retain of its messages), the other layers give a copy.
    package func takeExchange(_ index: Int) -> HTTPExchange {
        if let http = httpLayer { return http._withUnsafeGuaranteedRef { $0.takeExchange(index) } }
        return exchanges[index]
    }

    /// Drops the exchanges before `index`, once their records are written and the ledger has sealed
    /// them.
    package func discardExchanges(before index: Int) {
        if let http = httpLayer { return http._withUnsafeGuaranteedRef { $0.discardExchanges(before: index) } }
        _ = withChosen { $0.discardExchanges(before: index) }
    }

    /// True once the client direction stopped at the cap on open requests (`HTTPLimits.maxOpenRequests`),
    /// or, in HTTP/2, a stream beyond that many open ones was not followed.
    package var reachedOpenRequestCap: Bool {
        http?.reachedOpenRequestCap == true || (anyHTTP2?.connectionInfo.streamsOverCap ?? 0) > 0
    }

    /// The HTTP/2 analysis in any of its forms: h2c (prior knowledge or by Upgrade), or h2 inside
    /// decrypted TLS.
    package var anyHTTP2: HTTP2ConnectionAnalysis? { http2 ?? http?.upgradedToHTTP2 ?? tls?.http2 }

    /// The HTTP analysis, when the connection is not TLS.
    package var http: HTTPConnectionAnalysis? {
        if case let .http(http) = layer { return http }
        return nil
    }

    /// The HTTP/2 analysis, when the connection is h2c (prior knowledge).
    package var http2: HTTP2ConnectionAnalysis? {
        if case let .http2(http2) = layer { return http2 }
        return nil
    }

    /// The TLS session, when the connection is TLS.
    package var tls: TLSConnectionAnalysis? {
        if case let .tls(tls) = layer { return tls }
        return nil
    }

    // MARK: TCPStreamConsumer

    package func streamData(_ data: UnsafeRawBufferPointer, offset: Int64, direction: FlowDirection, origin: PacketOrigin) {
        if let http = httpLayer {
            return http._withUnsafeGuaranteedRef { $0.streamData(data, offset: offset, direction: direction, origin: origin) }
        }
        if withChosen({ $0.streamData(data, offset: offset, direction: direction, origin: origin) }) != nil { return }
        heldEvents.append(.data(Array(data), offset: offset, direction: direction, origin: origin))
        let verdict: Choice?
        if direction == .up {
            clientBytes += data.prefix(16)
            verdict = clientBytes.withUnsafeBytes { bytes in
                ApplicationProtocolGuess.looksLikeTLS(bytes).flatMap { $0 ? .tls : Self.http2Preface(bytes).map { $0 ? .http2 : .http } }
            }
        } else {
            verdict = clientBytes.isEmpty ? Self.looksLikeTLSRecord(data).map { $0 ? .tls : .http } : nil
        }
        if let verdict { choose(verdict) }
    }

    package func streamGap(offset: Int64, length: Int64, direction: FlowDirection, reason: StreamGapReason) {
        if withChosen({ $0.streamGap(offset: offset, length: length, direction: direction, reason: reason) }) != nil { return }
        heldEvents.append(.gap(offset: offset, length: length, direction: direction, reason: reason))
        choose(.http)
    }

    package func streamEnded(direction: FlowDirection) {
        if withChosen({ $0.streamEnded(direction: direction) }) != nil { return }
        heldEvents.append(.ended(direction))
        choose(.http)
    }

    // MARK: StreamAttribution

    package func examinedLength(_ direction: FlowDirection) -> Int64 {
        if let http = httpLayer { return http._withUnsafeGuaranteedRef { $0.examinedLength(direction) } }
        return withChosen { $0.examinedLength(direction) } ?? 0
    }

    package func ownership(_ direction: FlowDirection) -> OwnershipRuns {
        if let http = httpLayer { return http._withUnsafeGuaranteedRef { $0.ownership(direction) } }
        return withChosen { $0.ownership(direction) } ?? OwnershipRuns()
    }

    package func ownerRun(at offset: Int64, _ direction: FlowDirection) -> OwnerRun {
        if let http = httpLayer { return http._withUnsafeGuaranteedRef { $0.ownerRun(at: offset, direction) } }
        return withChosen { $0.ownerRun(at: offset, direction) } ?? OwnerRun(owner: .nobody, end: .max)
    }

    package func start(ofExchangeAfter index: Int, _ direction: FlowDirection) -> Int64? {
        if let http = httpLayer { return http._withUnsafeGuaranteedRef { $0.start(ofExchangeAfter: index, direction) } }
        return withChosen { $0.start(ofExchangeAfter: index, direction) } ?? nil
    }

    package func end(ofExchangesThrough index: Int, _ direction: FlowDirection) -> Int64? {
        if let http = httpLayer { return http._withUnsafeGuaranteedRef { $0.end(ofExchangesThrough: index, direction) } }
        return withChosen { $0.end(ofExchangesThrough: index, direction) } ?? nil
    }

    package var exchangeInFlight: Int? {
        if let http = httpLayer { return http._withUnsafeGuaranteedRef { $0.exchangeInFlight } }
        return withChosen { $0.exchangeInFlight } ?? nil
    }

    @inline(__always)  // asked on every packet (sealing)
    package var exchangeCount: Int {
        if let http = httpLayer { return http._withUnsafeGuaranteedRef { $0.exchangeCount } }
        return withChosen { $0.exchangeCount } ?? 0
    }

    package var splitsPacketsByShare: Bool { httpLayer == nil && withChosen { $0.splitsPacketsByShare } == true }

    package func cancelTime(of index: Int) -> Timestamp? {
        if let http = httpLayer { return http._withUnsafeGuaranteedRef { $0.cancelTime(of: index) } }
        return withChosen { $0.cancelTime(of: index) } ?? nil
    }

    package func noteClientClose(exchange index: Int) {
        if let http = httpLayer { return http._withUnsafeGuaranteedRef { $0.noteClientClose(exchange: index) } }
        _ = withChosen { $0.noteClientClose(exchange: index) }
    }

    /// HTTP/1.x exchanges become final as their responses complete, HTTP/2 ones as their streams end;
    /// estimated TLS exchanges once the server's records of the next exchange begin
    /// (`TLSConnectionAnalysis.isFinal`).
    package func isFinal(_ index: Int) -> Bool {
        if let http = httpLayer { return http._withUnsafeGuaranteedRef { $0.isFinal(index) } }
        return withChosen { $0.isFinal(index) } ?? false
    }

    // MARK: Choice

    private func choose(_ choice: Choice) {
        switch choice {
        case .tls:
            let tls = TLSConnectionAnalysis(keys: tlsKeys, httpLimits: httpLimits)
            (owner, chosen) = (tls, .tls(.passUnretained(tls)))
        case .http2:
            let http2 = HTTP2ConnectionAnalysis(limits: httpLimits)
            (owner, chosen) = (http2, .http2(.passUnretained(http2)))
        case .http:
            let http = HTTPConnectionAnalysis(limits: httpLimits)
            (owner, chosen, httpLayer) = (http, .http(.passUnretained(http)), .passUnretained(http))
        }
        let events = heldEvents
        heldEvents = []
        clientBytes = []
        for event in events {
            switch event {
            case let .data(bytes, offset, direction, origin):
                bytes.withUnsafeBytes { data in
                    _ = withChosen { $0.streamData(data, offset: offset, direction: direction, origin: origin) }
                }
            case let .gap(offset, length, direction, reason):
                _ = withChosen { $0.streamGap(offset: offset, length: length, direction: direction, reason: reason) }
            case let .ended(direction):
                _ = withChosen { $0.streamEnded(direction: direction) }
            }
        }
    }

    /// True when the client's first 16 bytes are those of the HTTP/2 connection preface,
    /// `PRI * HTTP/2.0\r\n` (h2c with prior knowledge, RFC 9113 §3.3); nil while fewer came and they
    /// begin it.
    static func http2Preface(_ bytes: UnsafeRawBufferPointer) -> Bool? {
        let preface = HTTP2ConnectionParser.preface.prefix(16)
        guard zip(bytes, preface).allSatisfy({ $0 == $1 }) else { return false }
        return bytes.count >= preface.count ? true : nil
    }

    /// True when the bytes start with a TLS record header (content type 20–23, version 3.0–3.4): a
    /// connection picked up mid-stream whose server speaks first in the capture.
    static func looksLikeTLSRecord(_ bytes: UnsafeRawBufferPointer) -> Bool? {
        guard bytes.count >= 3 else { return bytes.isEmpty ? nil : (20...23).contains(bytes[0]) ? nil : false }
        return (20...23).contains(bytes[0]) && bytes[1] == 3 && bytes[2] <= 4
    }
}

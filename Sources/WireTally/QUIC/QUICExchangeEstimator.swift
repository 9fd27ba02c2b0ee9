/// Estimates a QUIC connection's exchanges without keys, from the directions and sizes of its
/// protected (0-RTT and 1-RTT) datagrams, as TLS over TCP does from its records: a client burst is a
/// request, the server's burst after it its response.
///
/// - A client datagram carrying data starts a new exchange when the server has sent protected data
///   since the current exchange began (or when there is none yet). A datagram carries data when its
///   protected payload (`QUICDatagramContents.protectedPayloadBytes`: its packets less headers, one
///   packet-number byte each and the 16-byte AEAD tags) is at least `minimumDataPayload` bytes: an
///   ACK frame alone takes 5–10 bytes, with a QPACK decoder-stream acknowledgment about 12, while a
///   request whose headers QPACK's dynamic table compresses still takes some 20 (aioquic's recordings,
///   `captures/quic-*`). Smaller client datagrams (acknowledgements of the response) stay with the
///   current exchange.
/// - Server datagrams belong to the current exchange's response; only those carrying data (by the same
///   size) count as the server having answered (an upload's acknowledgements do not).
/// - Exchange k is final once the server sends after exchange k + 1 began: responses are taken to
///   come in order.
///
/// Several requests sent together (HTTP/3 multiplexes them) are one estimated exchange. The messages'
/// `bytes.total` is the UDP payload of their data datagrams, `body` the estimated frame bytes in them
/// (payload less headers and tags), `framing` the rest; `streamRange` is their span in the direction's
/// sequence of UDP payload bytes.
struct QUICExchangeEstimator {
    /// Protected payload bytes from which a client datagram is taken to carry data, not only an ACK.
    static let minimumDataPayload = 16

    private struct Burst {
        var start: Int64
        var end: Int64
        var firstOrigin: PacketOrigin
        var lastOrigin: PacketOrigin
        var estimatedPlaintext = 0
    }

    private struct Estimated {
        var request: Burst?
        var response: Burst?
    }

    private var estimated = PrefixDiscardingArray<Estimated>()
    /// Per direction: UDP payload bytes of protected datagrams so far (the offsets of `streamRange`).
    private var position = DirectionPair<Int64>(0, 0)
    /// The server sent protected data since the current exchange began.
    private var serverSentSinceRequest = false

    /// Exchanges estimated so far.
    var count: Int { estimated.endIndex }

    /// Exchanges before this one are final.
    private(set) var finalCount = 0

    /// The owner of one protected datagram of `payloadLength` UDP payload bytes, `plaintext` of them
    /// its estimated frames, opening a new exchange when it starts a request; nil before the first
    /// exchange (the ledger holds such datagrams for it).
    mutating func owner(
        ofDatagramFromClient fromClient: Bool, payloadLength: Int, plaintext: Int, origin: PacketOrigin
    ) -> Int? {
        let d = fromClient ? 0 : 1
        let start = position[d]
        position[d] += Int64(payloadLength)
        let carriesData = plaintext >= Self.minimumDataPayload
        if fromClient {
            if carriesData && (estimated.endIndex == 0 || serverSentSinceRequest) {
                estimated.append(Estimated())
                serverSentSinceRequest = false
            }
            guard estimated.endIndex > 0 else { return nil }
            if carriesData { extend(\.request, of: estimated.endIndex - 1, start, plaintext, origin) }
        } else {
            guard estimated.endIndex > 0 else { return nil }
            if carriesData {
                if !serverSentSinceRequest { finalCount = estimated.endIndex - 1 }
                serverSentSinceRequest = true
            }
            extend(\.response, of: estimated.endIndex - 1, start, plaintext, origin)
        }
        return estimated.endIndex - 1
    }

    /// The exchanges from `range`, each message with its estimated bytes and its first and last
    /// datagrams; `version` is the negotiated protocol if known ("" otherwise).
    func exchanges(_ range: Range<Int>, version: String) -> [HTTPExchange] {
        range.map { index in
            var exchange = HTTPExchange(index: index)
            exchange.request = estimated[index].request.map { message($0, kind: .request, index: index, version: version) }
            exchange.response = estimated[index].response.map { message($0, kind: .response, index: index, version: version) }
            exchange.isInFlight = index >= finalCount
            return exchange
        }
    }

    /// Drops the exchanges before `index` (written).
    mutating func discard(before index: Int) {
        estimated.discard(before: min(index, finalCount))
    }

    private mutating func extend(
        _ message: WritableKeyPath<Estimated, Burst?>, of index: Int, _ start: Int64, _ plaintext: Int, _ origin: PacketOrigin
    ) {
        let end = position[message == \Estimated.request ? 0 : 1]
        if estimated[index][keyPath: message] == nil {
            estimated[index][keyPath: message] = Burst(start: start, end: end, firstOrigin: origin, lastOrigin: origin)
        }
        estimated[index][keyPath: message]?.end = end
        estimated[index][keyPath: message]?.lastOrigin = origin
        estimated[index][keyPath: message]?.estimatedPlaintext += plaintext
    }

    private func message(_ burst: Burst, kind: HTTPMessage.Kind, index: Int, version: String) -> HTTPMessage {
        let total = Int(burst.end - burst.start)
        let body = min(burst.estimatedPlaintext, total)
        return HTTPMessage(
            kind: kind, exchangeIndex: index, streamRange: burst.start ..< burst.end, version: version,
            bytes: HTTPByteCounts(body: body, framing: total - body), firstOrigin: burst.firstOrigin,
            lastOrigin: burst.lastOrigin)
    }
}

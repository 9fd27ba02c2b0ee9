/// Receives what an HTTP3ConnectionParser finds.
package protocol HTTP3ParserDelegate: AnyObject {
    /// A request stream's message in one direction is complete (FIN), reset, or cut by the end of the connection.
    func http3MessageFinished(_ message: consuming HTTPMessage, stream: UInt64, direction: FlowDirection)
}

/// Parses the HTTP/3 (RFC 9114) and QPACK (RFC 9204) layer of one QUIC connection from its streams'
/// bytes, fed in order per stream and direction by the caller (QUIC streams are independent: the
/// order between streams is whatever the caller decrypted), and reports each request stream's two
/// messages.
///
/// - Request streams (client-initiated bidirectional, id % 4 == 0) get exchange indices in the order
///   they are first seen. The client's bytes are the request, the server's the response; each
///   `HTTPMessage` is reported when its direction is over: FIN (or RESET_STREAM's final size) reached
///   and no field section of it still waiting for QPACK inserts, or `finish()`. At most
///   `HTTPLimits.maxOpenRequests` request streams are open at once: the bytes of streams beyond are
///   only counted (`info.streamsOverCap`, `bytesOverCap`).
/// - Frames: see `HTTP3StreamInfo` for where every byte is counted. DATA is streamed through the
///   content decoder, never kept; a HEADERS payload is gathered up to `HTTPLimits.maxHeaderBytes`
///   (beyond: `.headersTooLarge`, skipped); control frames up to `maxControlFrameBytes`.
/// - QPACK: each side's encoder stream builds the dynamic table its peer decodes with
///   (`QPACKDecoderState`): requests are decoded with the client's, responses with the server's. A
///   section whose Required Insert Count exceeds the inserts received waits (`qpackBlocked`; later
///   sections of its message wait behind it, and so does the DATA after a waiting head, up to
///   `maxHeldBodyBytes`) and is decoded when the encoder stream catches up — at most
///   SETTINGS_QPACK_BLOCKED_STREAMS streams (of the decoding side, once seen) and `maxBlockedSections`,
///   holding at most `maxBlockedBytes`. A section that fails sets `qpackError` on its message only.
/// - Gaps: inside a payload, sync is kept (DATA: `.gap`; a field section: not decoded, `.gap`); across
///   a frame header, the rest of the direction is counted as unframed body (`.gap`). A gap in an
///   encoder stream loses its table (`info.qpackEncoderStreamLost`).
package final class HTTP3ConnectionParser {
    /// Blocked field sections kept at once per encoding side (when the decoder's
    /// SETTINGS_QPACK_BLOCKED_STREAMS allows more, or was not seen), and their bytes on the connection.
    package static let maxBlockedSections = 100
    package static let maxBlockedBytes = 1 << 20
    /// DATA bytes kept per message while its head's field section waits for inserts.
    package static let maxHeldBodyBytes = 64 << 10
    /// Largest control-stream frame payload read (SETTINGS, GOAWAY…); larger ones are skipped.
    package static let maxControlFrameBytes = 16 << 10
    /// Unidirectional streams followed; bytes of further ones count as `unknown`.
    package static let maxUnidirectionalStreams = 256
    /// Closed request streams remembered (late bytes on them are `bytesAfterEnd`, their index stays known).
    static let recentlyClosedCount = 256

    unowned let delegate: any HTTP3ParserDelegate
    let limits: HTTPLimits
    package internal(set) var info = HTTP3ConnectionInfo()
    /// QPACK state by encoding side: `.up` decodes the client's sections (requests), `.down` the server's.
    var qpack: DirectionPair<QPACKDecoderState>
    var decoderStreams = DirectionPair(QPACKDecoderStreamReader(), QPACKDecoderStreamReader())
    var requestStreams: [UInt64: HTTP3RequestStream] = [:]
    var uniStreams: [UInt64: HTTP3UniStream] = [:]
    /// Request streams closed last (id → exchange index), oldest first.
    var recentlyClosed: [(id: UInt64, exchangeIndex: Int)] = []
    /// Request streams refused for the open-streams cap (remembered so their later bytes stay refused;
    /// at most `maxRefusedStreams`, past which further refused streams are counted in `bytesOverCap` only).
    var refusedStreams: Set<UInt64> = []
    static let maxRefusedStreams = 1 << 16
    var nextExchange = 0
    /// Streams with held field sections, per encoding side, in the order they began waiting.
    var blockedStreams = DirectionPair<[UInt64]>([], [])
    var blockedBytes = 0

    package init(limits: HTTPLimits, delegate: HTTP3ParserDelegate) {
        self.limits = limits
        self.delegate = delegate
        qpack = DirectionPair(QPACKDecoderState(maxListSize: limits.maxHeaderBytes), QPACKDecoderState(maxListSize: limits.maxHeaderBytes))
    }

    // MARK: Input

    /// Bytes of stream `stream` sent by the client (`fromClient`) or the server, starting at stream offset `offset`
    /// (contiguous with what was delivered before on that stream and direction), `fin` when they end the stream.
    /// Stream ids follow RFC 9000 §2.1: 0b00 client bidi (request streams: client bytes = request, server bytes =
    /// response), 0b10 client uni, 0b11 server uni, 0b01 server bidi (not used by HTTP/3: flag).
    package func receive(stream: UInt64, fromClient: Bool, offset: Int64, bytes: UnsafeRawBufferPointer, fin: Bool, origin: PacketOrigin) {
        let direction: FlowDirection = fromClient ? .up : .down
        switch stream & 0x3 {
        case 0b00:
            guard let side = requestSide(stream, direction, count: bytes.count) else { return }
            receive(side, stream: stream, offset: offset, bytes: bytes, fin: fin, origin: origin)
        case 0b01:
            info.unexpectedStreamBytes += Int64(bytes.count)
        default:
            guard let uni = uniStream(stream, direction, count: bytes.count) else { return }
            receive(uni, offset: offset, bytes: bytes)
        }
    }

    /// `length` bytes at `offset` of that stream and direction will never be delivered (not captured / not decrypted):
    /// the stream loses its framing from there (flag its message `gap`, like HTTP/2's resync rules; an encoder-stream gap
    /// makes later sections that depend on the lost inserts undecodable: flag, keep counting bytes).
    package func gap(stream: UInt64, fromClient: Bool, offset: Int64, length: Int64) {
        guard length > 0 else { return }
        let direction: FlowDirection = fromClient ? .up : .down
        let count = Int(clamping: length)
        switch stream & 0x3 {
        case 0b00:
            guard let side = requestSide(stream, direction, count: count) else { return }
            catchUp(side, stream: stream, to: offset)
            let end = offset + length
            if end > side.position { lose(side, stream: stream, length: end - side.position) }
            finishIfOver(stream, direction)
        case 0b01:
            info.unexpectedStreamBytes += length
        default:
            guard let uni = uniStream(stream, direction, count: count) else { return }
            let end = offset + length
            if end > uni.position { lose(uni, length: end - uni.position) }
        }
    }

    /// RESET_STREAM (sender aborts its side: error code, final size) and STOP_SENDING (asks the peer to stop) seen for a stream.
    package func reset(stream: UInt64, fromClient: Bool, errorCode: UInt64, finalSize: UInt64) {
        let direction: FlowDirection = fromClient ? .up : .down
        guard stream & 0x3 == 0, let side = requestSide(stream, direction, count: 0) else { return }
        if side.builder.info.resetErrorCode == nil {
            side.builder.info.resetErrorCode = errorCode
            side.builder.info.resetBy = direction
        }
        if side.finalSize == nil { side.finalSize = Int64(clamping: finalSize) }
        finishIfOver(stream, direction)
    }

    package func stopSending(stream: UInt64, fromClient: Bool, errorCode: UInt64) {
        let direction: FlowDirection = fromClient ? .up : .down
        // The peer is asked to stop: its message records it.
        guard stream & 0x3 == 0, let side = requestSide(stream, direction.reversed, count: 0) else { return }
        guard side.builder.info.stopSendingErrorCode == nil else { return }
        side.builder.info.stopSendingErrorCode = errorCode
        side.builder.info.stopSendingBy = direction
    }

    /// The connection ended: messages not finished are delivered flagged `incomplete`.
    package func finish() {
        for stream in requestStreams.values.sorted(by: { $0.exchangeIndex < $1.exchangeIndex }) {
            for direction in [FlowDirection.up, .down] {
                guard let side = stream.side(direction), !side.delivered else { continue }
                deliver(side, stream: stream.id, direction: direction, force: true)
            }
            close(stream)
        }
    }

    /// The DATA payload bytes of request stream `stream`'s message in `direction` read so far (those held
    /// while its head waits for QPACK inserts included); 0 before its first byte or once it was delivered.
    package func bodyBytesRead(stream: UInt64, direction: FlowDirection) -> Int {
        guard let side = requestStreams[stream]?.side(direction), !side.delivered else { return 0 }
        return side.builder.bytes.body + side.heldBody.count + side.heldBodyNotKept + side.heldGapBytes
    }

    /// The order in which request streams were first seen (0, 1, 2…): the exchange index of each request stream.
    package func exchangeIndex(ofStream stream: UInt64) -> Int? {
        if let open = requestStreams[stream] { return open.exchangeIndex }
        return recentlyClosed.last(where: { $0.id == stream })?.exchangeIndex
    }

    // MARK: Streams

    /// The side of request stream `id` sending in `direction`, opened (with its stream) when first
    /// seen; nil when the stream is over the cap or over (its `count` bytes are then counted as such).
    func requestSide(_ id: UInt64, _ direction: FlowDirection, count: Int) -> HTTP3RequestSide? {
        let stream: HTTP3RequestStream
        if let open = requestStreams[id] {
            stream = open
        } else if recentlyClosed.contains(where: { $0.id == id }) {
            info.bytesAfterEnd += Int64(count)
            return nil
        } else if refusedStreams.contains(id) || requestStreams.count >= limits.maxOpenRequests {
            if refusedStreams.count < Self.maxRefusedStreams && refusedStreams.insert(id).inserted { info.streamsOverCap += 1 }
            info.bytesOverCap += Int64(count)
            return nil
        } else {
            stream = HTTP3RequestStream(id: id, exchangeIndex: nextExchange)
            nextExchange += 1
            requestStreams[id] = stream
            info.requestStreams += 1
        }
        let side = stream.side(direction, making: true)!
        guard !side.delivered else {
            info.bytesAfterEnd += Int64(count)
            return nil
        }
        return side
    }

    /// The messages of `stream` were all delivered: it is forgotten but for its index.
    func close(_ stream: HTTP3RequestStream) {
        requestStreams[stream.id] = nil
        if recentlyClosed.count == Self.recentlyClosedCount { recentlyClosed.removeFirst() }
        recentlyClosed.append((stream.id, stream.exchangeIndex))
    }

    /// Delivers the message of `direction` on `stream` if its direction is over, and closes the
    /// stream once both are delivered (or the response is, and the request never began).
    func finishIfOver(_ id: UInt64, _ direction: FlowDirection) {
        guard let stream = requestStreams[id], let side = stream.side(direction), !side.delivered,
            side.reachedEnd, side.held.isEmpty
        else { return }
        deliver(side, stream: id, direction: direction, force: false)
        let others = [stream.request, stream.response].compactMap { $0 }
        if others.allSatisfy(\.delivered) && stream.response != nil && stream.request != nil { close(stream) }
    }

    /// Hands the message over. `force`: the connection ended (what waits fails, what is cut is `.incomplete`).
    private func deliver(_ side: HTTP3RequestSide, stream: UInt64, direction: FlowDirection, force: Bool) {
        let builder = side.builder
        if !side.held.isEmpty {
            // Inserts that never came.
            builder.info.qpackError = true
            info.qpackSectionErrors.update(direction.rawValue) { $0 += side.held.count }
            unblock(side, stream: stream, direction: direction)
        }
        side.releaseHeldBody(retainLimit: limits.retainedBodyBytes)
        builder.ended = side.finished && side.reader.atFrameBoundary && !side.lostSync && side.reachedEnd
        if side.finished && !builder.ended { builder.flags.insert(.malformed) }
        if !builder.ended { builder.flags.insert(.incomplete) }
        side.delivered = true
        delegate.http3MessageFinished(builder.message(limits: limits), stream: stream, direction: direction)
    }

    /// The unidirectional stream `id` sent in `direction`; nil when it is sent by the wrong side or
    /// beyond `maxUnidirectionalStreams` (its `count` bytes are counted as such).
    private func uniStream(_ id: UInt64, _ direction: FlowDirection, count: Int) -> HTTP3UniStream? {
        let sender: FlowDirection = id & 0x3 == 0b10 ? .up : .down
        guard sender == direction else {
            info.unexpectedStreamBytes += Int64(count)
            return nil
        }
        if let stream = uniStreams[id] { return stream }
        guard uniStreams.count < Self.maxUnidirectionalStreams else {
            info.unidirectionalBytes.update(direction.rawValue) { $0.unknown += Int64(count) }
            return nil
        }
        let stream = HTTP3UniStream(id: id, sender: direction)
        uniStreams[id] = stream
        return stream
    }
}

/// A request stream given an exchange: the client's side (request) and the server's (response),
/// made when their first byte, gap or reset comes.
final class HTTP3RequestStream {
    let id: UInt64
    let exchangeIndex: Int
    var request: HTTP3RequestSide?
    var response: HTTP3RequestSide?

    init(id: UInt64, exchangeIndex: Int) {
        self.id = id
        self.exchangeIndex = exchangeIndex
    }

    func side(_ direction: FlowDirection, making: Bool = false) -> HTTP3RequestSide? {
        if direction == .up {
            if request == nil && making { request = makeSide(.request, .up) }
            return request
        }
        if response == nil && making { response = makeSide(.response, .down) }
        return response
    }

    private func makeSide(_ kind: HTTPMessage.Kind, _ direction: FlowDirection) -> HTTP3RequestSide {
        HTTP3RequestSide(builder: HTTP3MessageBuilder(kind: kind, direction: direction, exchangeIndex: exchangeIndex, info: HTTP3StreamInfo(streamID: id)))
    }
}

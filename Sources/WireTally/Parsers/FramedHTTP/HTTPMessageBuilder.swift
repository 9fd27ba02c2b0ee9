/// What a framed HTTP version (HTTP/2, HTTP/3) records about a message's stream beyond the
/// version-neutral `HTTPMessage` fields: `HTTP2StreamInfo`, `HTTP3StreamInfo`.
protocol HTTPStreamDetails {
    /// `HTTPMessage.version` of the messages (`HTTP/2`, `HTTP/3`).
    static var httpVersion: String { get }
    /// Frames of the stream in the message's direction.
    var frames: Int { get set }
    /// The request's `:scheme`.
    var scheme: String? { get set }
    /// The header list as HTTP/1.1 text (see `HTTP2StreamInfo.headersDecodedBytes`).
    var headersDecodedBytes: Int { get set }
    /// Stores the details in the finished message (`HTTPMessage.http2`, `.http3`).
    func attach(to message: inout HTTPMessage)
}

/// One HTTP/2 or HTTP/3 message being gathered from the frames of its stream in one direction. A
/// class: the parser updates it in place from the stream and from the frame in progress.
final class HTTPMessageBuilder<Details: HTTPStreamDetails> {
    let kind: HTTPMessage.Kind
    let direction: FlowDirection
    let exchangeIndex: Int
    var info: Details
    /// Stream offsets of the first byte of the first frame and past the last byte seen of the last one.
    private(set) var start: Int64?
    private(set) var end: Int64 = 0
    private(set) var firstOrigin: PacketOrigin?
    private(set) var lastOrigin: PacketOrigin?
    var method: String?
    var target: String?
    var status: Int?
    var headers: [HTTPHeader] = []
    var trailers: [HTTPHeader] = []
    /// A header block was applied as the message's head (later blocks are trailers).
    var hasHead = false
    var bytes = HTTPByteCounts()
    var interimCount = 0
    var interimBytes = 0
    var contentEncoding: String?
    var decoder: ContentDecoder?
    /// Body retention when there is no content coding (the decoder keeps decoded bytes otherwise).
    var retained: [UInt8]?
    var flags: HTTPMessageFlags = []
    /// END_STREAM was seen (or the message is complete by construction: a PUSH_PROMISE's request).
    var ended = false
    /// The direction ended before END_STREAM: no more frames can come.
    var cut = false

    init(kind: HTTPMessage.Kind, direction: FlowDirection, exchangeIndex: Int, info: Details) {
        self.kind = kind
        self.direction = direction
        self.exchangeIndex = exchangeIndex
        self.info = info
    }

    /// No more frames of the message can come.
    var isDone: Bool { ended || cut }

    /// A frame of the message starts at `offset` (its header's first byte, delivered by `origin`).
    func frameStarted(at offset: Int64, origin: PacketOrigin) {
        info.frames += 1
        if start == nil {
            start = offset
            firstOrigin = origin
        }
        lastOrigin = origin
        end = max(end, offset)
    }

    /// Bytes of the message's frames were read up to `offset` (exclusive), the last of them from `origin`.
    func reached(_ offset: Int64, origin: PacketOrigin?) {
        end = max(end, offset)
        if let origin { lastOrigin = origin }
    }

    /// Counts DATA payload bytes, streams them through the content decoder and retains them; nil
    /// `data`: `count` bytes lost in a gap.
    func body(_ data: UnsafeRawBufferPointer?, count: Int, retainLimit: Int) {
        bytes.body += count
        guard let data else {
            flags.insert(.gap)
            decoder?.noteGap()
            return
        }
        decoder?.feed(data)
        if let kept = retained?.count, kept < retainLimit {
            retained!.append(contentsOf: data.prefix(retainLimit - kept))
        }
    }

    /// Counts `count` body bytes that could not be inspected (HTTP/3: DATA past the bytes held while
    /// the head's field section waited for QPACK inserts): the body is neither decoded (`.undecodable`
    /// when it had a coding to decode) nor retained.
    func bodyNotInspected(count: Int) {
        bytes.body += count
        if decoder != nil { flags.insert(.undecodable) }
        decoder = nil
        retained = nil
    }

    /// Applies a decoded header block: the message's head, an interim response or trailers.
    /// `blockBytes` is every byte of the block's frames, counted so far in `headers`/`framing` as
    /// `blockHeaders`/`blockFraming`; an interim response moves them to `interimBytes`.
    func apply(_ list: HTTPHeaderList, blockHeaders: Int, blockFraming: Int, limits: HTTPLimits) {
        if list.malformed { flags.insert(.malformed) }
        if hasHead {
            trailers.append(contentsOf: list.fields)
            return
        }
        if kind == .response && list.isInterim {
            interimCount += 1
            interimBytes += blockHeaders + blockFraming
            bytes.headers -= blockHeaders
            bytes.framing -= blockFraming
            return
        }
        hasHead = true
        method = list.method
        info.scheme = list.scheme
        target = list.path
        status = list.status
        headers = list.fieldsWithHost
        info.headersDecodedBytes = list.http1TextBytes
        if kind == .request ? !list.isRequestHead : !list.isResponseHead { flags.insert(.malformed) }
        let readsBody = kind == .request || limits.readsResponseBodies
        guard let coding = list.fields.first(where: { $0.name == "content-encoding" })?.value else {
            if limits.retainedBodyBytes > 0 && readsBody && bytes.body == 0 { retained = [] }
            return
        }
        contentEncoding = coding
        if limits.decodeBodies && readsBody && bytes.body == 0 { decoder = ContentDecoder(contentEncoding: coding, limits: limits) }
        if limits.retainedBodyBytes > 0 && readsBody {
            if let decoder { decoder.retainLimit = limits.retainedBodyBytes } else if ContentDecoder.isIdentity(coding) { retained = [] }
        }
    }

    /// The finished message.
    func message(limits: HTTPLimits) -> HTTPMessage {
        var decoded: Int?
        var retainedBody = retained
        var flags = flags
        if let decoder {
            let result = decoder.result(bodyBytes: bytes.body)
            decoded = result.decoded
            flags.formUnion(result.flags)
            retainedBody = limits.retainedBodyBytes > 0 && result.flags.isEmpty && decoded != nil ? decoder.retained : nil
        }
        if flags.contains(.gap) || flags.contains(.incomplete) { retainedBody = nil }
        let origin = firstOrigin ?? PacketOrigin(frameNumber: 0, timestamp: Timestamp(nanoseconds: 0))
        let first = start ?? end
        var message = HTTPMessage(
            kind: kind, exchangeIndex: exchangeIndex, streamRange: first..<max(first, end), method: method, target: target,
            status: status, version: Details.httpVersion, headers: HTTPHeaderFields(headers), trailers: trailers, bytes: bytes,
            interimCount: interimCount, interimBytes: interimBytes, firstOrigin: origin, lastOrigin: lastOrigin ?? origin,
            contentEncoding: contentEncoding, decodedBodyBytes: decoded, flags: flags, retainedBody: retainedBody)
        info.attach(to: &message)
        return message
    }
}

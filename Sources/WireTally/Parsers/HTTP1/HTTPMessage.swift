/// Byte counts of one HTTP message exactly as it was on the stream (HTTP/1.x: the TCP stream; HTTP/2:
/// the frames of its stream in its direction, see `HTTP2StreamInfo`).
public struct HTTPByteCounts: Hashable, Sendable {
    /// The request or status line with its CRLF (or bare LF). HTTP/2: 0.
    public var startLine = 0
    /// Header lines and the empty line ending the header block. HTTP/2: the HPACK-encoded header
    /// block fragments (HEADERS, PUSH_PROMISE and CONTINUATION payloads without padding and fields).
    public var headers = 0
    /// Body content as sent: still content-encoded, without chunk framing (HTTP/2: DATA payloads
    /// without pad length and padding).
    public var body = 0
    /// Chunk-size lines (with extensions), the CRLF after each chunk, the last chunk, trailers and the
    /// final empty line. HTTP/2: 9-byte frame headers, pad length bytes and padding, HEADERS priority
    /// fields and PUSH_PROMISE's promised stream id.
    public var framing = 0
    /// HTTP/2 control frames of the message's stream in its direction (WINDOW_UPDATE, RST_STREAM,
    /// PRIORITY), whole frames with their 9-byte headers. HTTP/1.x: 0.
    public var control = 0

    /// Counts given part by part (bytes); the parts left out are 0.
    public init(startLine: Int = 0, headers: Int = 0, body: Int = 0, framing: Int = 0, control: Int = 0) {
        self.startLine = startLine
        self.headers = headers
        self.body = body
        self.framing = framing
        self.control = control
    }

    /// The whole message on the stream.
    public var total: Int { startLine + headers + body + framing + control }
}

/// One header field as sent (name case kept).
public struct HTTPHeader: Hashable, Sendable {
    /// The field name as sent (HTTP/2 and HTTP/3: lower case, as the protocols require).
    public var name: String
    /// The field value, without the whitespace around it.
    public var value: String
    /// A header field `name: value`.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// Notable facts about one message.
package struct HTTPMessageFlags: OptionSet, Hashable, Sendable {
    package var rawValue: UInt32
    package init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The stream ended (or the connection was reset) before the message was complete.
    package static let incomplete = HTTPMessageFlags(rawValue: 1 << 0)
    /// Part of the message was never captured (a gap inside it).
    package static let gap = HTTPMessageFlags(rawValue: 1 << 1)
    /// The decoded body exceeded the cap: decoding stopped (a decompression bomb is flagged, not followed).
    package static let decompressionBomb = HTTPMessageFlags(rawValue: 1 << 2)
    /// The content coding could not be decoded (corrupt data, or a coding wiretally does not decode).
    package static let undecodable = HTTPMessageFlags(rawValue: 1 << 3)
    /// The header block exceeded the cap; the rest of this direction is not parsed.
    package static let headersTooLarge = HTTPMessageFlags(rawValue: 1 << 4)
    /// The message switched the connection to another protocol (101, or a 2xx answer to CONNECT).
    package static let upgrade = HTTPMessageFlags(rawValue: 1 << 5)
    /// The parser re-synchronised on this message after a gap or garbage.
    package static let resynchronized = HTTPMessageFlags(rawValue: 1 << 6)
    /// Framing was invalid (bad chunk size, conflicting Content-Length…); parsed as far as possible.
    package static let malformed = HTTPMessageFlags(rawValue: 1 << 7)
    /// The body ran until the connection closed (no Content-Length, not chunked).
    package static let closeDelimited = HTTPMessageFlags(rawValue: 1 << 8)
}

/// A parsed HTTP/1.x request or response with the exact stream offsets and byte counts it covers.
///
/// Copy-on-write: the fields live in one shared box, so a copy (an exchange read for its record,
/// handed to the output, kept by a tee) retains one reference instead of copying a few hundred bytes and
/// retaining every string and array in them; changing a shared copy copies the fields first. The header
/// fields' bytes, and after them the start line's texts and the `Content-Encoding` (`HTTPMessageTexts`),
/// lie in the box's own allocation, after its fields: a message is one allocation, and freeing it one
/// free with nothing else to release (what few messages have — trailers, a retained body, HTTP/2 and
/// HTTP/3 stream infos, changed header fields — is in a second one, `Fields.rare`).
///
/// `@unchecked Sendable`: the box (a `ManagedBuffer`, which is not `Sendable`) is changed only through a
/// unique reference (`unique`), and everything in it is `Sendable`.
package struct HTTPMessage: @unchecked Sendable {
    package enum Kind: Sendable { case request, response }

    /// The stored fields (see the properties of the same names).
    private struct Fields: Sendable {
        var kind: Kind
        var exchangeIndex: Int
        var streamRange: Range<Int64>
        var status: Int?
        /// Where the method, target, reason, version and `Content-Encoding` lie in the box's texts.
        var texts: HTTPMessageTexts
        /// Where the texts start in the box's elements (after the header fields): set by `Box.make` alone.
        var textsOffset = 0
        var bytes: HTTPByteCounts
        var interimCount: Int
        var interimBytes: Int
        var firstOrigin: PacketOrigin
        var lastOrigin: PacketOrigin
        var decodedBodyBytes: Int?
        var flags: HTTPMessageFlags
        var reencoded: (decodedBytes: Int, encodedSize: Int)?
        /// Nil while every one of them is at its default (an HTTP/1.x message without trailers or a
        /// retained body): the fields then hold no reference at all, so making, copying and freeing them
        /// is copying and zeroing plain bytes (with `RareFields`' members among them, the value witnesses
        /// copied and destroyed each optional array, string and stream info one by one).
        var rare: RareFieldsBox?
    }

    /// The fields most messages leave at their defaults (HTTP/1.x ones all but always), kept apart from
    /// `Fields` (see `Fields.rare`).
    private struct RareFields: Sendable {
        /// Nil while the header fields are the box's elements (`HTTPHeaderFields.copyCompacted`); the
        /// fields of their own once changed.
        var changedHeaderFields: HTTPHeaderFields?
        var trailers: [HTTPHeader] = []
        var retainedBody: [UInt8]?
        var http2: HTTP2StreamInfo?
        var http3: HTTP3StreamInfo?

        /// A new message's rare fields in a box; nil when they are all at their defaults (checked on the
        /// arguments by pattern, so the common message copies none of them: `!= nil` copied and destroyed
        /// each stream info).
        @inline(__always)
        static func boxed(
            trailers: [HTTPHeader], retainedBody: [UInt8]?, http2: HTTP2StreamInfo? = nil, http3: HTTP3StreamInfo? = nil
        ) -> RareFieldsBox? {
            guard trailers.isEmpty, case .none = retainedBody, case .none = http2, case .none = http3 else {
                return RareFieldsBox(RareFields(trailers: trailers, retainedBody: retainedBody, http2: http2, http3: http3))
            }
            return nil
        }
    }

    /// `RareFields` in a box, shared by copies of a message until one changes them (`rare`).
    ///
    /// `@unchecked Sendable`: changed only through a unique reference (`rare`).
    private final class RareFieldsBox: @unchecked Sendable {
        var fields: RareFields
        init(_ fields: RareFields) { self.fields = fields }
    }

    /// The fields (its header), shared by copies until one changes (then it gets its own: `unique`),
    /// and the header fields as `HTTPHeaderFields.copyCompacted` lays them out followed by the texts'
    /// bytes (its elements).
    private final class Box: ManagedBuffer<Fields, UInt8> {
        /// A box holding `fields` (with `textsOffset` set: the header fields' `compactedSize`), `headers`
        /// and the texts `fields.texts` describes, which `writeTexts` writes at the pointer it is given.
        static func make(
            _ fields: Fields, headers: borrowing HTTPHeaderFields, writeTexts: (UnsafeMutableRawPointer) -> Void
        ) -> Box {
            let textsOffset = headers.compactedSize
            let box = unsafeDowncast(create(minimumCapacity: textsOffset &+ fields.texts.byteCount) { _ in fields }, to: Box.self)
            box.header.textsOffset = textsOffset
            headers.copyCompacted(to: box.elements)
            writeTexts(box.elements + textsOffset)
            return box
        }

        /// A box holding `fields`, `headers` and the texts `texts`.
        static func make(_ fields: Fields, headers: borrowing HTTPHeaderFields, texts: UnsafeRawBufferPointer) -> Box {
            make(fields, headers: headers) { target in
                if let texts = texts.baseAddress { target.copyMemory(from: texts, byteCount: fields.texts.byteCount) }
            }
        }

        /// A copy of `box` (its fields, header fields and texts).
        static func make(copying box: Box) -> Box {
            withExtendedLifetime(box) { make(box.header, headers: box.headerFields, texts: box.texts) }
        }

        /// The texts' bytes (stay put for the box's lifetime).
        private var texts: UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(start: elements + header.textsOffset, count: header.texts.byteCount)
        }

        /// The text of `slot` as a `String`, nil when the message has none.
        @inline(__always)
        func text(_ slot: HTTPMessageTexts.Slot) -> String? {
            header.texts.string(slot, in: texts)
        }

        /// The bytes of `slot`'s text (UTF-8), nil when the message has none; valid while the box lives.
        @inline(__always)
        func textBytes(_ slot: HTTPMessageTexts.Slot) -> UnsafeRawBufferPointer? {
            header.texts.bytes(slot, in: texts)
        }

        /// Where the header fields lie (stays put for the box's lifetime).
        var elements: UnsafeMutableRawPointer { withUnsafeMutablePointerToElements { UnsafeMutableRawPointer($0) } }

        /// The header fields: the changed ones, else the box's elements.
        var headerFields: HTTPHeaderFields {
            header.rare?.fields.changedHeaderFields ?? HTTPHeaderFields(sharing: self, base: elements)
        }
    }

    private var box: Box

    /// The box for a change: a copy of it first when another message shares it.
    private var unique: Box {
        mutating get {
            if !isKnownUniquelyReferenced(&box) { box = Box.make(copying: box) }
            return box
        }
    }

    /// The rare fields, for a change: in a box of this message's own (made when it has none).
    private var rare: RareFields {
        get { box.header.rare?.fields ?? RareFields() }
        _modify {
            let box = unique
            if box.header.rare == nil || !isKnownUniquelyReferenced(&box.header.rare!) {
                box.header.rare = RareFieldsBox(box.header.rare?.fields ?? RareFields())
            }
            yield &box.header.rare!.fields
        }
    }

    /// Sets the text of `slot` (a new box: the texts are laid out again; not a per-message path).
    private mutating func setText(_ slot: HTTPMessageTexts.Slot, _ value: String?) {
        var strings = HTTPMessageTexts.Strings(repeating: nil, count: HTTPMessageTexts.Slot.allCases.count)
        for other in HTTPMessageTexts.Slot.allCases { strings[other.rawValue] = other == slot ? value : box.text(other) }
        var fields = box.header
        let headers = box.headerFields
        fields.texts = HTTPMessageTexts(strings)
        box = Box.make(fields, headers: headers) { [texts = fields.texts] in texts.write(strings, to: $0) }
    }

    /// Calls `body` with the target's UTF-8 bytes (what `target` reads as a `String`), nil when the
    /// message has none: written out without a `String` made for it.
    package func withTarget<Result>(_ body: (UnsafeRawBufferPointer?) throws -> Result) rethrows -> Result {
        try withExtendedLifetime(box) { try body(box.textBytes(.target)) }
    }

    package var kind: Kind {
        get { box.header.kind }
        _modify { yield &unique.header.kind }
    }
    /// Which exchange of the connection it belongs to (0-based): requests in order; a response pairs
    /// with the oldest request still waiting for one, or (capture started mid-way) gets a new index.
    package var exchangeIndex: Int {
        get { box.header.exchangeIndex }
        _modify { yield &unique.header.exchangeIndex }
    }
    /// Stream range covered: for a response, interim (1xx) responses before it are included.
    package var streamRange: Range<Int64> {
        get { box.header.streamRange }
        _modify { yield &unique.header.streamRange }
    }
    /// Request line fields (requests) — method, target, version such as `HTTP/1.1`.
    package var method: String? {
        get { box.text(.method) }
        set { setText(.method, newValue) }
    }
    package var target: String? {
        get { box.text(.target) }
        set { setText(.target, newValue) }
    }
    /// Status line fields (responses).
    package var status: Int? {
        get { box.header.status }
        _modify { yield &unique.header.status }
    }
    package var reason: String? {
        get { box.text(.reason) }
        set { setText(.reason, newValue) }
    }
    package var version: String {
        get { box.text(.version) ?? "" }
        set { setText(.version, newValue) }
    }
    /// Header fields in order (trailers not included), as their bytes: reading them as strings
    /// (`headers`, `header(_:)`) makes the strings.
    package var headerFields: HTTPHeaderFields {
        get { box.headerFields }
        _modify {
            // Changed in a storage of their own (one holding the box would keep it alive from inside).
            if box.header.rare?.fields.changedHeaderFields == nil {
                let own = box.headerFields.ownCopy()
                rare.changedHeaderFields = own
            }
            yield &rare.changedHeaderFields!
        }
    }
    /// Header fields in order (trailers not included), made into strings on each read.
    package var headers: [HTTPHeader] {
        get { Array(headerFields) }
        set { headerFields = HTTPHeaderFields(newValue) }
    }
    /// Trailer fields of a chunked body.
    package var trailers: [HTTPHeader] {
        get { box.header.rare?.fields.trailers ?? [] }
        _modify { yield &rare.trailers }
    }
    /// Bytes of the final message (interim responses excluded).
    package var bytes: HTTPByteCounts {
        get { box.header.bytes }
        _modify { yield &unique.header.bytes }
    }
    /// Interim 1xx responses before the final response: how many, and their bytes on the stream.
    package var interimCount: Int {
        get { box.header.interimCount }
        _modify { yield &unique.header.interimCount }
    }
    package var interimBytes: Int {
        get { box.header.interimBytes }
        _modify { yield &unique.header.interimBytes }
    }
    /// The packets that delivered the first and the last byte of `streamRange`.
    package var firstOrigin: PacketOrigin {
        get { box.header.firstOrigin }
        _modify { yield &unique.header.firstOrigin }
    }
    package var lastOrigin: PacketOrigin {
        get { box.header.lastOrigin }
        _modify { yield &unique.header.lastOrigin }
    }
    /// `Content-Encoding` as sent (nil when absent), and the body size after decoding it (nil when
    /// there is no coding or it could not be decoded).
    package var contentEncoding: String? {
        get { box.text(.contentEncoding) }
        set { setText(.contentEncoding, newValue) }
    }
    package var decodedBodyBytes: Int? {
        get { box.header.decodedBodyBytes }
        _modify { yield &unique.header.decodedBodyBytes }
    }
    package var flags: HTTPMessageFlags {
        get { box.header.flags }
        _modify { yield &unique.header.flags }
    }
    /// Only when `HTTPLimits.retainedBodyBytes` > 0: the body's first `retainedBodyBytes` bytes,
    /// decoded when it has a content coding, raw (de-chunked) otherwise. Nil when retention is off, or
    /// when the body could not be had exactly (a gap in it, an undecodable or unsupported coding,
    /// decoding switched off, a decompression bomb). Complete when `count` equals the body size
    /// (`decodedBodyBytes ?? bytes.body`).
    package var retainedBody: [UInt8]? {
        get { box.header.rare?.fields.retainedBody }
        _modify { yield &rare.retainedBody }
    }
    /// The retained body re-encoded with the message's own codings (for the `rebuilt` estimator, see
    /// `Estimator`), measured when the message completed so the body need not be kept: how many
    /// decoded bytes were encoded and the encoded size.
    package var reencoded: (decodedBytes: Int, encodedSize: Int)? {
        get { box.header.reencoded }
        _modify { yield &unique.header.reencoded }
    }
    /// HTTP/2 only (nil for HTTP/1.x): the stream the message travelled on and what happened to it.
    package var http2: HTTP2StreamInfo? {
        get { box.header.rare?.fields.http2 }
        _modify { yield &rare.http2 }
    }
    /// HTTP/3 only (nil otherwise): the QUIC stream the message travelled on and what happened to it.
    package var http3: HTTP3StreamInfo? {
        get { box.header.rare?.fields.http3 }
        _modify { yield &rare.http3 }
    }

    package init(
        kind: Kind, exchangeIndex: Int, streamRange: Range<Int64>, method: String? = nil, target: String? = nil,
        status: Int? = nil, reason: String? = nil, version: String, headers: HTTPHeaderFields = [],
        trailers: [HTTPHeader] = [], bytes: HTTPByteCounts = HTTPByteCounts(), interimCount: Int = 0,
        interimBytes: Int = 0, firstOrigin: PacketOrigin, lastOrigin: PacketOrigin, contentEncoding: String? = nil,
        decodedBodyBytes: Int? = nil, flags: HTTPMessageFlags = [], retainedBody: [UInt8]? = nil,
        http2: HTTP2StreamInfo? = nil, http3: HTTP3StreamInfo? = nil
    ) {
        let strings: HTTPMessageTexts.Strings = [method, target, reason, version, contentEncoding]
        let texts = HTTPMessageTexts(strings)
        let rare = RareFields.boxed(trailers: trailers, retainedBody: retainedBody, http2: http2, http3: http3)
        box = Box.make(Fields(
            kind: kind, exchangeIndex: exchangeIndex, streamRange: streamRange, status: status, texts: texts,
            bytes: bytes, interimCount: interimCount, interimBytes: interimBytes, firstOrigin: firstOrigin,
            lastOrigin: lastOrigin, decodedBodyBytes: decodedBodyBytes, flags: flags, reencoded: nil, rare: rare),
            headers: headers) { texts.write(strings, to: $0) }
    }

    /// A parsed HTTP/1.x message: its texts are `texts`, laid out in `textBytes` (valid UTF-8,
    /// `texts.byteCount` bytes there).
    init(
        kind: Kind, exchangeIndex: Int, streamRange: Range<Int64>, status: Int?, texts: HTTPMessageTexts,
        textBytes: UnsafeRawPointer, headers: borrowing HTTPHeaderFields, trailers: [HTTPHeader], bytes: HTTPByteCounts,
        interimCount: Int, interimBytes: Int, firstOrigin: PacketOrigin, lastOrigin: PacketOrigin, decodedBodyBytes: Int?,
        flags: HTTPMessageFlags, retainedBody: [UInt8]?
    ) {
        let rare = RareFields.boxed(trailers: trailers, retainedBody: retainedBody)
        box = Box.make(Fields(
            kind: kind, exchangeIndex: exchangeIndex, streamRange: streamRange, status: status, texts: texts,
            bytes: bytes, interimCount: interimCount, interimBytes: interimBytes, firstOrigin: firstOrigin,
            lastOrigin: lastOrigin, decodedBodyBytes: decodedBodyBytes, flags: flags, reencoded: nil, rare: rare),
            headers: headers) { $0.copyMemory(from: textBytes, byteCount: texts.byteCount) }
    }

    /// The value of the first header named `name` (ASCII case-insensitive, compared byte by byte: no
    /// string is made for the names compared).
    package func header(_ name: String) -> String? {
        headerFields.value(named: name)
    }
}

/// Receives what an `HTTP1ConnectionParser` finds, in stream order per direction.
///
/// Ownership of stream bytes: from the offset given in `httpMessageStarted` on, a direction's bytes
/// belong to that exchange until the next `httpMessageStarted`, `httpUnparsed` or `httpUpgraded`
/// call for the same direction.
package protocol HTTPParserDelegate: AnyObject {
    /// A message (for responses: its first interim or final response) starts at `offset`.
    func httpMessageStarted(direction: FlowDirection, offset: Int64, exchangeIndex: Int)
    /// A message is complete, or was cut short by the end of its stream (`.incomplete`). Handed over
    /// (`consuming`), so keeping it needs no copy.
    func httpMessageFinished(_ message: consuming HTTPMessage, direction: FlowDirection)
    /// Bytes from `offset` on are not HTTP (not parsed, or lost sync until a later message start).
    func httpUnparsed(direction: FlowDirection, from offset: Int64)
    /// From `offset` on, the direction carries another protocol after `exchangeIndex` switched it
    /// (Upgrade or CONNECT): the bytes are counted for that exchange as upgraded, not parsed.
    func httpUpgraded(direction: FlowDirection, from offset: Int64, exchangeIndex: Int)
}

/// Caps of the HTTP parser.
package struct HTTPLimits: Sendable {
    /// Largest start line plus header block (and trailer block) accepted.
    package var maxHeaderBytes = 256 << 10
    /// Requests of one connection still waiting for their response (pipelined, or never answered) at
    /// once. A request beyond them is not parsed, nor is anything the client sends after it: each open
    /// request is an exchange kept until its response completes, so a client pipelining requests to a
    /// server that never answers would otherwise grow the connection without bound. Real pipelining
    /// is a few requests deep (curl allowed 5, apt 10, pipelined benchmarks 16).
    package var maxOpenRequests = 1000
    /// Requests waiting for their response on all connections together; past it, the connection whose
    /// request would exceed it stops like one past `maxOpenRequests`. 100,000 open requests take about
    /// 130 MB (1.3 KB each).
    package var maxOpenRequestsTotal = 100_000
    /// The running count against `maxOpenRequestsTotal`, shared by the parsers of one analysis
    /// (`CaptureAnalyzer` sets it; nil: no total cap, as for a parser used on its own).
    package var openRequestsTotal: OpenRequestBudget?
    /// Largest decoded body counted; beyond it decoding stops and the message is flagged a bomb.
    package var maxDecodedBodyBytes = 256 << 20
    /// Decoded/encoded ratio beyond which decoding stops as a bomb (once past 1 MiB decoded).
    package var maxDecodingRatio = 1000
    /// Whether to decode content codings at all (to measure `decoded_body`). The `analyze` command
    /// turns it on only with `--decode` (and for HAR and `--summary`); decoding dominates its run time.
    package var decodeBodies = true
    /// Whether `decodeBodies` and `retainedBodyBytes` apply to responses too; off, only request bodies
    /// are decoded and retained (`--summary` reads request bodies only, to tell repeats apart).
    package var readsResponseBodies = true
    /// Body retention: keep each message's first this-many body bytes (decoded) in
    /// `HTTPMessage.retainedBody`, e.g. for HAR's `text`. 0 (the default) keeps nothing.
    package var retainedBodyBytes = 0
    /// Measure each encoded body re-encoded with its codings when its message completes, then drop
    /// the retained body (what the estimators need, without holding bodies until their connection ends).
    package var measureReencodedBodies = false
    /// The re-encoder the analyses of one `CaptureAnalyzer` share when `measureReencodedBodies` is on
    /// (its encoder states and size cache); nil: each analysis makes its own.
    package var bodyReencoder: BodyReencoder?
    /// What an analysis re-encodes bodies with: nil when `measureReencodedBodies` is off.
    var reencoder: BodyReencoder? { measureReencodedBodies ? bodyReencoder ?? BodyReencoder() : nil }

    package init() {}
}

import Glibc

/// Parses the HTTP/1.x messages of one TCP connection incrementally from its reassembled streams
/// (`.up` carries requests, `.down` responses) and reports each message's exact stream bytes.
///
/// The result does not depend on how the bytes are split: lines are checked byte by byte and only the
/// current start line, header line or chunk-size line is buffered (bounded by `maxHeaderBytes`);
/// body bytes are counted and streamed through the content decoder, never kept.
///
/// Semantics in short:
/// - `httpMessageStarted` comes at the message's first byte when the direction is in sync (right after
///   a previous message); at the start of a stream or after lost sync it comes once the start line is
///   seen to be valid (normally within the same packet), with the offset of its first byte.
/// - Empty lines before a start line belong to that message (counted in `startLine`).
/// - Only HTTP/1.x start lines are accepted (`PRI * HTTP/2.0` is not); at the start of a stream and
///   while resynchronising, methods must be upper-case letters, `-` or `_`, so binary data (TLS, SSH)
///   is rejected within a few bytes and reported with `httpUnparsed(from: 0)`.
/// - Gaps inside a body of known length, inside chunk data, or inside a close-delimited body (which
///   runs to the end of the stream anyway) are counted as body (`.gap`). Anywhere else the parser
///   loses sync: the message is finished `.gap` + `.incomplete`, `httpUnparsed` is reported from the
///   gap, and parsing resumes at the next line that is a complete plausible start line
///   (`.resynchronized`). A gap that starts exactly between two messages held at least one message
///   start: a lost response is taken to answer the oldest waiting request, a lost request takes an
///   exchange index, so later requests and responses stay paired.
/// - A request carrying `Upgrade` or using CONNECT holds the client direction (bounded by
///   `maxHeaderBytes`) until its response decides: switched protocols continue as upgraded bytes from
///   the end of the request, anything else resumes HTTP parsing on the held bytes.
/// - `decodedBodyBytes`: nil without a coding, when decoding is off, for unknown codings and for
///   corrupt data or a gap in the body (`.undecodable`); after a bomb stop it is the (lower-bound)
///   count decoded when decoding stopped; for a body whose compressed stream is cut short it is what
///   could be decoded.
package final class HTTP1ConnectionParser: TCPStreamConsumer {
    /// True once a valid start line was seen in either direction.
    package private(set) var isHTTP = false
    /// True once a request came while `HTTPLimits.maxOpenRequests` requests of this connection (or
    /// `maxOpenRequestsTotal` of all connections) were waiting for their response: from its first byte
    /// on, the client direction is not parsed.
    package private(set) var reachedOpenRequestCap = false

    private unowned let delegate: any HTTPParserDelegate
    private let limits: HTTPLimits
    private let up: Side
    private let down: Side
    private var pending: [PendingRequest] = []
    private var pendingHead = 0
    /// The open requests of `pending` counted in `limits.openRequestsTotal` (none once the server's
    /// direction has ended: no response can come).
    private var countedOpenRequests = 0
    private var nextExchange = 0

    /// A parser reporting to `delegate`, which must outlive it (it is not retained).
    package init(limits: HTTPLimits = .init(), delegate: any HTTPParserDelegate) {
        self.limits = limits
        self.delegate = delegate
        up = Side(direction: .up, maxLine: limits.maxHeaderBytes)
        down = Side(direction: .down, maxLine: limits.maxHeaderBytes)
    }

    deinit { releaseOpenRequests() }

    /// Where the bytes whose owner is not decided yet begin: the first byte of a start line that is
    /// still being checked (at the start of a stream or while resynchronising a message is announced
    /// only once its start line is seen to be valid, possibly several packets later); nil when every
    /// byte delivered so far has its owner. The ledger must not attribute bytes from here on yet.
    package func undecidedOffset(_ direction: FlowDirection) -> Int64? {
        // Called per packet: the side passed as the `let` it is (`side(_:)` returns it retained).
        direction == .up ? undecidedOffset(up) : undecidedOffset(down)
    }

    private func undecidedOffset(_ side: Side) -> Int64? {
        guard let message = side.message, !message.announced else { return nil }
        return message.start
    }

    /// How much of exchange `index`'s message in `direction` has been read, while it is the message
    /// being read (nil otherwise: not begun, or finished and delivered).
    package func messageRead(ofExchange index: Int, _ direction: FlowDirection) -> HTTPMessageRead? {
        guard let message = side(direction).message, message.announced, message.exchangeIndex == index else { return nil }
        return HTTPMessageRead(bytes: message.bytes, interimBytes: message.interimBytes)
    }

    // MARK: TCPStreamConsumer

    package func streamData(_ data: UnsafeRawBufferPointer, offset: Int64, direction: FlowDirection, origin: PacketOrigin) {
        // The side passed as the `let` it is (`side(_:)` returns it retained, a retain and a release a packet).
        if direction == .up { streamData(data, offset: offset, up, origin: origin) } else { streamData(data, offset: offset, down, origin: origin) }
    }

    private func streamData(_ data: UnsafeRawBufferPointer, offset: Int64, _ side: Side, origin: PacketOrigin) {
        guard let base = data.baseAddress, !data.isEmpty else { return }
        // The reassembler delivers each offset once, in order; anything else is made consistent here.
        if offset > side.position { gap(side, offset: side.position, length: offset - side.position) }
        let skip = Int(min(max(side.position - offset, 0), Int64(data.count)))
        guard skip < data.count else { return }
        process(side, base.assumingMemoryBound(to: UInt8.self) + skip, data.count - skip, offset: offset + Int64(skip), origin: origin)
    }

    package func streamGap(offset: Int64, length: Int64, direction: FlowDirection, reason: StreamGapReason) {
        let side = side(direction)
        let start = max(offset, side.position)
        guard offset + length > start else { return }
        if start > side.position { gap(side, offset: side.position, length: start - side.position) }
        gap(side, offset: start, length: offset + length - start)
    }

    package func streamEnded(direction: FlowDirection) {
        end(side(direction))
        if direction == .down { releaseOpenRequests() }
    }

    /// The connection is over: every message still open is reported (`.incomplete`, except a
    /// close-delimited body, which the end completes), each exactly once.
    package func finish() {
        end(down)
        end(up)
        releaseOpenRequests()
    }

    // MARK: State

    private enum State {
        case startLine
        case headers
        case body(remaining: Int64)
        case chunkSize
        case chunkData(remaining: Int64)
        case chunkDataEnd(sawCR: Bool)
        case trailers
        case closeDelimited
        /// Client bytes held after a request that may switch protocols, until its response decides.
        case awaitingUpgrade(exchange: Int)
        case upgraded
        case stopped
    }

    /// How a start line is expected.
    private enum StartMode {
        /// Start of the stream: the first line must be a start line (announced once valid).
        case initial
        /// Right after a message: the next byte starts a message (announced at once).
        case inSync
        /// Sync lost: the next plausible start line at a line start (announced once valid).
        case seeking
    }

    private struct PendingRequest {
        var index: Int
        var method = FramingMethod.other
        var end: Int64?
    }

    /// What a request's method means for the framing of its response (RFC 9112 §6.3): a response to
    /// `HEAD` has no body, a 2xx response to `CONNECT` switches the connection. Read once from the
    /// method's bytes, so the response compares no strings.
    private enum FramingMethod {
        case head, connect, other

        /// The case of `method` (its bytes as sent: methods are case-sensitive).
        init(_ method: UnsafeRawBufferPointer) {
            if HTTP1Syntax.equals(method, "HEAD") { self = .head } else if HTTP1Syntax.equals(method, "CONNECT") { self = .connect } else { self = .other }
        }
    }

    private enum Held {
        case data([UInt8], offset: Int64, origin: PacketOrigin)
        case gap(offset: Int64, length: Int64)
    }

    /// The message being parsed. A class, so the parser updates it in place through the side: as a
    /// struct inside an optional, every take-and-put-back (and some reads) moved or copied the whole
    /// builder.
    ///
    /// A finished builder is reused for its direction's next message (`restart`): no allocation and
    /// deallocation per message.
    private final class Builder {
        private(set) var kind: HTTPMessage.Kind
        private(set) var start: Int64
        private(set) var firstOrigin: PacketOrigin
        var lastOrigin: PacketOrigin
        var announced = false
        var exchangeIndex = -1
        /// The request's method read for framing (`.other` for responses).
        var framingMethod = FramingMethod.other
        var status: Int?
        /// The start line's method, target, reason and version, and the `Content-Encoding`: where they
        /// lie in `textBytes`, memory for `textCapacity` bytes kept for the direction's next message like
        /// the fields' storage (freed with the builder).
        private(set) var texts = HTTPMessageTexts()
        private(set) var textBytes = UnsafeMutableRawPointer.allocate(byteCount: Builder.keptTextCapacity, alignment: 1)
        private var textCapacity = Builder.keptTextCapacity
        var headerFields = HTTPHeaderFields()
        /// Positions in `headerFields` of the first and the last `Transfer-Encoding` field, and of the
        /// first and the last `Content-Length` field (only those between them need reading to frame the
        /// body; of a single one, its name is known).
        var transferEncodingHeaders: ClosedRange<Int>?
        var contentLengthHeaders: ClosedRange<Int>?
        /// Position in `headerFields` of the first `Content-Encoding` field.
        var contentEncodingHeader: Int?
        var hasUpgradeHeader = false
        var trailers: [HTTPHeader] = []
        var bytes = HTTPByteCounts()
        var interimCount = 0
        var interimBytes = 0
        var decoder: ContentDecoder?
        /// Body retention (`HTTPLimits.retainedBodyBytes` > 0): the raw body's first bytes when it has
        /// no content coding (the decoder keeps the decoded ones otherwise); nil when not retained.
        var retained: [UInt8]?
        var flags: HTTPMessageFlags = []
        var trailerBytes = 0
        var mayUpgrade = false
        /// The request a final response answers (taken off the queue at its status line).
        var request: PendingRequest?

        init(kind: HTTPMessage.Kind, start: Int64, origin: PacketOrigin) {
            self.kind = kind
            self.start = start
            firstOrigin = origin
            lastOrigin = origin
        }

        deinit { textBytes.deallocate() }

        /// Makes the builder a new message's, exactly as `init` and the properties' initial values make
        /// it, once `finishMessage` has moved its message out (`isMovedOut`): the properties holding
        /// references are already at their initial values then, so only the others are set here (setting
        /// those again would release each one's empty value, a call apiece). Every stored property is
        /// either set here or checked by `isMovedOut`: `restartSetsEveryProperty` counts them, so a property
        /// added without its line in one of the two fails the assertion (debug builds, the tests).
        func restart(kind: HTTPMessage.Kind, start: Int64, origin: PacketOrigin) {
            assert(Self.restartSetsEveryProperty, "Builder.restart: a stored property was added without being reset")
            assert(isMovedOut, "Builder.restart: the finished message was not moved out")
            self.kind = kind
            self.start = start
            firstOrigin = origin
            lastOrigin = origin
            announced = false
            exchangeIndex = -1
            framingMethod = .other
            status = nil
            texts = HTTPMessageTexts()
            if textCapacity > Self.keptTextCapacity { replaceTextBytes(capacity: Self.keptTextCapacity) }
            // The fields' storage is kept for the next message (a message copies its fields into its
            // own allocation), unless an outsized header block grew it.
            if headerFields.capacity > Self.keptHeaderCapacity { headerFields = HTTPHeaderFields() } else { headerFields.removeAll() }
            transferEncodingHeaders = nil
            contentLengthHeaders = nil
            contentEncodingHeader = nil
            hasUpgradeHeader = false
            bytes = HTTPByteCounts()
            interimCount = 0
            interimBytes = 0
            flags = []
            trailerBytes = 0
            mayUpgrade = false
            request = nil
        }

        /// Whether the 3 properties holding references that `restart` leaves alone are at their initial
        /// values (`finishMessage` moves them out; read in debug builds only).
        private var isMovedOut: Bool {
            trailers.isEmpty && decoder == nil && retained == nil
        }

        /// The largest header storage a finished builder keeps for its direction's next message.
        static var keptHeaderCapacity: Int { 16 << 10 }

        /// The texts' memory a builder starts with and the most a finished one keeps: start lines and
        /// codings are short (a longer one grows it for its message).
        static var keptTextCapacity: Int { 256 }

        /// Whether the builder has the 26 stored properties `restart` sets or `isMovedOut` checks (checked
        /// once, in debug builds).
        private static let restartSetsEveryProperty =
            Mirror(reflecting: Builder(kind: .request, start: 0, origin: PacketOrigin(frameNumber: 0, timestamp: Timestamp(nanoseconds: 0))))
                .children.count == 26

        var end: Int64 { start + Int64(interimBytes + bytes.total) }

        /// Adds a header field, noting where the notable ones are. The fields' storage is their own
        /// (`headerFields.makeStorageOwn()` once per run of lines: nothing copies the fields meanwhile).
        @inline(__always)
        func appendHeader(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, _ notable: NotableHeader?) {
            let position = headerFields.count
            headerFields.appendToOwnStorage(name: name, value: value)
            switch notable {
            case .transferEncoding: transferEncodingHeaders = (transferEncodingHeaders?.lowerBound ?? position)...position
            case .contentLength: contentLengthHeaders = (contentLengthHeaders?.lowerBound ?? position)...position
            case .contentEncoding: if contentEncodingHeader == nil { contentEncodingHeader = position }
            case .upgrade: hasUpgradeHeader = true
            case nil: break
            }
        }

        /// Sets the text of `slot` to `text`: as it is when it is ASCII (start-line tokens nearly always
        /// are), else as `String(decoding:as:)` repairs it, so the texts are valid UTF-8.
        func setText(_ slot: HTTPMessageTexts.Slot, _ text: UnsafeRawBufferPointer) {
            guard text.isASCII else {
                var repaired = String(decoding: text, as: UTF8.self)
                return repaired.withUTF8 { storeText(slot, UnsafeRawBufferPointer($0)) }
            }
            storeText(slot, text)
        }

        private func storeText(_ slot: HTTPMessageTexts.Slot, _ text: UnsafeRawBufferPointer) {
            texts.setText(slot, start: storeBytes(text), count: text.count)
        }

        /// Copies `bytes` after the texts' bytes; returns where they start there.
        private func storeBytes(_ bytes: UnsafeRawBufferPointer) -> Int {
            let start = texts.byteCount
            if start &+ bytes.count > textCapacity { replaceTextBytes(capacity: Swift.max(2 &* textCapacity, start &+ bytes.count)) }
            if let source = bytes.baseAddress { (textBytes + start).copyMemory(from: source, byteCount: bytes.count) }
            texts.appendBytes(count: bytes.count)
            return start
        }

        /// Keeps a start line's content `line` whole among the texts' bytes when it is ASCII (the usual
        /// line: one check and one copy for all its tokens) and returns where it starts there, for
        /// `setText(_:_:of:storedAt:)`; nil otherwise (nothing kept).
        func storeStartLine(_ line: UnsafeRawBufferPointer) -> Int? {
            line.isASCII ? storeBytes(line) : nil
        }

        /// Sets the text of `slot` to `range` of `line`: read in place where `storeStartLine` kept the
        /// line (`lineStart`), else stored as `setText(_:_:)` stores it.
        func setText(_ slot: HTTPMessageTexts.Slot, _ range: Range<Int>, of line: UnsafeRawBufferPointer, storedAt lineStart: Int?) {
            guard let lineStart else { return setText(slot, UnsafeRawBufferPointer(rebasing: line[range])) }
            texts.setText(slot, start: lineStart &+ range.lowerBound, count: range.count)
        }

        /// Moves the texts into new memory for `capacity` bytes.
        private func replaceTextBytes(capacity: Int) {
            let bytes = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 1)
            bytes.copyMemory(from: textBytes, byteCount: texts.byteCount)
            textBytes.deallocate()
            textBytes = bytes
            textCapacity = capacity
        }

        /// The text of `slot` as a `String`, nil when it was not set.
        func text(_ slot: HTTPMessageTexts.Slot) -> String? {
            texts.string(slot, in: UnsafeRawBufferPointer(start: textBytes, count: texts.byteCount))
        }

        /// Drops the header fields and the start line's texts (of an interim response).
        func removeHeaders() {
            texts = HTTPMessageTexts()
            headerFields.removeAll()
            transferEncodingHeaders = nil
            contentLengthHeaders = nil
            contentEncodingHeader = nil
            hasUpgradeHeader = false
        }
    }

    private final class Side {
        let direction: FlowDirection
        var state = State.startLine
        var mode = StartMode.initial
        /// Seeking: inside a line that cannot be a start line.
        var skipToLineEnd = false
        var sniffer: StartLineSniffer
        var line: [UInt8] = []
        var lineStart: Int64 = 0
        var message: Builder?
        var ended = false
        var endPending = false
        var held: [Held] = []
        /// The direction's last finished builder, to be restarted for its next message.
        var spare: Builder?
        var heldBytes = 0
        var position: Int64 = 0

        /// The builder of a message beginning at `start`: the spare one when there is one.
        func newMessage(start: Int64, origin: PacketOrigin) -> Builder {
            let kind: HTTPMessage.Kind = direction == .up ? .request : .response
            guard let builder = spare.take() else { return Builder(kind: kind, start: start, origin: origin) }
            builder.restart(kind: kind, start: start, origin: origin)
            return builder
        }

        init(direction: FlowDirection, maxLine: Int) {
            self.direction = direction
            sniffer = StartLineSniffer(isResponse: direction == .down, strict: true, maxLength: maxLine)
            line.reserveCapacity(256)
        }

        /// Forgets the partial line, keeping its memory (no call when there is none: most messages
        /// end with nothing buffered).
        func clearLine() {
            if !line.isEmpty { line.removeAll(keepingCapacity: true) }
        }
    }

    private func side(_ direction: FlowDirection) -> Side { direction == .up ? up : down }

    // MARK: Data

    private func process(_ side: Side, _ p: UnsafePointer<UInt8>, _ n: Int, offset: Int64, origin: PacketOrigin) {
        guard !side.ended || side.endPending else { return }
        if case .awaitingUpgrade = side.state {
            hold(side, .data(Array(UnsafeBufferPointer(start: p, count: n)), offset: offset, origin: origin), n)
            side.position = offset + Int64(n)
            return
        }
        // Messages opened in this packet start with its origin; one open before it continues here.
        side.message?.lastOrigin = origin
        var i = 0
        while i < n {
            switch side.state {
            case .startLine:
                i = startLine(side, p, n, i, offset: offset, origin: origin)
            case .headers:
                if side.line.isEmpty, let message = side.message {
                    i = wholeHeaderLines(side, message, p, n, i)
                    // Done with the packet, or the block ended; else a line cut by the packet's end or
                    // over the cap is left, for `takeLine`.
                    guard i < n, case .headers = side.state else { continue }
                }
                let room = limits.maxHeaderBytes - (side.message.map { $0.bytes.startLine + $0.bytes.headers } ?? 0)
                i = takeLine(side, p, n, i, offset: offset, limit: room, onLine: { headerLine(side, $0) },
                             onOverflow: { tooLarge(side) })
            case let .body(remaining):
                let take = Int(min(Int64(n - i), remaining))
                consumeBody(side, UnsafeRawBufferPointer(start: p + i, count: take))
                i += take
                if remaining == Int64(take) { complete(side) } else { side.state = .body(remaining: remaining - Int64(take)) }
            case .chunkSize:
                i = takeLine(side, p, n, i, offset: offset, limit: limits.maxHeaderBytes, onLine: { chunkSizeLine(side, $0) },
                             onOverflow: { loseSync(side, at: side.lineStart, flags: .malformed, discardLine: true) })
            case let .chunkData(remaining):
                let take = Int(min(Int64(n - i), remaining))
                consumeBody(side, UnsafeRawBufferPointer(start: p + i, count: take))
                i += take
                side.state = remaining == Int64(take) ? .chunkDataEnd(sawCR: false) : .chunkData(remaining: remaining - Int64(take))
            case let .chunkDataEnd(sawCR):
                let byte = p[i]
                if byte == HTTP1Syntax.lf {
                    side.message?.bytes.framing += 1
                    side.state = .chunkSize
                    i += 1
                } else if byte == HTTP1Syntax.cr && !sawCR {
                    side.message?.bytes.framing += 1
                    side.state = .chunkDataEnd(sawCR: true)
                    i += 1
                } else {
                    loseSync(side, at: offset + Int64(i), flags: .malformed)
                    side.skipToLineEnd = true
                }
            case .trailers:
                let room = limits.maxHeaderBytes - (side.message?.trailerBytes ?? 0)
                i = takeLine(side, p, n, i, offset: offset, limit: room, onLine: { trailerLine(side, $0) },
                             onOverflow: { tooLarge(side) })
            case .closeDelimited:
                consumeBody(side, UnsafeRawBufferPointer(start: p + i, count: n - i))
                i = n
            case .awaitingUpgrade:
                hold(side, .data(Array(UnsafeBufferPointer(start: p + i, count: n - i)), offset: offset + Int64(i), origin: origin), n - i)
                i = n
            case .upgraded, .stopped:
                i = n
            }
        }
        side.position = offset + Int64(n)
    }

    /// Counts, decodes and retains body bytes.
    /// The builder is reached through `side.message` in place each time, not held: held across the
    /// decoder's or the array's calls, it was retained and released for every packet of a body.
    private func consumeBody(_ side: Side, _ bytes: UnsafeRawBufferPointer) {
        side.message?.bytes.body += bytes.count
        if side.message?.decoder != nil { side.message?.decoder?.feed(bytes) }
        // Body retention (off when `retainedBodyBytes` is 0): raw bytes of a body without coding.
        if let kept = side.message?.retained?.count, kept < limits.retainedBodyBytes {
            side.message?.retained?.append(contentsOf: bytes.prefix(limits.retainedBodyBytes - kept))
        }
    }

    /// Takes bytes up to and including the next LF; a line not complete yet is buffered.
    private func takeLine(
        _ side: Side, _ p: UnsafePointer<UInt8>, _ n: Int, _ i: Int, offset: Int64, limit: Int,
        onLine: (UnsafeRawBufferPointer) -> Void, onOverflow: () -> Void
    ) -> Int {
        if side.line.isEmpty { side.lineStart = offset + Int64(i) }
        let rest = n - i
        guard let found = memchr(p + i, Int32(HTTP1Syntax.lf), rest) else {
            if side.line.count + rest > limit {
                onOverflow()
                return side.skipToLineEnd ? i : n
            }
            side.line.append(contentsOf: UnsafeBufferPointer(start: p + i, count: rest))
            return n
        }
        let end = UnsafeRawPointer(found) - UnsafeRawPointer(p) + 1
        let length = end - i
        if side.line.count + length > limit {
            onOverflow()
            return side.skipToLineEnd ? i : n
        }
        if side.line.isEmpty {
            onLine(UnsafeRawBufferPointer(start: p + i, count: length))
        } else {
            side.line.append(contentsOf: UnsafeBufferPointer(start: p + i, count: length))
            var taken = side.line
            side.line = []
            taken.withUnsafeBytes { onLine($0) }
            taken.removeAll(keepingCapacity: true)
            if side.line.isEmpty { side.line = taken }
        }
        return end
    }

    // MARK: Start lines

    private func startLine(_ side: Side, _ p: UnsafePointer<UInt8>, _ n: Int, _ start: Int, offset: Int64, origin: PacketOrigin) -> Int {
        var i = start
        if side.skipToLineEnd {
            guard let found = memchr(p + i, Int32(HTTP1Syntax.lf), n - i) else { return n }
            side.skipToLineEnd = false
            return UnsafeRawPointer(found) - UnsafeRawPointer(p) + 1
        }
        if side.sniffer.isFresh, side.message == nil, let taken = wholeStartLine(side, p, n, i, offset: offset, origin: origin) {
            return taken
        }
        while i < n {
            let byte = p[i]
            if side.mode == .seeking && side.sniffer.atLineStart && (byte == HTTP1Syntax.cr || byte == HTTP1Syntax.lf) {
                // Empty lines found while seeking belong to no message.
                side.sniffer.reset(strict: true)
                side.clearLine()
                side.message = nil
                i += 1
                continue
            }
            // The first byte opens the message (its start); the bytes after it are checked in one run.
            let (fed, verdict) = side.message == nil
                ? (1, side.sniffer.feed(byte))
                : side.sniffer.feed(UnsafeBufferPointer(start: p + i, count: n - i))
            if verdict == .rejected {
                // The last byte fed is rejected; the ones before it belong to the line.
                let rejected = i + fed - 1
                side.line.append(contentsOf: UnsafeBufferPointer(start: p + i, count: fed - 1))
                if side.sniffer.isOverLength && side.message?.announced == true {
                    // A start line in sync longer than the header cap.
                    side.message?.bytes.startLine += side.line.count
                    tooLarge(side)
                    return n
                }
                rejectStartLine(side, at: offset + Int64(rejected))
                if p[rejected] == HTTP1Syntax.lf { return rejected + 1 }
                side.skipToLineEnd = true
                return rejected
            }
            let message: Builder
            if let open = side.message {
                message = open
            } else {
                message = side.newMessage(start: offset + Int64(i), origin: origin)
                side.message = message
                if side.mode == .inSync, !announce(side, message) { return n }
            }
            side.line.append(contentsOf: UnsafeBufferPointer(start: p + i, count: fed))
            i += fed
            if verdict == .accepted {
                if announce(side, message) {
                    side.line.withUnsafeBytes { acceptStartLine(side, message, $0, nil) }
                    side.clearLine()
                }
                return i
            }
        }
        return n
    }

    /// A start line lying whole in `p[start..<n]` from its first byte (not an empty line): checked in
    /// one run and read straight from the packet, without copying it into the side's line buffer.
    /// Returns where the line ends, or nil (nothing changed) when the run gives no acceptance there:
    /// the line is cut by the packet's end, rejected or begins with an empty line, for the byte-wise
    /// path. The verdict is the same: the sniffer takes the run byte by byte where it cannot take it
    /// at once, and the first byte fed alone (as that path does, to open the message) is fed the same.
    private func wholeStartLine(_ side: Side, _ p: UnsafePointer<UInt8>, _ n: Int, _ start: Int, offset: Int64, origin: PacketOrigin) -> Int? {
        let first = p[start]
        guard first != HTTP1Syntax.cr, first != HTTP1Syntax.lf else { return nil }
        // The usual shape straight to its tokens (the sniffer, untouched, is reset before the next start
        // line); else the sniffer's run, undone when it does not accept.
        let tokens = HTTP1Syntax.wholeStartLine(p + start, n &- start, isResponse: side.direction == .down,
                                                strict: side.sniffer.strict, maxLength: side.sniffer.maxLength)
        let length: Int
        if let tokens {
            length = tokens.length
        } else {
            let before = side.sniffer
            let (fed, verdict) = side.sniffer.feed(UnsafeBufferPointer(start: p + start, count: n &- start))
            guard verdict == .accepted else {
                side.sniffer = before
                return nil
            }
            length = fed
        }
        let message = side.newMessage(start: offset + Int64(start), origin: origin)
        side.message = message
        // A request past the open-request cap stops the direction instead (the byte-wise path stops it
        // at the line's first byte in sync, at its end otherwise: the same calls either way).
        if announce(side, message) { acceptStartLine(side, message, UnsafeRawBufferPointer(start: p + start, count: length), tokens) }
        return start &+ length
    }

    /// Reports the start of `message`, the side's message, and gives it its exchange index; false when it
    /// is a request past the cap on open requests (the client direction stops instead). The callers hold
    /// the builder, so it is passed (reading `side.message` again would retain and release it).
    private func announce(_ side: Side, _ message: Builder) -> Bool {
        guard !message.announced else { return true }
        if message.kind == .request
            && (pending.count - pendingHead >= limits.maxOpenRequests || limits.openRequestsTotal?.isExhausted == true)
        {
            stopAtOpenRequestCap(side)
            return false
        }
        message.announced = true
        if side.mode == .seeking { message.flags.insert(.resynchronized) }
        if message.kind == .request {
            message.exchangeIndex = nextExchange
            nextExchange += 1
            appendPending(PendingRequest(index: message.exchangeIndex))
        } else if pendingHead < pending.count {
            message.exchangeIndex = pending[pendingHead].index
        } else {
            message.exchangeIndex = nextExchange
            nextExchange += 1
        }
        delegate.httpMessageStarted(direction: side.direction, offset: message.start, exchangeIndex: message.exchangeIndex)
        return true
    }

    /// A request starts while `maxOpenRequests` wait for their response: it and the rest of the client
    /// direction are not parsed (their bytes are unattributed), as past a header block over the cap.
    /// The open requests keep their place in the queue, so the responses still pair with them in order.
    private func stopAtOpenRequestCap(_ side: Side) {
        reachedOpenRequestCap = true
        delegate.httpUnparsed(direction: side.direction, from: side.message?.start ?? side.position)
        side.message = nil
        side.clearLine()
        side.state = .stopped
    }

    /// The start line `raw` (with the empty lines before it and its line end) was accepted and its
    /// message, the side's `message`, announced; `tokens`: where its tokens end when
    /// `HTTP1Syntax.wholeStartLine` read it.
    private func acceptStartLine(_ side: Side, _ message: Builder, _ raw: UnsafeRawBufferPointer, _ tokens: StartLineTokens?) {
        isHTTP = true
        let text = HTTP1Syntax.content(UnsafeRawBufferPointer(rebasing: raw[side.sniffer.leading...]))
        message.bytes.startLine += raw.count
        if message.kind == .request {
            let first, last: Int
            if let tokens {
                (first, last) = (tokens.methodEnd, tokens.targetEnd)
            } else {
                first = text.firstIndex(of: HTTP1Syntax.space) ?? 0
                last = text.lastIndex(of: HTTP1Syntax.space) ?? text.count
            }
            let stored = message.storeStartLine(text)
            message.setText(.method, 0..<first, of: text, storedAt: stored)
            message.framingMethod = FramingMethod(UnsafeRawBufferPointer(rebasing: text[0..<first]))
            message.setText(.target, (first + 1)..<max(first + 1, last), of: text, storedAt: stored)
            message.setText(.version, min(last + 1, text.count)..<text.count, of: text, storedAt: stored)
            if let index = pendingIndex(message.exchangeIndex) { pending[index].method = message.framingMethod }
        } else {
            let stored = message.storeStartLine(text)
            message.setText(.version, 0..<8, of: text, storedAt: stored)
            // Three digits (the sniffer checked them).
            message.status = (Int(text[9]) - 48) * 100 + (Int(text[10]) - 48) * 10 + Int(text[11]) - 48
            message.setText(.reason, min(13, text.count)..<text.count, of: text, storedAt: stored)
            let status = message.status ?? 0
            let interim = status >= 100 && status < 200 && status != 101
            if !interim && pendingHead < pending.count && pending[pendingHead].index == message.exchangeIndex {
                message.request = pending[pendingHead]
                popPending()
            }
        }
        side.mode = .inSync
        side.state = .headers
    }

    /// The bytes at `offset` cannot start (or continue) a start line.
    private func rejectStartLine(_ side: Side, at offset: Int64) {
        if let message = side.message, message.announced {
            side.message?.bytes.startLine += side.line.count
            side.clearLine()
            let end = finishMessage(side, adding: [.malformed, .incomplete])
            delegate.httpUnparsed(direction: side.direction, from: end)
        } else if side.mode != .seeking {
            delegate.httpUnparsed(direction: side.direction, from: side.message?.start ?? offset)
        }
        seek(side)
    }

    private func seek(_ side: Side) {
        side.message = nil
        side.state = .startLine
        side.mode = .seeking
        side.skipToLineEnd = false
        side.sniffer.reset(strict: true)
        side.clearLine()
    }

    // MARK: Header blocks

    /// The header lines lying whole in `p[start..<n]` (the common case: nothing of the line buffered
    /// before), read straight from the packet with the builder held once for all of them; returns
    /// where it stopped: at `n`, after the block's empty line (`headersComplete` ran), or at a line cut
    /// by the packet's end or longer than the room left under the cap (for `takeLine`, which buffers
    /// or refuses it exactly as before).
    ///
    /// The room under the cap is read once and the lines' bytes counted into the message's once (before
    /// `headersComplete`, which reads them, or on leaving); the fields' storage is made the builder's
    /// own once for the run.
    private func wholeHeaderLines(_ side: Side, _ message: Builder, _ p: UnsafePointer<UInt8>, _ n: Int, _ start: Int) -> Int {
        var i = start
        let room = limits.maxHeaderBytes - (message.bytes.startLine + message.bytes.headers)
        var taken = 0
        message.headerFields.makeStorageOwn()
        while i < n, let found = memchr(p + i, Int32(HTTP1Syntax.lf), n &- i) {
            let end = UnsafeRawPointer(found) - UnsafeRawPointer(p) &+ 1
            let length = end &- i
            guard length <= room &- taken else { break }
            taken &+= length
            // The content: without the LF, and a CR before it (`HTTP1Syntax.content`).
            var contentEnd = end &- 1
            if contentEnd > i && p[contentEnd &- 1] == HTTP1Syntax.cr { contentEnd &-= 1 }
            if contentEnd == i {
                message.bytes.headers += taken
                headersComplete(side, message)
                return end
            }
            headerField(side, message, UnsafeRawBufferPointer(start: p + i, count: contentEnd &- i))
            i = end
        }
        message.bytes.headers += taken
        return i
    }

    /// A header line buffered across packets (`takeLine`'s), with its line end.
    private func headerLine(_ side: Side, _ line: UnsafeRawBufferPointer) {
        guard let message = side.message else { return }
        message.bytes.headers += line.count
        let text = HTTP1Syntax.content(line)
        if text.isEmpty {
            headersComplete(side, message)
            return
        }
        message.headerFields.makeStorageOwn()
        headerField(side, message, text)
    }

    /// A header line's content (without its line end, not empty): a field, the continuation of the
    /// last one, or malformed.
    @inline(__always)
    private func headerField(_ side: Side, _ message: Builder, _ text: UnsafeRawBufferPointer) {
        let first = text.load(as: UInt8.self)
        if first == HTTP1Syntax.space || first == HTTP1Syntax.tab, !message.headerFields.isEmpty {
            continuedLine(message, text)
        } else if let fields = HTTP1Syntax.headerFields(content: text) {
            message.appendHeader(name: fields.name, value: fields.value, NotableHeader(name: fields.name))
        } else {
            message.flags.insert(.malformed)
        }
    }

    /// Obsolete line folding (rare): the line continues the previous value, trimmed as text.
    private func continuedLine(_ message: Builder, _ text: UnsafeRawBufferPointer) {
        var more = String(decoding: text, as: UTF8.self).trimmingHTTPWhitespace()
        more.withUTF8 { message.headerFields.continueLastValue(UnsafeRawBufferPointer($0)) }
    }

    private func trailerLine(_ side: Side, _ line: UnsafeRawBufferPointer) {
        guard let message = side.message else { return }
        message.bytes.framing += line.count
        message.trailerBytes += line.count
        if HTTP1Syntax.content(line).isEmpty {
            complete(side)
        } else if let header = HTTP1Syntax.header(line) {
            message.trailers.append(header)
        }
    }

    private func chunkSizeLine(_ side: Side, _ line: UnsafeRawBufferPointer) {
        guard let size = HTTP1Syntax.chunkSize(line) else {
            loseSync(side, at: side.lineStart, flags: .malformed)
            return
        }
        side.message?.bytes.framing += line.count
        side.state = size == 0 ? .trailers : .chunkData(remaining: size)
    }

    private enum Framing { case none, length(Int64), chunked, closeDelimited, invalid }

    private func framing(_ message: Builder, isRequest: Bool) -> Framing {
        /// Whether the last transfer coding named is `chunked` (nil: none named).
        var lastCodingIsChunked: Bool?
        var length: Int64?
        var invalidLength = false
        let fields = message.headerFields
        // Transfer codings in field order (the last one named decides), then the lengths: what one
        // kind says does not depend on where the other's fields are.
        if let positions = message.transferEncodingHeaders {
            for position in positions where positions.count == 1 || fields.nameEquals(at: position, "transfer-encoding") {
                if let chunked = fields.withValue(at: position, HTTP1Syntax.lastCodingIsChunked) {
                    lastCodingIsChunked = chunked
                }
            }
        }
        if let positions = message.contentLengthHeaders {
            for position in positions where positions.count == 1 || fields.nameEquals(at: position, "content-length") {
                fields.withValue(at: position) {
                    HTTP1Syntax.readContentLength($0, into: &length, invalid: &invalidLength)
                }
            }
        }
        if let lastCodingIsChunked {
            if lastCodingIsChunked { return .chunked }
            return isRequest ? .invalid : .closeDelimited
        }
        if invalidLength { return .invalid }
        if let length { return .length(length) }
        return isRequest ? .none : .closeDelimited
    }

    /// The header block of `message`, the side's message, ended. Its callers hold the builder, so it is
    /// passed (reading `side.message` again would retain and release it).
    private func headersComplete(_ side: Side, _ message: Builder) {
        var body: Framing
        if message.kind == .request {
            body = framing(message, isRequest: true)
            message.mayUpgrade = message.framingMethod == .connect || message.hasUpgradeHeader
        } else {
            let status = message.status ?? 0
            if status >= 100 && status < 200 && status != 101 {
                // An interim response: the final one follows as part of the same message.
                message.interimCount += 1
                message.interimBytes += message.bytes.total
                message.bytes = HTTPByteCounts()
                message.removeHeaders()
                message.flags.remove(.malformed)
                side.state = .startLine
                side.mode = .inSync
                side.sniffer.reset(strict: false)
                return
            }
            let request = message.request
            let method = request?.method ?? .other
            if status == 101 || (method == .connect && status >= 200 && status < 300) {
                message.flags.insert(.upgrade)
                let end = finishMessage(side, adding: [])
                side.state = .upgraded
                delegate.httpUpgraded(direction: .down, from: end, exchangeIndex: message.exchangeIndex)
                upgradeClient(message.exchangeIndex, requestEnd: request?.end)
                return
            }
            if method == .head || status == 204 || status == 304 {
                body = .none
            } else {
                body = framing(message, isRequest: false)
            }
        }
        if let position = message.contentEncodingHeader {
            message.headerFields.withValue(at: position) { message.setText(.contentEncoding, $0) }
        }
        if (message.kind == .request || limits.readsResponseBodies) && (limits.decodeBodies || limits.retainedBodyBytes > 0) {
            prepareBodyReading(message, body)
        }
        switch body {
        case .none, .length(0):
            complete(side)
        case let .length(length):
            side.state = .body(remaining: length)
        case .chunked:
            side.state = .chunkSize
        case .closeDelimited:
            side.message?.flags.insert(.closeDelimited)
            side.state = .closeDelimited
        case .invalid:
            loseSync(side, at: message.end, flags: .malformed)
        }
        if message.kind == .response { resumeHeldClientIfAnswered() }
    }

    /// Sets up decoding (`decodeBodies`) and retention (`retainedBodyBytes`) of the body of `message`,
    /// framed as `body`, when its direction's bodies are read. Apart, so a header block with neither
    /// holds no coding `String`.
    private func prepareBodyReading(_ message: Builder, _ body: Framing) {
        let coding = message.text(.contentEncoding)
        switch body {
        case .none, .invalid: break
        default:
            if limits.decodeBodies, let coding { message.decoder = ContentDecoder(contentEncoding: coding, limits: limits) }
        }
        // Body retention: raw bytes when there is no coding, else what the decoder produces.
        if limits.retainedBodyBytes > 0 {
            message.retained = message.decoder == nil && coding.map(ContentDecoder.isIdentity) != false
                ? [] : nil
            message.decoder?.retainLimit = limits.retainedBodyBytes
        }
    }

    // MARK: Ending messages

    /// The message ended cleanly; the next byte starts another.
    private func complete(_ side: Side) {
        let wasRequest = side.message?.kind == .request
        let mayUpgrade = side.message?.mayUpgrade ?? false
        let index = side.message?.exchangeIndex ?? -1
        let end = finishMessage(side, adding: [])
        side.state = .startLine
        side.mode = .inSync
        side.sniffer.reset(strict: false)
        side.clearLine()
        if wasRequest, let position = pendingIndex(index) {
            pending[position].end = end
            if mayUpgrade { side.state = .awaitingUpgrade(exchange: index) }
        }
    }

    /// Reports the message being built (if announced); returns where it ends on the stream.
    @discardableResult
    private func finishMessage(_ side: Side, adding flags: HTTPMessageFlags) -> Int64 {
        guard let built = side.message.take() else { return side.position }
        guard built.announced else { return built.start }
        built.flags.formUnion(flags)
        if built.kind == .response, built.request == nil, built.flags.contains(.incomplete),
            pendingHead < pending.count, pending[pendingHead].index == built.exchangeIndex
        {
            // Cut before its status line was known: taken as the answer, so the next response pairs on.
            popPending()
        }
        var decoded: Int?
        var retained = built.retained.take()
        if let decoder = built.decoder.take() {
            let result = decoder.result(bodyBytes: built.bytes.body)
            decoded = result.decoded
            built.flags.formUnion(result.flags)
            if limits.retainedBodyBytes > 0 && result.flags.isEmpty && decoded != nil { retained = decoder.retained }
        }
        if built.flags.contains(.gap) { retained = nil }
        let end = built.end
        // The builder is restarted after this: everything holding a reference is moved out, not copied (no
        // retain here, no release when it restarts: `restart` leaves these alone); its header fields are
        // copied into the message's allocation with its texts, and their storage kept for the next message.
        var trailers: [HTTPHeader] = []
        swap(&trailers, &built.trailers)
        let message = HTTPMessage(
            kind: built.kind, exchangeIndex: built.exchangeIndex, streamRange: built.start..<end, status: built.status,
            texts: built.texts, textBytes: built.textBytes, headers: built.headerFields, trailers: trailers,
            bytes: built.bytes, interimCount: built.interimCount, interimBytes: built.interimBytes,
            firstOrigin: built.firstOrigin, lastOrigin: built.lastOrigin, decodedBodyBytes: decoded, flags: built.flags,
            retainedBody: retained)
        delegate.httpMessageFinished(message, direction: side.direction)
        // Reused for the direction's next message (callers still reading this one's index or kind
        // are done before another message starts on this side).
        side.spare = built
        return end
    }

    /// Counts a partial line buffered so far into the message being built.
    private func countPartialLine(_ side: Side) {
        let count = side.line.count
        side.clearLine()
        guard count > 0, side.message?.announced == true else { return }
        switch side.state {
        case .startLine: side.message!.bytes.startLine += count
        case .headers: side.message!.bytes.headers += count
        case .chunkSize, .trailers: side.message!.bytes.framing += count
        default: break
        }
    }

    /// Sync is lost at `offset`: the message being built ends there (incomplete) and the bytes from
    /// there on are unparsed until a plausible start line is found.
    private func loseSync(_ side: Side, at offset: Int64, flags: HTTPMessageFlags, discardLine: Bool = false) {
        if discardLine { side.clearLine() } else { countPartialLine(side) }
        if let message = side.message, message.announced {
            let end = finishMessage(side, adding: flags.union(.incomplete))
            delegate.httpUnparsed(direction: side.direction, from: end)
        } else if !(side.mode == .seeking && isStartLine(side.state)) {
            delegate.httpUnparsed(direction: side.direction, from: side.message?.start ?? offset)
        }
        seek(side)
        if discardLine { side.skipToLineEnd = true }
        if side === down { resumeHeldClientIfAnswered() }
    }

    private func isStartLine(_ state: State) -> Bool {
        if case .startLine = state { return true }
        return false
    }

    /// The header (or trailer) block is over the cap: the rest of the direction is not parsed.
    private func tooLarge(_ side: Side) {
        side.clearLine()
        let end = finishMessage(side, adding: [.headersTooLarge, .incomplete])
        delegate.httpUnparsed(direction: side.direction, from: end)
        side.state = .stopped
        if side === down { resumeHeldClientIfAnswered() }
    }

    // MARK: Gaps and ends

    private func gap(_ side: Side, offset: Int64, length: Int64) {
        guard !side.ended || side.endPending else { return }
        side.position = offset + length
        switch side.state {
        case let .body(remaining):
            let take = min(length, remaining)
            bodyGap(side, take)
            if take == remaining {
                complete(side)
                if length > take { gap(side, offset: offset + take, length: length - take) }
            } else {
                side.state = .body(remaining: remaining - take)
            }
        case let .chunkData(remaining):
            let take = min(length, remaining)
            bodyGap(side, take)
            if take == remaining {
                side.state = .chunkDataEnd(sawCR: false)
                if length > take { loseSync(side, at: offset + take, flags: .gap) }
            } else {
                side.state = .chunkData(remaining: remaining - take)
            }
        case .closeDelimited:
            bodyGap(side, length)
        case .awaitingUpgrade:
            hold(side, .gap(offset: offset, length: length), 0)
        case .upgraded, .stopped:
            break
        case .startLine:
            // A gap starting right between two messages holds the start of at least one message.
            // (At the stream start, a start line cut before it could be recognised counts as lost too.)
            if side.mode != .seeking && side.message?.announced != true { accountLostMessage(side) }
            loseSync(side, at: offset, flags: .gap)
        case .headers, .chunkSize, .chunkDataEnd, .trailers:
            loseSync(side, at: offset, flags: .gap)
        }
    }

    private func bodyGap(_ side: Side, _ length: Int64) {
        guard side.message != nil else { return }
        side.message!.bytes.body += Int(length)
        side.message!.flags.insert(.gap)
        side.message!.decoder?.noteGap()
    }

    private func end(_ side: Side) {
        guard !side.ended else { return }
        side.ended = true
        if case .awaitingUpgrade = side.state {
            // Decided by the response; if none can come, parse the held bytes now.
            side.endPending = true
            if down.ended || !canAnswer(down) { resumeHeld() }
            return
        }
        switch side.state {
        case .closeDelimited:
            finishMessage(side, adding: [])
        default:
            if let message = side.message {
                if message.announced {
                    countPartialLine(side)
                    finishMessage(side, adding: .incomplete)
                } else if side.mode == .initial {
                    delegate.httpUnparsed(direction: side.direction, from: message.start)
                }
            }
        }
        side.message = nil
        side.line.removeAll()
        side.state = .stopped
        if side === down { resumeHeldClientIfAnswered() }
    }

    // MARK: Exchanges and upgrades

    private func pendingIndex(_ exchange: Int) -> Int? {
        var position = pending.count - 1
        while position >= pendingHead {
            if pending[position].index == exchange { return position }
            position -= 1
        }
        return nil
    }

    /// At least one whole message start was lost in a gap: a lost response answered the oldest waiting
    /// request; a lost request gets an exchange index (without a request) so responses stay paired.
    private func accountLostMessage(_ side: Side) {
        if side.direction == .down {
            if pendingHead < pending.count { popPending() }
        } else {
            appendPending(PendingRequest(index: nextExchange))
            nextExchange += 1
        }
    }

    private func appendPending(_ request: PendingRequest) {
        pending.append(request)
        countedOpenRequests += 1
        limits.openRequestsTotal?.add(1)
    }

    private func popPending() {
        if countedOpenRequests > 0 {
            countedOpenRequests -= 1
            limits.openRequestsTotal?.add(-1)
        }
        pendingHead += 1
        if pendingHead > 32 && pendingHead * 2 > pending.count {
            pending.removeFirst(pendingHead)
            pendingHead = 0
        }
    }

    /// Gives the open requests back to the total once no response can come any more (the server's
    /// direction ended) or the parser goes: the connection is about to be written and dropped.
    private func releaseOpenRequests() {
        limits.openRequestsTotal?.add(-countedOpenRequests)
        countedOpenRequests = 0
    }

    /// Switches the client direction after the response to `exchange` switched protocols.
    private func upgradeClient(_ exchange: Int, requestEnd: Int64?) {
        guard let requestEnd else { return }
        var switchable = false
        if case let .awaitingUpgrade(held) = up.state, held == exchange {
            switchable = true
        } else if isStartLine(up.state), up.mode == .inSync, up.message == nil, up.line.isEmpty, up.position == requestEnd {
            switchable = true
        }
        guard switchable else { return }
        up.held = []
        up.heldBytes = 0
        up.state = .upgraded
        delegate.httpUpgraded(direction: .up, from: requestEnd, exchangeIndex: exchange)
    }

    private func hold(_ side: Side, _ item: Held, _ count: Int) {
        side.held.append(item)
        side.heldBytes += count
        if side.heldBytes > limits.maxHeaderBytes { resumeHeld() }
    }

    private func canAnswer(_ side: Side) -> Bool {
        switch side.state {
        case .upgraded, .stopped: return false
        default: return !side.ended
        }
    }

    /// Parses the held client bytes as HTTP when the awaited response is known not to switch protocols
    /// (or cannot come any more).
    private func resumeHeldClientIfAnswered() {
        guard case let .awaitingUpgrade(exchange) = up.state else { return }
        if pendingIndex(exchange) == nil || !canAnswer(down) { resumeHeld() }
    }

    private func resumeHeld() {
        guard case .awaitingUpgrade = up.state else { return }
        up.state = .startLine
        up.mode = .inSync
        up.sniffer.reset(strict: false)
        let items = up.held
        up.held = []
        up.heldBytes = 0
        let wasEnded = up.endPending
        up.endPending = wasEnded
        for item in items {
            switch item {
            case let .data(bytes, offset, origin):
                bytes.withUnsafeBufferPointer { buffer in
                    process(up, buffer.baseAddress!, buffer.count, offset: offset, origin: origin)
                }
            case let .gap(offset, length):
                gap(up, offset: offset, length: length)
            }
        }
        if wasEnded, case .awaitingUpgrade = up.state {
            // Another request of the held bytes waits again; the end is kept pending.
            return
        }
        if wasEnded {
            up.endPending = false
            up.ended = false
            end(up)
        }
    }
}


/// Parses the HTTP/2 frames of one connection incrementally from its two plaintext byte streams
/// (`.up` client → server, `.down` server → client), gives every stream an exchange and reports, per
/// direction, who owns every byte (`HTTP2ParserDelegate.http2Bytes`) and each message once its stream
/// is over (`http2MessageFinished`).
///
/// The result does not depend on how the bytes are split: only a frame header (9 bytes), a frame's
/// fixed fields (≤ 8 bytes) and the header block being gathered are kept; DATA payloads are counted
/// and streamed through the content decoder, never kept.
///
/// Semantics in short:
/// - The client direction starts with the 24-byte preface (`.connection(.preface)`), then frames; a
///   direction that does not start that way (a capture begun mid-connection) is read as after lost
///   sync, except that a frame may start at its very first byte. The server's first frame must be
///   SETTINGS, else its start is taken as mid-connection too.
/// - Streams get exchange indices in order of first appearance: the client's HEADERS opening an idle
///   odd stream, a PUSH_PROMISE's promised stream. Once history was lost (no preface, a gap, lost
///   sync) DATA or HEADERS on an unknown stream that was not recently closed opens it too (its
///   messages are `.resynchronized`, and `.gap` when their first frame is not HEADERS).
/// - A stream's messages are reported when the stream is over: END_STREAM in both directions (the
///   client's request then typically holds the WINDOW_UPDATEs it sent while the response came), a
///   RST_STREAM from either side, a GOAWAY refusing it (its id is above the GOAWAY's last stream id
///   and the GOAWAY's sender was to process it: `refused`), the end of the direction that had yet to
///   end it (`.incomplete`), or `finish()`; a frame of the stream being read in the other direction
///   at that moment is read to its end first (and a header block to its END_HEADERS). Frames that
///   begin on a stream after that (a RST_STREAM sent after both END_STREAMs, DATA still in flight
///   after a server's reset) are `.connection(.other)`, except the server's frames on a stream the
///   client cancelled (its RST_STREAM while the response was not complete: reported at once,
///   `http2StreamCancelled`), which are still that exchange's: `.cancelledStream`.
/// - Frames of unknown type are ignored as RFC 9113 requires and are `.connection(.unknown)` whatever
///   their stream.
/// - A frame longer than the receiver's SETTINGS_MAX_FRAME_SIZE (the largest it advertised; 16384
///   before) is a framing error: sync is dropped at its first byte. Gaps inside a frame's payload keep
///   sync (DATA counts them as body, `.gap`; a header block loses its HPACK state); a gap that covers a
///   frame header drops it. Without sync the bytes are `.unparsed` until a position validates as a
///   frame header (`HTTP2ResyncRule`); the frame found is read normally.
/// - HPACK: one decoder per direction (`HTTP2HeaderBlockDecoder`, which documents the caps and how
///   decoding resumes after lost bytes). Every header block is decoded, also those of frames that
///   belong to no exchange, so the dynamic table stays in step.
/// - Open streams are capped at `HTTPLimits.maxOpenRequests`: a stream beyond it is not followed (its
///   frames are `.connection(.other)`, `connectionInfo.streamsOverCap`). Closed stream state is
///   dropped, except the ids of the last 64.
package final class HTTP2ConnectionParser: TCPStreamConsumer {
    private unowned let delegate: any HTTP2ParserDelegate
    let limits: HTTPLimits
    let up: HTTP2DirectionState
    let down: HTTP2DirectionState
    var streams: HTTP2StreamTable
    package internal(set) var connectionInfo = HTTP2ConnectionInfo()
    /// The start of the connection was not seen, or bytes were lost since: streams may be found
    /// without their opening frame.
    var historyLost = false

    /// The 24-byte client connection preface.
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    package init(limits: HTTPLimits, delegate: HTTP2ParserDelegate, upgradedStream: HTTP2UpgradedStream? = nil) {
        self.limits = limits
        self.delegate = delegate
        up = HTTP2DirectionState(direction: .up, maxHeaderBytes: limits.maxHeaderBytes)
        down = HTTP2DirectionState(direction: .down, maxHeaderBytes: limits.maxHeaderBytes)
        streams = HTTP2StreamTable(firstExchange: upgradedStream.map { $0.exchangeIndex + 1 } ?? 0)
        if let upgradedStream {
            streams.open(1, clientSendsRequest: false, joined: false, exchangeIndex: upgradedStream.exchangeIndex)
            connectionInfo.streams += 1
        }
    }

    /// Per direction and frame type: frames and bytes (9-byte header included); the client preface separately.
    package var frameTotals: DirectionPair<HTTP2FrameTotals> { DirectionPair(up.totals, down.totals) }

    /// Where the bytes of `direction` whose owner is not decided yet begin (a frame header not complete
    /// yet, a PUSH_PROMISE whose promised stream id is not read yet, bytes that may begin a frame while
    /// resynchronising, the preface being matched); nil when every byte fed has its owner. An owner run
    /// reported later may start before the end of the bytes fed so far, never before this offset.
    package func undecidedOffset(_ direction: FlowDirection) -> Int64? { side(direction).undecidedOffset }

    func side(_ direction: FlowDirection) -> HTTP2DirectionState { direction == .up ? up : down }

    // MARK: Input

    package func streamData(_ data: UnsafeRawBufferPointer, offset: Int64, direction: FlowDirection, origin: PacketOrigin) {
        guard let base = data.baseAddress, !data.isEmpty else { return }
        let side = side(direction)
        if case .ended = side.phase { return }
        if !side.started { start(side, at: offset) }
        if offset > side.position { gap(side, length: offset - side.position) }
        // Each offset is taken once: bytes before the position were delivered already.
        let skip = Int(min(max(side.position - offset, 0), Int64(data.count)))
        guard skip < data.count else { return }
        read(side, base.assumingMemoryBound(to: UInt8.self) + skip, data.count - skip, origin: origin)
    }

    package func streamGap(offset: Int64, length: Int64, direction: FlowDirection, reason: StreamGapReason) {
        let side = side(direction)
        if case .ended = side.phase { return }
        if !side.started { start(side, at: offset) }
        let end = offset + max(length, 0)
        guard end > side.position else { return }
        gap(side, length: end - side.position)
    }

    package func streamEnded(direction: FlowDirection) {
        let side = side(direction)
        if case .ended = side.phase { return }
        endDirection(side)
    }

    /// Both directions ended: every stream still open ends (`.incomplete` where no END_STREAM came).
    package func finish() {
        streamEnded(direction: .up)
        streamEnded(direction: .down)
        for stream in streams.openInOrder { close(stream) }
    }

    // MARK: Reading

    private func start(_ side: HTTP2DirectionState, at offset: Int64) {
        side.started = true
        side.position = offset
        side.unparsedStart = offset
    }

    /// Reads `n` bytes at the direction's position.
    private func read(_ side: HTTP2DirectionState, _ p: UnsafePointer<UInt8>, _ n: Int, origin: PacketOrigin) {
        var i = 0
        while i < n {
            switch side.phase {
            case .preface(let matched):
                i = readPreface(side, p, n, i, matched: matched, origin: origin)
            case .frameHeader:
                i = readFrameHeader(side, p, n, i, origin: origin)
            case .payload:
                i = readPayload(side, p, n, i, origin: origin)
            case .seeking:
                i = seek(side, p, n, i, origin: origin)
            case .ended:
                i = n
            }
        }
    }

    private func readPreface(_ side: HTTP2DirectionState, _ p: UnsafePointer<UInt8>, _ n: Int, _ start: Int, matched: Int, origin: PacketOrigin) -> Int {
        var i = start, matched = matched
        let preface = Self.preface
        while i < n && matched < preface.count {
            guard p[i] == preface[matched] else {
                // Not the preface: a capture begun mid-connection (a frame may start at the first byte).
                let prefaceStart = side.position - Int64(matched)
                loseHistory()
                if matched == 0 {
                    side.seekingAtStart = true
                } else {
                    reportUnparsed(side, from: prefaceStart)
                    connectionInfo.unparsedBytes.update(side.direction.rawValue) { $0 += Int64(matched) }
                }
                side.unparsedStart = prefaceStart
                side.phase = .seeking
                return i
            }
            matched += 1
            i += 1
            side.position += 1
        }
        if matched == preface.count {
            side.totals.prefaceBytes = preface.count
            connectionInfo.sawPreface = true
            report(side, .connection(.preface), from: side.position - Int64(matched))
            side.phase = .frameHeader
        } else {
            side.phase = .preface(matched: matched)
        }
        return i
    }

    private func readFrameHeader(_ side: HTTP2DirectionState, _ p: UnsafePointer<UInt8>, _ n: Int, _ start: Int, origin: PacketOrigin) -> Int {
        if side.scratch.count == 0 && n - start >= HTTP2FrameHeader.size {
            let header = HTTP2FrameHeader(p + start)
            side.position += Int64(HTTP2FrameHeader.size)
            beginFrame(side, header, start: side.position - Int64(HTTP2FrameHeader.size), origin: origin)
            return start + HTTP2FrameHeader.size
        }
        var i = start
        if side.scratch.count == 0 {
            side.scratchStart = side.position
            side.scratchOrigin = origin
        }
        while i < n && side.scratch.count < HTTP2FrameHeader.size {
            side.scratch.append(p[i])
            i += 1
            side.position += 1
        }
        if side.scratch.count == HTTP2FrameHeader.size {
            let header = side.scratch.withBytes { bytes, _ in HTTP2FrameHeader(bytes) }
            side.scratch.removeAll()
            beginFrame(side, header, start: side.scratchStart, origin: side.scratchOrigin)
        }
        return i
    }

    private func readPayload(_ side: HTTP2DirectionState, _ p: UnsafePointer<UInt8>, _ n: Int, _ start: Int, origin: PacketOrigin) -> Int {
        guard let remaining = side.frame.map({ $0.header.length - $0.consumed }), remaining > 0 else {
            completeFrame(side)
            return start
        }
        let take = min(remaining, n - start)
        side.position += Int64(take)
        payload(side, UnsafeRawBufferPointer(start: p + start, count: take), count: take, origin: origin)
        return start + take
    }

    // MARK: Resynchronising

    /// The rule a position must pass to be taken as a frame start in `side`.
    private func resyncRule(_ side: HTTP2DirectionState) -> HTTP2ResyncRule {
        let highest = streams.highestID
        let limit: UInt32 = highest == 0 ? 1 << 24 : highest &+ min(1 << 16, UInt32(Int32.max) - highest)
        return HTTP2ResyncRule(maxFrameSize: side.maxFrameSize, maxStreamID: limit)
    }

    /// Looks for a frame start in the carried bytes and then in `p[start..<n]`.
    private func seek(_ side: HTTP2DirectionState, _ p: UnsafePointer<UInt8>, _ n: Int, _ start: Int, origin: PacketOrigin) -> Int {
        let rule = resyncRule(side)
        // Positions in the carried bytes, completed with the first bytes of this buffer.
        while side.scratch.count > 0 {
            var window = side.scratch
            var taken = 0
            while window.count < HTTP2FrameHeader.size && start + taken < n {
                window.append(p[start + taken])
                taken += 1
            }
            let verdict = window.withBytes { bytes, count -> Bool? in
                guard rule.couldBegin(bytes, count: count) else { return false }
                return count == HTTP2FrameHeader.size ? true : nil
            }
            switch verdict {
            case true?:
                // A frame starts in the carried bytes: read them, then this buffer, as frame bytes.
                let carried = side.scratch, carriedStart = side.scratchStart, carriedOrigin = side.scratchOrigin
                side.scratch.removeAll()
                synchronised(side, at: carriedStart)
                side.position = carriedStart
                carried.withBytes { bytes, count in read(side, bytes, count, origin: carriedOrigin) }
                return start
            case nil:
                // Too few bytes to decide: keep them all.
                for index in 0..<taken { side.scratch.append(p[start + index]) }
                side.position += Int64(taken)
                return start + taken
            case false?:
                rejectPosition(side)
                side.scratch.removeFirst(1)
                side.scratchStart += 1
            }
        }
        var i = start
        while i < n {
            let available = n - i
            let offset = side.position
            if available >= HTTP2FrameHeader.size {
                let header = HTTP2FrameHeader(p + i)
                if rule.accepts(header) && nextHeaderFits(rule, p + i, available, header) {
                    synchronised(side, at: offset)
                    return i
                }
            } else if rule.couldBegin(p + i, count: available) {
                side.scratchStart = offset
                side.scratchOrigin = origin
                for index in i..<n { side.scratch.append(p[index]) }
                side.position += Int64(available)
                return n
            }
            rejectPosition(side)
            i += 1
            side.position += 1
        }
        return n
    }

    /// When the next frame's header lies in the buffer too, it must read as a plausible header.
    private func nextHeaderFits(_ rule: HTTP2ResyncRule, _ p: UnsafePointer<UInt8>, _ available: Int, _ header: HTTP2FrameHeader) -> Bool {
        guard header.frameSize + HTTP2FrameHeader.size <= available else { return true }
        let next = HTTP2FrameHeader(p + header.frameSize)
        guard next.length <= rule.maxFrameSize, !next.reservedBit else { return false }
        guard HTTP2FrameType.isKnown(next.type) else { return true }
        return next.flags & ~HTTP2FrameType.definedFlags(next.type) == 0
            && HTTP2FrameType.allowsLength(next.length, type: next.type, flags: next.flags)
            && (HTTP2FrameType.requiresStreamZero(next.type).map { $0 == (next.streamID == 0) } ?? true)
    }

    /// The position being tried does not start a frame: its byte is unparsed.
    private func rejectPosition(_ side: HTTP2DirectionState) {
        if !side.unparsedReported { reportUnparsed(side, from: side.unparsedStart) }
        connectionInfo.unparsedBytes.update(side.direction.rawValue) { $0 += 1 }
    }

    /// A frame header was found at `offset`: the direction is read as frames again.
    private func synchronised(_ side: HTTP2DirectionState, at offset: Int64) {
        if side.seekingAtStart && offset != side.unparsedStart { loseHistory() }
        if side.unparsedReported { connectionInfo.resynchronizations.update(side.direction.rawValue) { $0 += 1 } }
        side.unparsedReported = false
        side.seekingAtStart = false
        side.phase = .frameHeader
        side.position = offset
    }

    /// Reports `.unparsed` from `offset` (the start of what could not be framed).
    func reportUnparsed(_ side: HTTP2DirectionState, from offset: Int64) {
        side.unparsedReported = true
        report(side, .unparsed, from: offset)
    }

    /// Sync is lost: the bytes from `offset` on are unparsed until a frame header validates.
    func loseSync(_ side: HTTP2DirectionState, from offset: Int64) {
        loseHistory()
        side.frame = nil
        side.scratch.removeAll()
        cutPendingBlock(side)
        side.hpack.loseState()
        markOpenMessagesGap(side.direction)
        side.unparsedStart = offset
        side.seekingAtStart = false
        reportUnparsed(side, from: offset)
        side.phase = .seeking
    }

    /// From here on streams may be found without their opening frames.
    func loseHistory() {
        guard !historyLost else { return }
        historyLost = true
        // A decoder that decoded nothing yet may be reading a connection begun before the capture.
        for side in [up, down] where !side.hpack.hasDecoded && !side.hpack.isStopped { side.hpack.loseState() }
    }

    // MARK: Owners

    /// Reports that `side`'s bytes from `offset` on belong to `owner` (nothing when it already does, but
    /// owners decided per frame are reported at every frame: the delegate decides for each which
    /// exchange it costs).
    func report(_ side: HTTP2DirectionState, _ owner: HTTP2ByteOwner, from offset: Int64) {
        guard side.owner != owner || owner.isDecidedPerFrame else { return }
        side.owner = owner
        delegate.http2Bytes(direction: side.direction, from: offset, owner: owner)
    }

    /// A frame reported as `.endedStream` was read to its end.
    func reportControlFrameAfterEnd(_ frame: HTTP2ControlFrameAfterEnd) {
        delegate.http2ControlFrameAfterEnd(frame)
    }

    func reportCancel(exchange: Int, at time: Timestamp) {
        delegate.http2StreamCancelled(exchange: exchange, at: time)
    }

    /// How much of exchange `index`'s messages (up, down) has been read, while its stream is open (nil
    /// otherwise). Looked up among the open streams: asked only when a client cancels.
    func messagesRead(ofExchange index: Int) -> DirectionPair<HTTPMessageRead>? {
        guard let stream = streams.open.values.first(where: { $0.exchangeIndex == index }) else { return nil }
        func read(_ message: HTTP2MessageBuilder?) -> HTTPMessageRead {
            message.map { HTTPMessageRead(bytes: $0.bytes, interimBytes: $0.interimBytes) } ?? HTTPMessageRead()
        }
        return DirectionPair(read(stream.request), read(stream.response))
    }

    // MARK: Gaps and ends

    /// `length` bytes at the direction's position were not captured.
    private func gap(_ side: HTTP2DirectionState, length: Int64) {
        var length = length
        loseHistory()
        while length > 0 {
            switch side.phase {
            case .payload:
                guard let frame = side.frame, frame.consumed < frame.header.length else {
                    completeFrame(side)
                    continue
                }
                let take = Int(min(Int64(frame.header.length - frame.consumed), length))
                side.position += Int64(take)
                length -= Int64(take)
                payload(side, nil, count: take, origin: nil)
            case .frameHeader where side.scratch.count == 0:
                // A frame header lost: sync is lost from the end of the last frame.
                loseSync(side, from: side.position)
                countUnparsedGap(side, length)
                side.position += length
                length = 0
            case .frameHeader:
                loseSync(side, from: side.scratchStart)
                connectionInfo.unparsedBytes.update(side.direction.rawValue) { $0 += Int64(side.position - side.unparsedStart) }
            case .preface(let matched):
                loseSync(side, from: side.position - Int64(matched))
                connectionInfo.unparsedBytes.update(side.direction.rawValue) { $0 += Int64(matched) }
            case .seeking:
                if !side.unparsedReported { reportUnparsed(side, from: side.unparsedStart) }
                side.seekingAtStart = false
                connectionInfo.unparsedBytes.update(side.direction.rawValue) { $0 += Int64(side.scratch.count) }
                side.scratch.removeAll()
                side.hpack.loseState()
                countUnparsedGap(side, length)
                side.position += length
                length = 0
            case .ended:
                return
            }
        }
    }

    private func countUnparsedGap(_ side: HTTP2DirectionState, _ length: Int64) {
        connectionInfo.unparsedBytes.update(side.direction.rawValue) { $0 += length }
    }

    /// Open messages of `direction` may have lost frames.
    private func markOpenMessagesGap(_ direction: FlowDirection) {
        for stream in streams.open.values {
            if let message = stream.existingMessage(for: direction), !message.isDone { message.flags.insert(.gap) }
            if direction == .down, let request = stream.request, request.direction == .down, !request.isDone {
                request.flags.insert(.gap)
            }
        }
    }

    private func endDirection(_ side: HTTP2DirectionState) {
        if let frame = side.frame, let message = frame.message { message.flags.insert(.incomplete) }
        if case .seeking = side.phase, side.scratch.count > 0 {
            if !side.unparsedReported { reportUnparsed(side, from: side.scratchStart) }
            connectionInfo.unparsedBytes.update(side.direction.rawValue) { $0 += Int64(side.scratch.count) }
        } else if case .frameHeader = side.phase, side.scratch.count > 0 {
            // A frame header cut by the end: its bytes could not be framed.
            reportUnparsed(side, from: side.scratchStart)
            connectionInfo.unparsedBytes.update(side.direction.rawValue) { $0 += Int64(side.scratch.count) }
        } else if case .preface(let matched) = side.phase, matched > 0 {
            reportUnparsed(side, from: side.position - Int64(matched))
            connectionInfo.unparsedBytes.update(side.direction.rawValue) { $0 += Int64(matched) }
        } else if let frame = side.frame, frame.ownerPending {
            report(side, .connection(.other), from: frame.start)
        }
        if side.pendingBlock != nil { cutPendingBlock(side) }
        side.frame = nil
        side.scratch.removeAll()
        side.phase = .ended
        for stream in streams.openInOrder {
            if let message = stream.existingMessage(for: side.direction), !message.isDone { message.cut = true }
            if side.direction == .down, let request = stream.request, request.direction == .down, !request.isDone {
                request.cut = true
            }
            closeIfOver(stream)
        }
    }

    // MARK: Streams

    /// Ends `stream` if no more frames can come.
    func closeIfOver(_ stream: HTTP2Stream) {
        if stream.isClosed(downEnded: isEnded(down)) { close(stream) }
    }

    private func isEnded(_ side: HTTP2DirectionState) -> Bool {
        if case .ended = side.phase { return true }
        return false
    }

    /// Reports the stream's messages (request first) and forgets it; when a frame or header block of it
    /// is still being read, once that is complete.
    func close(_ stream: HTTP2Stream) {
        for side in [up, down] where stream.owns(side.frame?.message) || stream.owns(side.pendingBlock?.message) {
            stream.closing = true
            return
        }
        streams.close(stream)
        for message in [stream.request, stream.response] {
            guard let message else { continue }
            if !message.ended { message.flags.insert(.incomplete) }
            if stream.refused { message.info.refused = true }
            delegate.http2MessageFinished(message.message(limits: limits), direction: message.direction)
        }
    }
}

/// Reading frames: what each frame type means for the streams and who owns its bytes.
extension HTTP2ConnectionParser {
    // MARK: Frame start

    /// A frame header was read (its 9 bytes end at the direction's position).
    func beginFrame(_ side: HTTP2DirectionState, _ header: HTTP2FrameHeader, start: Int64, origin: PacketOrigin) {
        if header.length > side.maxFrameSize {
            oversized(side, header, start: start, origin: origin)
            return
        }
        if side.direction == .down && side.beforeFirstFrame && header.type != HTTP2FrameType.settings { loseHistory() }
        side.beforeFirstFrame = false
        side.totals[header.type].frames += 1
        side.totals[header.type].bytes += Int64(HTTP2FrameHeader.size)
        if side.pendingBlock != nil,
            header.type != HTTP2FrameType.continuation || header.streamID != side.pendingBlock?.streamID
        {
            // A header block must continue with CONTINUATION frames on its stream only.
            noteMalformed(side, side.pendingBlock?.message)
            cutPendingBlock(side)
        }
        var frame = HTTP2FrameProgress(header: header, start: start, origin: origin, role: .connection, message: nil)
        let owner = classify(side, &frame)
        side.frame = frame
        side.phase = .payload
        if let owner {
            report(side, owner, from: start)
            startCounting(side)
        }
        if frame.header.length == 0 { completeFrame(side) }
    }

    /// Decides the frame's owner and message; nil while the owner is pending (PUSH_PROMISE).
    private func classify(_ side: HTTP2DirectionState, _ frame: inout HTTP2FrameProgress) -> HTTP2ByteOwner? {
        let header = frame.header
        let type = header.type
        if type == HTTP2FrameType.headers || type == HTTP2FrameType.pushPromise {
            // Every header block is decoded, also one that belongs to no message (the table stays in step).
            side.pendingBlock = HTTP2PendingBlock(streamID: header.streamID, owner: .connection(.other), endStream: false)
        }
        guard HTTP2FrameType.isKnown(type) else {
            connectionInfo.unknownFrames.update(side.direction.rawValue) { $0 += 1 }
            return .connection(.unknown)
        }
        switch HTTP2FrameType.requiresStreamZero(type) {
        case true?:
            if header.streamID != 0 { noteMalformed(side, nil) }
            switch type {
            case HTTP2FrameType.settings: return .connection(.settings)
            case HTTP2FrameType.ping: return .connection(.ping)
            default: return .connection(.goaway)
            }
        case nil where header.streamID == 0:
            return .connection(.windowUpdate)
        case false? where header.streamID == 0:
            noteMalformed(side, nil)
            return outside(side)
        default:
            break
        }
        switch type {
        case HTTP2FrameType.continuation:
            guard let block = side.pendingBlock else {
                noteMalformed(side, nil)
                return outside(side)
            }
            frame.role = .headerBlock
            frame.message = block.message
            if case let .cancelledStream(exchange) = block.owner { frame.endedStreamExchange = exchange }
            return block.owner
        case HTTP2FrameType.pushPromise:
            frame.ownerPending = true
            frame.role = .headerBlock
            return nil
        default:
            break
        }
        guard let stream = stream(for: header, side), let message = stream.message(for: side.direction) else {
            if let ended = endedStream(for: header, side) {
                frame.endedStreamExchange = ended
                return .endedStream(ended)
            }
            guard side.direction == .down, type == HTTP2FrameType.data || type == HTTP2FrameType.headers,
                  let cancelled = streams.cancelledStream(header.streamID) else { return outside(side) }
            frame.endedStreamExchange = cancelled
            if type == HTTP2FrameType.headers { side.pendingBlock?.owner = .cancelledStream(cancelled) }
            return .cancelledStream(cancelled)
        }
        switch type {
        case HTTP2FrameType.data, HTTP2FrameType.headers:
            if message.ended {
                // Half-closed: the sender already ended its message.
                noteMalformed(side, nil)
                return outside(side)
            }
            if message.start == nil && (type == HTTP2FrameType.data || stream.joined) {
                if stream.joined { message.flags.insert(.resynchronized) }
                if type == HTTP2FrameType.data { message.flags.insert(.gap) }
            }
            frame.role = type == HTTP2FrameType.data ? .data : .headerBlock
            if type == HTTP2FrameType.headers {
                side.pendingBlock = HTTP2PendingBlock(
                    streamID: header.streamID, owner: .exchange(stream.exchangeIndex), message: message,
                    endStream: header.has(HTTP2Flags.endStream))
            }
        default:
            frame.role = .control
        }
        frame.message = message
        return .exchange(stream.exchangeIndex)
    }

    /// The open stream a stream frame belongs to, opening it when the frame starts one; nil when the
    /// frame is on a stream that is closed, idle (and not opened by this frame) or past the cap.
    private func stream(for header: HTTP2FrameHeader, _ side: HTTP2DirectionState) -> HTTP2Stream? {
        let id = header.streamID
        if let stream = streams[id] { return stream.closing ? nil : stream }
        let opensNormally = header.type == HTTP2FrameType.headers && side.direction == .up && id % 2 == 1 && streams.isIdle(id)
        let opensJoined = historyLost && !streams.wasRecentlyClosed(id)
            && (header.type == HTTP2FrameType.headers || header.type == HTTP2FrameType.data)
        guard opensNormally || opensJoined else { return nil }
        guard streams.open.count < limits.maxOpenRequests else {
            connectionInfo.streamsOverCap += 1
            return nil
        }
        connectionInfo.streams += 1
        let stream = streams.open(id, clientSendsRequest: id % 2 == 1, joined: !opensNormally)
        if let last = connectionInfo.goawayLastStreamID[id % 2 == 1 ? 1 : 0], id > last { stream.refused = true }
        return stream
    }

    /// The exchange of the stream a WINDOW_UPDATE, RST_STREAM or PRIORITY frame is on, when that stream
    /// is one of those closed last and `side` had a message on it.
    private func endedStream(for header: HTTP2FrameHeader, _ side: HTTP2DirectionState) -> Int? {
        guard header.type == HTTP2FrameType.rstStream || header.type == HTTP2FrameType.windowUpdate
                || header.type == HTTP2FrameType.priority,
              let ended = streams.endedStream(header.streamID), side.direction == .down || ended.clientSendsRequest
        else { return nil }
        return ended.exchangeIndex
    }

    /// The frame belongs to no exchange.
    private func outside(_ side: HTTP2DirectionState) -> HTTP2ByteOwner {
        connectionInfo.framesOutsideStreams.update(side.direction.rawValue) { $0 += 1 }
        return .connection(.other)
    }

    /// The frame's owner is known: its header (and fields read so far) count for its message.
    private func startCounting(_ side: HTTP2DirectionState) {
        guard let frame = side.frame, let message = frame.message else { return }
        message.frameStarted(at: frame.start, origin: frame.origin)
        message.reached(frame.start + Int64(HTTP2FrameHeader.size + frame.consumed), origin: nil)
        let counted = HTTP2FrameHeader.size + min(frame.consumed, frame.fieldsLength)
        switch frame.role {
        case .control:
            message.bytes.control += counted
            message.info.countControlFrame(type: frame.header.type, bytes: frame.header.frameSize)
        case .data, .headerBlock:
            message.bytes.framing += counted
            if frame.role == .headerBlock { side.pendingBlock?.framingBytes += counted }
        case .connection:
            break
        }
    }

    /// A frame longer than the receiver allows: framing is lost at its first byte.
    private func oversized(_ side: HTTP2DirectionState, _ header: HTTP2FrameHeader, start: Int64, origin: PacketOrigin) {
        connectionInfo.oversizedFrames.update(side.direction.rawValue) { $0 += 1 }
        loseSync(side, from: start)
        // The header's first byte is unparsed; a frame may start in its other 8 bytes.
        connectionInfo.unparsedBytes.update(side.direction.rawValue) { $0 += 1 }
        let bytes: [UInt8] = [
            UInt8(truncatingIfNeeded: header.length >> 8), UInt8(truncatingIfNeeded: header.length), header.type, header.flags,
            UInt8(truncatingIfNeeded: header.streamID >> 24) | (header.reservedBit ? 0x80 : 0),
            UInt8(truncatingIfNeeded: header.streamID >> 16), UInt8(truncatingIfNeeded: header.streamID >> 8),
            UInt8(truncatingIfNeeded: header.streamID),
        ]
        side.scratchStart = start + 1
        side.scratchOrigin = origin
        for byte in bytes { side.scratch.append(byte) }
    }

    // MARK: Payload

    /// Reads `count` payload bytes of the frame in progress (`data` nil: lost in a gap).
    func payload(_ side: HTTP2DirectionState, _ data: UnsafeRawBufferPointer?, count: Int, origin: PacketOrigin?) {
        guard var frame = side.frame else { return }
        side.totals[frame.header.type].bytes += Int64(count)
        var done = 0
        while done < count {
            let piece = data.map { UnsafeRawBufferPointer(rebasing: $0[done...]) }
            if frame.consumed < frame.fieldsLength {
                let take = min(count - done, frame.fieldsLength - frame.consumed)
                if let piece {
                    for index in 0..<take { frame.fields.append(piece[index]) }
                } else {
                    frame.fieldsLost = true
                }
                frame.consumed += take
                done += take
                tally(side, frame, .fields, take)
                if frame.consumed == frame.fieldsLength {
                    side.frame = frame
                    fieldsRead(side)
                    guard let updated = side.frame else { return }
                    frame = updated
                }
            } else if frame.consumed < frame.contentEnd {
                let take = min(count - done, frame.contentEnd - frame.consumed)
                content(side, &frame, piece.map { UnsafeRawBufferPointer(rebasing: $0.prefix(take)) }, take)
                frame.consumed += take
                done += take
            } else {
                let take = min(count - done, frame.header.length - frame.consumed)
                frame.consumed += take
                done += take
                tally(side, frame, .padding, take)
            }
        }
        frame.message?.reached(frame.start + Int64(HTTP2FrameHeader.size + frame.consumed), origin: origin)
        side.frame = frame
        if frame.isComplete { completeFrame(side) }
    }

    private enum Region { case fields, content, padding }

    /// Counts bytes of a region of the frame for its message.
    private func tally(_ side: HTTP2DirectionState, _ frame: HTTP2FrameProgress, _ region: Region, _ n: Int) {
        guard n > 0, !frame.ownerPending, let message = frame.message else { return }
        switch frame.role {
        case .control:
            message.bytes.control += n
        case .data, .headerBlock:
            if region == .content {
                if frame.role == .headerBlock {
                    message.bytes.headers += n
                    side.pendingBlock?.headerBytes += n
                }
                return
            }
            message.bytes.framing += n
            if frame.role == .headerBlock { side.pendingBlock?.framingBytes += n }
            if region == .padding { message.info.paddingBytes += n }
        case .connection:
            break
        }
    }

    /// Content bytes (between the fixed fields and the padding); nil `data`: lost in a gap.
    private func content(_ side: HTTP2DirectionState, _ frame: inout HTTP2FrameProgress, _ data: UnsafeRawBufferPointer?, _ n: Int) {
        switch frame.header.type {
        case HTTP2FrameType.data:
            if let message = frame.message { message.body(data, count: n, retainLimit: limits.retainedBodyBytes) }
        case HTTP2FrameType.headers, HTTP2FrameType.pushPromise, HTTP2FrameType.continuation:
            guard side.pendingBlock != nil else { return }
            if let data { side.hpack.append(data) } else { side.hpack.loseBlockBytes() }
            if data == nil { frame.message?.flags.insert(.gap) }
            tally(side, frame, .content, n)
        case HTTP2FrameType.settings where frame.header.streamID == 0 && !frame.header.has(HTTP2Flags.ack):
            guard let data else {
                frame.entry.removeAll()
                return
            }
            for byte in data {
                frame.entry.append(byte)
                if frame.entry.count == 6 {
                    applySetting(side, id: UInt16(frame.entry.uint32(at: 0, length: 2)), value: frame.entry.uint32(at: 2))
                    frame.entry.removeAll()
                }
            }
        default:
            tally(side, frame, .content, n)
        }
    }

    /// The fixed fields of the frame were read (or lost).
    private func fieldsRead(_ side: HTTP2DirectionState) {
        guard var frame = side.frame else { return }
        if frame.padded {
            let padLength = frame.fieldsLost ? 0 : Int(frame.fields[0])
            if padLength > frame.header.length - frame.fieldsLength {
                noteMalformed(side, frame.message)
                frame.contentEnd = frame.fieldsLength
            } else {
                frame.contentEnd = frame.header.length - padLength
            }
            frame.message?.info.paddingBytes += frame.ownerPending ? 0 : 1
        }
        if frame.header.type == HTTP2FrameType.headers && frame.header.has(HTTP2Flags.priority) {
            frame.message?.info.headersPriorityBytes += 5
        }
        side.frame = frame
        if frame.header.type == HTTP2FrameType.pushPromise { promise(side) }
    }

    /// PUSH_PROMISE: its promised stream id is read; the frame belongs to the promised stream's exchange.
    private func promise(_ side: HTTP2DirectionState) {
        guard var frame = side.frame else { return }
        frame.ownerPending = false
        let promisedID = frame.fields.uint32(at: frame.padded ? 1 : 0) & 0x7fff_ffff
        var owner = HTTP2ByteOwner.connection(.other)
        var message: HTTP2MessageBuilder?
        let associatedOpen = streams[frame.header.streamID] != nil || historyLost
        if !frame.fieldsLost, side.direction == .down, promisedID != 0, promisedID % 2 == 0, associatedOpen,
            streams[promisedID] == nil, streams.isIdle(promisedID) || historyLost, !streams.wasRecentlyClosed(promisedID)
        {
            if streams.open.count < limits.maxOpenRequests {
                connectionInfo.streams += 1
                let stream = streams.open(promisedID, clientSendsRequest: false, joined: false)
                if let last = connectionInfo.goawayLastStreamID.up, promisedID > last { stream.refused = true }
                let request = HTTP2MessageBuilder(kind: .request, direction: .down, exchangeIndex: stream.exchangeIndex, streamID: promisedID)
                request.info.pushedBy = frame.header.streamID
                stream.request = request
                message = request
                owner = .exchange(stream.exchangeIndex)
            } else {
                connectionInfo.streamsOverCap += 1
            }
        } else {
            noteMalformed(side, nil)
        }
        if message == nil { connectionInfo.framesOutsideStreams.update(side.direction.rawValue) { $0 += 1 } }
        if frame.padded, message != nil { message?.info.paddingBytes += 1 }
        frame.message = message
        side.frame = frame
        side.pendingBlock = HTTP2PendingBlock(streamID: frame.header.streamID, owner: owner, message: message, endStream: false)
        report(side, owner, from: frame.start)
        startCounting(side)
    }

    // MARK: Frame end

    /// The frame in progress is complete.
    func completeFrame(_ side: HTTP2DirectionState) {
        side.phase = .frameHeader
        guard let frame = side.frame else { return }
        side.frame = nil
        let header = frame.header
        if frame.ownerPending {
            // A PUSH_PROMISE too short for its promised stream id.
            noteMalformed(side, nil)
            connectionInfo.framesOutsideStreams.update(side.direction.rawValue) { $0 += 1 }
            report(side, .connection(.other), from: frame.start)
            side.pendingBlock = HTTP2PendingBlock(streamID: header.streamID, owner: .connection(.other), endStream: false)
        }
        if frame.consumed < frame.fieldsLength || !HTTP2FrameType.allowsLength(header.length, type: header.type, flags: header.flags),
            HTTP2FrameType.isKnown(header.type)
        {
            noteMalformed(side, frame.message)
        }
        if let exchange = frame.endedStreamExchange {
            let code = header.type == HTTP2FrameType.rstStream && frame.fieldsComplete ? frame.fields.uint32(at: 0) : nil
            reportControlFrameAfterEnd(HTTP2ControlFrameAfterEnd(
                exchange: exchange, direction: side.direction, type: header.type, bytes: header.frameSize, resetErrorCode: code))
        }
        switch header.type {
        case HTTP2FrameType.data:
            if header.has(HTTP2Flags.endStream) { frame.message?.ended = true }
        case HTTP2FrameType.headers, HTTP2FrameType.pushPromise, HTTP2FrameType.continuation:
            if header.has(HTTP2Flags.endHeaders), side.pendingBlock != nil { finishBlock(side) }
        case HTTP2FrameType.rstStream:
            // Also from the client on a pushed stream, whose frames belong to no message of its direction.
            if frame.fieldsComplete, header.streamID != 0, let stream = streams[header.streamID] {
                if side.direction == .up, stream.clientSendsRequest, stream.response?.ended != true, !stream.cancelledByClient {
                    stream.cancelledByClient = true
                    reportCancel(exchange: stream.exchangeIndex, at: frame.origin.timestamp)
                }
                for message in [stream.request, stream.response] {
                    message?.info.resetErrorCode = frame.fields.uint32(at: 0)
                    message?.info.resetBy = side.direction
                }
                close(stream)
            }
        case HTTP2FrameType.goaway:
            if frame.fieldsComplete { goaway(side, lastStreamID: frame.fields.uint32(at: 0) & 0x7fff_ffff, code: frame.fields.uint32(at: 4)) }
        case HTTP2FrameType.settings:
            if !header.has(HTTP2Flags.ack), header.streamID == 0 {
                connectionInfo.settings.update(side.direction.rawValue) { $0.frames += 1 }
            }
        default:
            break
        }
        closeIfOver(frame.message)
    }

    /// Ends the stream of `message` if it is over.
    private func closeIfOver(_ message: HTTP2MessageBuilder?) {
        if let message, let stream = streams[message.info.streamID], stream.owns(message) { closeIfOver(stream) }
    }

    /// END_HEADERS: the block is decoded and applied to its message.
    private func finishBlock(_ side: HTTP2DirectionState) {
        guard let block = side.pendingBlock else { return }
        side.pendingBlock = nil
        let outcome = side.hpack.finishBlock()
        let message = block.message
        message?.info.headerBlocks += 1
        switch outcome {
        case let .decoded(headers, afterReset):
            if afterReset { message?.flags.insert(.resynchronized) }
            message?.apply(HTTPHeaderList(headers), blockHeaders: block.headerBytes, blockFraming: block.framingBytes, limits: limits)
        case .lost:
            if message?.hasHead == false { message?.flags.insert(.gap) }
            message?.hasHead = true
        case .hpackError:
            connectionInfo.hpackError.update(side.direction.rawValue) { $0 = true }
            message?.info.hpackError = true
            message?.flags.insert(.malformed)
            message?.hasHead = true
        case .tooLarge:
            connectionInfo.headersTooLarge.update(side.direction.rawValue) { $0 = true }
            message?.flags.insert(.headersTooLarge)
            message?.hasHead = true
        }
        guard let message else { return }
        if message.kind == .request && message.direction == .down {
            // A PUSH_PROMISE's block is the whole pushed request.
            message.ended = true
        } else if block.endStream {
            message.ended = true
        }
        closeIfOver(message)
    }

    /// The header block awaiting CONTINUATION was cut (another frame, lost sync, the end): it is not
    /// decoded, and the dynamic table is unknown from here.
    func cutPendingBlock(_ side: HTTP2DirectionState) {
        guard let block = side.pendingBlock else { return }
        side.pendingBlock = nil
        block.message?.flags.insert(.incomplete)
        block.message?.hasHead = true
        side.hpack.loseState()
        closeIfOver(block.message)
    }

    /// A GOAWAY from `side`: streams the other side initiated above `lastStreamID` were refused.
    private func goaway(_ side: HTTP2DirectionState, lastStreamID: UInt32, code: UInt32) {
        connectionInfo.goawayLastStreamID.update(side.direction.rawValue) { $0 = lastStreamID }
        connectionInfo.goawayErrorCode.update(side.direction.rawValue) { $0 = code }
        let refusedParity: UInt32 = side.direction == .down ? 1 : 0
        for stream in streams.openInOrder where stream.id % 2 == refusedParity && stream.id > lastStreamID {
            stream.refused = true
            closeIfOver(stream)
        }
    }

    /// One SETTINGS parameter `side` advertised: it binds what the other side sends.
    private func applySetting(_ side: HTTP2DirectionState, id: UInt16, value: UInt32) {
        let receiver = side.direction.rawValue
        let sender = side === up ? down : up
        switch id {
        case 1:
            connectionInfo.settings.update(receiver) { $0.headerTableSize = value }
            sender.hpack.receiverAllowsTableSize(value)
        case 2: connectionInfo.settings.update(receiver) { $0.enablePush = value }
        case 3: connectionInfo.settings.update(receiver) { $0.maxConcurrentStreams = value }
        case 4: connectionInfo.settings.update(receiver) { $0.initialWindowSize = value }
        case 5:
            connectionInfo.settings.update(receiver) { $0.maxFrameSize = value }
            let size = Int(value)
            if size >= HTTP2FrameHeader.defaultMaxFrameSize && size <= HTTP2FrameHeader.largestMaxFrameSize {
                // The largest advertised holds: the observer cannot tell when the sender learned of a smaller one.
                sender.maxFrameSize = max(sender.maxFrameSize, size)
            }
        case 6: connectionInfo.settings.update(receiver) { $0.maxHeaderListSize = value }
        default: break
        }
    }

    private func noteMalformed(_ side: HTTP2DirectionState, _ message: HTTP2MessageBuilder?) {
        connectionInfo.malformedFrames.update(side.direction.rawValue) { $0 += 1 }
        message?.flags.insert(.malformed)
    }
}

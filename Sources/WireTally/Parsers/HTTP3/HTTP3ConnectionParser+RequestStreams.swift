/// Frames of request streams.
extension HTTP3ConnectionParser {
    func receive(_ side: HTTP3RequestSide, stream: UInt64, offset: Int64, bytes: UnsafeRawBufferPointer, fin: Bool, origin: PacketOrigin) {
        let direction = side.builder.direction
        catchUp(side, stream: stream, to: offset)
        // Each offset is taken once: bytes before the position were delivered already.
        let skip = Int(min(max(side.position - offset, 0), Int64(bytes.count)))
        var input = UnsafeRawBufferPointer(rebasing: bytes[skip...])
        if fin && side.finalSize == nil {
            side.finalSize = offset + Int64(bytes.count)
            side.finished = true
        }
        if let finalSize = side.finalSize, side.position + Int64(input.count) > finalSize {
            let keep = Int(max(finalSize - side.position, 0))
            info.bytesAfterEnd += Int64(input.count - keep)
            input = UnsafeRawBufferPointer(rebasing: input[..<keep])
        }
        read(side, stream: stream, input, origin: origin)
        finishIfOver(stream, direction)
    }

    /// Bytes before `offset` that were never delivered are a gap.
    func catchUp(_ side: HTTP3RequestSide, stream: UInt64, to offset: Int64) {
        if offset > side.position { lose(side, stream: stream, length: offset - side.position) }
    }

    private func read(_ side: HTTP3RequestSide, stream: UInt64, _ p: UnsafeRawBufferPointer, origin: PacketOrigin) {
        let builder = side.builder
        guard !side.lostSync else {
            unframed(side, count: p.count)
            builder.reached(side.position, origin: origin)
            return
        }
        var i = 0
        while true {
            if side.reader.atFrameBoundary && i < p.count {
                side.frameStart = side.position
                side.frameOrigin = origin
            }
            let before = i
            let event = side.reader.next(p, &i)
            side.position += Int64(i - before)
            switch event {
            case .needMore:
                return
            case .header(let type, let length, let headerBytes):
                builder.frameStarted(at: side.frameStart, origin: side.frameOrigin ?? origin)
                builder.bytes.framing += headerBytes
                builder.reached(side.position, origin: origin)
                side.frameHeaderBytes = headerBytes
                beginFrame(side, type: type, length: length, headerBytes: headerBytes)
            case .payload(let chunk):
                payload(side, chunk, count: chunk.count)
                builder.reached(side.position, origin: origin)
            case .end:
                endFrame(side, stream: stream)
            }
        }
    }

    private func beginFrame(_ side: HTTP3RequestSide, type: UInt64, length: UInt64, headerBytes: Int) {
        let builder = side.builder
        switch type {
        case HTTP3FrameType.data:
            side.role = .data
            if !side.sawHeaders || side.sawTrailers { unexpected(side) }
            side.sawData = side.sawHeaders
        case HTTP3FrameType.headers:
            side.role = .headers
            if side.sawTrailers { unexpected(side) }
            if side.sawData { side.sawTrailers = true }
            side.sawHeaders = true
            side.section.removeAll(keepingCapacity: true)
            side.sectionDropped = length > UInt64(limits.maxHeaderBytes)
            if side.sectionDropped { builder.flags.insert(.headersTooLarge) }
        case HTTP3FrameType.pushPromise where builder.direction == .down:
            side.role = .pushPromise
            side.pushID.reset()
            side.pushIDDone = false
            builder.info.pushPromises += 1
        case _ where HTTP3FrameType.isReserved(type) || !(HTTP3FrameType.isKnown(type) || HTTP3FrameType.isHTTP2Only(type)):
            side.role = .skipped(unknown: true)
            builder.info.unknownFrames += 1
            builder.info.unknownFrameBytes += headerBytes
        default:
            side.role = .skipped(unknown: false)
            unexpected(side)
        }
    }

    /// A frame RFC 9114 does not allow here (H3_FRAME_UNEXPECTED): counted, the message `.malformed`.
    private func unexpected(_ side: HTTP3RequestSide) {
        side.builder.info.unexpectedFrames += 1
        side.builder.flags.insert(.malformed)
    }

    /// `count` payload bytes of the current frame (nil `data`: lost in a gap).
    private func payload(_ side: HTTP3RequestSide, _ data: UnsafeRawBufferPointer?, count: Int) {
        let builder = side.builder
        switch side.role {
        case .data:
            body(side, data, count: count)
        case .headers:
            builder.bytes.headers += count
            guard !side.sectionDropped else { return }
            if let data {
                side.section.append(contentsOf: data)
            } else {
                side.sectionDropped = true
                side.section = []
                builder.flags.insert(.gap)
            }
        case .pushPromise:
            var idBytes = 0
            if let data {
                while !side.pushIDDone && idBytes < count {
                    side.pushIDDone = side.pushID.feed(data[idBytes]) != nil
                    idBytes += 1
                }
            } else if !side.pushIDDone {
                // The push id was lost: its bytes are counted as the field section's.
                side.pushIDDone = true
                builder.flags.insert(.gap)
            }
            builder.bytes.framing += idBytes
            builder.bytes.headers += count - idBytes
        case .skipped(let unknown):
            builder.bytes.framing += count
            if unknown { builder.info.unknownFrameBytes += count }
            if data == nil { builder.flags.insert(.gap) }
        }
    }

    /// DATA payload: streamed to the message, or held while its head waits for inserts.
    private func body(_ side: HTTP3RequestSide, _ data: UnsafeRawBufferPointer?, count: Int) {
        guard side.headPending else {
            side.builder.body(data, count: count, retainLimit: limits.retainedBodyBytes)
            return
        }
        if let data {
            if side.heldBody.count + count <= Self.maxHeldBodyBytes && side.heldBodyNotKept == 0 {
                side.heldBody.append(contentsOf: data)
            } else {
                side.heldBodyNotKept += count
            }
        } else {
            side.heldGapBytes += count
        }
    }

    private func endFrame(_ side: HTTP3RequestSide, stream: UInt64) {
        guard side.role == .headers else { return }
        side.builder.info.headerBlocks += 1
        guard !side.sectionDropped else { return }
        let section = HTTP3HeldSection(bytes: side.section, frameHeaderBytes: side.frameHeaderBytes)
        side.section = []
        fieldSection(section, of: side, stream: stream)
    }

    /// `length` bytes at the side's position were lost: inside a payload the frame is kept (its bytes
    /// counted as what they were); across a frame header, sync is lost for the rest of the direction.
    func lose(_ side: HTTP3RequestSide, stream: UInt64, length: Int64) {
        var length = length
        side.builder.flags.insert(.gap)
        while length > 0 {
            if side.lostSync {
                unframed(side, count: Int(clamping: length))
                side.position += length
                return
            }
            if side.reader.inPayload {
                if side.reader.remaining == 0 {
                    var i = 0
                    _ = side.reader.next(UnsafeRawBufferPointer(start: nil, count: 0), &i)
                    endFrame(side, stream: stream)
                    continue
                }
                let take = Int(min(side.reader.remaining, UInt64(length)))
                side.reader.skipPayload(take)
                payload(side, nil, count: take)
                side.position += Int64(take)
                length -= Int64(take)
                side.builder.reached(side.position, origin: nil)
                continue
            }
            // A frame header lost (wholly or in part): its bytes read so far can no longer be framed.
            side.lostSync = true
            unframed(side, count: side.reader.partialHeaderBytes)
        }
    }

    /// Bytes that cannot be framed: counted as body (the bulk of a request stream after its head), `.gap`.
    private func unframed(_ side: HTTP3RequestSide, count: Int) {
        guard count > 0 else { return }
        side.builder.info.unframedBytes += count
        side.builder.body(nil, count: count, retainLimit: limits.retainedBodyBytes)
    }
}

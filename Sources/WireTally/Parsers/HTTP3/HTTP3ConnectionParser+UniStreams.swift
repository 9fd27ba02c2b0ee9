/// Unidirectional streams: control (SETTINGS, GOAWAY…), QPACK encoder and decoder, push, others.
extension HTTP3ConnectionParser {
    func receive(_ stream: HTTP3UniStream, offset: Int64, bytes: UnsafeRawBufferPointer) {
        if offset > stream.position { lose(stream, length: offset - stream.position) }
        let skip = Int(min(max(stream.position - offset, 0), Int64(bytes.count)))
        var input = UnsafeRawBufferPointer(rebasing: bytes[skip...])
        stream.position += Int64(input.count)
        if stream.kind == .pending && !stream.lostSync {
            var i = 0
            while i < input.count && stream.kind == .pending {
                stream.typeBytes += 1
                if let type = stream.typeReader.feed(input[i]) { setType(stream, type) }
                i += 1
            }
            input = UnsafeRawBufferPointer(rebasing: input[i...])
            if stream.kind == .pending { return }
            count(stream, stream.typeBytes)
        }
        count(stream, input.count)
        guard !stream.lostSync, !input.isEmpty else { return }
        let sender = stream.sender.rawValue
        switch stream.kind {
        case .control:
            readControl(stream, input)
        case .qpackEncoder:
            qpack.update(sender) { $0.encoderStream(input) }
            noteEncoderProgress(stream.sender)
        case .qpackDecoder:
            decoderStreams.update(sender) { $0.read(input) }
            let reader = decoderStreams[sender]
            info.qpackSectionAcknowledgments.update(sender) { $0 = reader.sectionAcknowledgments }
            info.qpackStreamCancellations.update(sender) { $0 = reader.streamCancellations }
            info.qpackInsertCountIncrements.update(sender) { $0 = reader.insertCountIncrements }
            info.qpackDecoderStreamError.update(sender) { $0 = reader.failed }
        case .push, .ignored, .pending:
            break
        }
    }

    /// `length` bytes at the stream's position were lost.
    func lose(_ stream: HTTP3UniStream, length: Int64) {
        stream.position += length
        if stream.kind == .pending {
            // The type was lost with them: the stream cannot be read.
            stream.kind = .ignored
            count(stream, stream.typeBytes)
        }
        count(stream, Int(clamping: length))
        stream.lostSync = true
        if stream.kind == .qpackEncoder {
            qpack.update(stream.sender.rawValue) { $0.loseEncoderStream() }
            noteEncoderProgress(stream.sender)
        }
    }

    private func setType(_ stream: HTTP3UniStream, _ type: UInt64) {
        let kind: HTTP3UniStream.Kind
        switch type {
        case HTTP3StreamType.control: kind = .control
        case HTTP3StreamType.qpackEncoder: kind = .qpackEncoder
        case HTTP3StreamType.qpackDecoder: kind = .qpackDecoder
        case HTTP3StreamType.push: kind = .push
        default: kind = .ignored
        }
        let duplicate = kind != .push && kind != .ignored
            && uniStreams.values.contains { $0 !== stream && $0.sender == stream.sender && $0.kind == kind }
        if duplicate { info.duplicateCriticalStreams.update(stream.sender.rawValue) { $0 += 1 } }
        stream.kind = duplicate ? .ignored : kind
        if stream.kind == .ignored { info.unknownStreams.update(stream.sender.rawValue) { $0 += 1 } }
    }

    /// Counts `n` bytes of the stream by its kind.
    private func count(_ stream: HTTP3UniStream, _ n: Int) {
        let n = Int64(n)
        info.unidirectionalBytes.update(stream.sender.rawValue) { bytes in
            switch stream.kind {
            case .control: bytes.control += n
            case .qpackEncoder: bytes.qpackEncoder += n
            case .qpackDecoder: bytes.qpackDecoder += n
            case .push: bytes.push += n
            case .ignored, .pending: bytes.unknown += n
            }
        }
    }

    /// The encoder stream of `side` was read further (or lost): counts, errors, then the sections waiting on it.
    private func noteEncoderProgress(_ side: FlowDirection) {
        let state = qpack[side.rawValue]
        info.qpackInserts.update(side.rawValue) { $0 = state.inserts }
        info.qpackCapacityChanges.update(side.rawValue) { $0 = state.capacityChanges }
        info.qpackEncoderStreamError.update(side.rawValue) { $0 = state.tableState == .failed }
        info.qpackEncoderStreamLost.update(side.rawValue) { $0 = state.tableState == .lost }
        retryBlocked(side)
    }

    // MARK: Control stream

    private func readControl(_ stream: HTTP3UniStream, _ p: UnsafeRawBufferPointer) {
        var i = 0
        while true {
            switch stream.frames.next(p, &i) {
            case .needMore:
                return
            case .header(let type, let length, _):
                if !stream.sawFirstFrame && type != HTTP3FrameType.settings { controlError(stream) }
                stream.sawFirstFrame = true
                stream.payload.removeAll(keepingCapacity: true)
                stream.payloadOversized = length > UInt64(Self.maxControlFrameBytes)
                if stream.payloadOversized { info.oversizedControlFrames.update(stream.sender.rawValue) { $0 += 1 } }
            case .payload(let chunk):
                if !stream.payloadOversized && isReadOnControl(stream.frames.type) { stream.payload.append(contentsOf: chunk) }
            case .end:
                if !stream.payloadOversized { controlFrame(stream, type: stream.frames.type) }
            }
        }
    }

    /// Frame types whose payload is read on a control stream.
    private func isReadOnControl(_ type: UInt64) -> Bool { type == HTTP3FrameType.settings || type == HTTP3FrameType.goaway }

    private func controlFrame(_ stream: HTTP3UniStream, type: UInt64) {
        let sender = stream.sender.rawValue
        switch type {
        case HTTP3FrameType.settings:
            let settings = stream.payload.withUnsafeBytes { HTTP3SettingsReader.read($0) }
            if settings == nil { controlError(stream) }
            info.settings.update(sender) { peer in
                peer.frames += 1
                if peer.frames > 1 { controlError(stream) }
                for (id, value) in settings ?? [] { peer.set(id, value) }
            }
            // The decoding side's capacity gives MaxEntries for the sections its peer encodes.
            if let capacity = info.settings[sender].qpackMaxTableCapacity {
                qpack.update(1 - sender) { $0.advertisedMaxCapacity = capacity }
                retryBlocked(stream.sender.reversed)
            }
        case HTTP3FrameType.goaway:
            var i = 0
            var varint = HTTP3VarIntReader()
            var id: UInt64?
            while id == nil && i < stream.payload.count {
                id = varint.feed(stream.payload[i])
                i += 1
            }
            if let id, i == stream.payload.count { info.goawayID.update(sender) { $0 = id } } else { controlError(stream) }
        case HTTP3FrameType.maxPushID:
            info.maxPushIDFrames.update(sender) { $0 += 1 }
        case HTTP3FrameType.cancelPush:
            info.cancelPushFrames.update(sender) { $0 += 1 }
        case _ where HTTP3FrameType.isKnown(type) || HTTP3FrameType.isHTTP2Only(type):
            // DATA, HEADERS, PUSH_PROMISE and HTTP/2's types have no place on a control stream.
            if !HTTP3FrameType.isReserved(type) { controlError(stream) }
        default:
            break
        }
    }

    private func controlError(_ stream: HTTP3UniStream) {
        info.controlStreamErrors.update(stream.sender.rawValue) { $0 += 1 }
    }
}

/// Reads a SETTINGS payload: (identifier varint, value varint) pairs (RFC 9114 §7.2.4).
enum HTTP3SettingsReader {
    /// The pairs in order; nil when the payload does not end on a pair.
    static func read(_ p: UnsafeRawBufferPointer) -> [(UInt64, UInt64)]? {
        var pairs: [(UInt64, UInt64)] = []
        var varint = HTTP3VarIntReader()
        var pendingID: UInt64?
        for byte in p {
            guard let value = varint.feed(byte) else { continue }
            if let id = pendingID {
                pairs.append((id, value))
                pendingID = nil
            } else {
                pendingID = value
            }
        }
        return pendingID == nil && varint.count == 0 ? pairs : nil
    }
}

extension HTTP3PeerSettings {
    /// Records setting `id`.
    mutating func set(_ id: UInt64, _ value: UInt64) {
        switch id {
        case HTTP3SettingID.qpackMaxTableCapacity: qpackMaxTableCapacity = value
        case HTTP3SettingID.qpackBlockedStreams: qpackBlockedStreams = value
        case HTTP3SettingID.maxFieldSectionSize: maxFieldSectionSize = value
        default:
            if others.count < Self.maxOtherSettings || others[id] != nil { others[id] = value }
        }
    }
}

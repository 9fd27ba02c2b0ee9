/// Field sections of request streams: decoding, waiting for QPACK inserts, applying.
extension HTTP3ConnectionParser {
    /// A complete HEADERS payload of `side`: decoded and applied now, or held behind the sections of
    /// the message that wait, or held itself when it refers to inserts not received yet.
    func fieldSection(_ section: HTTP3HeldSection, of side: HTTP3RequestSide, stream: UInt64) {
        guard side.held.isEmpty else {
            hold(section, of: side, stream: stream, blocked: false)
            return
        }
        if !decodeAndApply(section, to: side) { hold(section, of: side, stream: stream, blocked: true) }
    }

    /// Decodes `section` with the table of its sender's encoder and applies it; false when it must wait.
    private func decodeAndApply(_ section: HTTP3HeldSection, to side: HTTP3RequestSide) -> Bool {
        let builder = side.builder
        let direction = builder.direction.rawValue
        let outcome = qpack.update(direction) { state in section.bytes.withUnsafeBytes { state.decodeSection($0) } }
        switch outcome {
        case .blocked:
            return false
        case .fields(let fields):
            builder.apply(HTTPHeaderList(fields), blockHeaders: section.bytes.count, blockFraming: section.frameHeaderBytes, limits: limits)
        case .failed(let error):
            builder.info.qpackError = true
            info.qpackSectionErrors.update(direction) { $0 += 1 }
            if error == .tooLarge { builder.flags.insert(.headersTooLarge) }
        }
        return true
    }

    /// Keeps `section` until it can be decoded (`blocked`: it refers to inserts not received; else it
    /// waits behind one that does), within the blocked-streams and byte caps; past them it fails.
    private func hold(_ section: HTTP3HeldSection, of side: HTTP3RequestSide, stream: UInt64, blocked: Bool) {
        let direction = side.builder.direction.rawValue
        let startsWaiting = side.held.isEmpty
        let advertised = info.settings[1 - direction].qpackBlockedStreams ?? UInt64(Self.maxBlockedSections)
        let allowed = Int(min(advertised, UInt64(Self.maxBlockedSections)))
        if (startsWaiting && blockedStreams[direction].count >= allowed) || blockedBytes + section.bytes.count > Self.maxBlockedBytes {
            side.builder.info.qpackError = true
            info.qpackBlockedOverCap.update(direction) { $0 += 1 }
            info.qpackSectionErrors.update(direction) { $0 += 1 }
            return
        }
        side.held.append(section)
        blockedBytes += section.bytes.count
        if startsWaiting { blockedStreams[direction].append(stream) }
        if blocked {
            side.builder.info.qpackBlocked = true
            info.qpackBlockedSections.update(direction) { $0 += 1 }
        }
    }

    /// Decodes the held sections of `side` in order until one still waits; the DATA held behind the
    /// head is released once nothing waits.
    private func drainHeld(_ side: HTTP3RequestSide) {
        while let first = side.held.first, decodeAndApply(first, to: side) {
            side.held.removeFirst()
            blockedBytes -= first.bytes.count
        }
        if side.held.isEmpty { side.releaseHeldBody(retainLimit: limits.retainedBodyBytes) }
    }

    /// Drops what `side` holds (its stream no longer waits).
    func unblock(_ side: HTTP3RequestSide, stream: UInt64, direction: FlowDirection) {
        blockedBytes -= side.held.reduce(0) { $0 + $1.bytes.count }
        side.held = []
        blockedStreams[direction.rawValue].removeAll { $0 == stream }
    }

    /// The encoder stream of `direction`'s side changed the table (or was lost): the sections it
    /// encoded that wait are tried again, and messages that no longer wait are delivered if over.
    func retryBlocked(_ direction: FlowDirection) {
        let waiting = blockedStreams[direction.rawValue]
        guard !waiting.isEmpty else { return }
        for id in waiting {
            guard let side = requestStreams[id]?.side(direction) else { continue }
            drainHeld(side)
            if side.held.isEmpty {
                blockedStreams[direction.rawValue].removeAll { $0 == id }
                finishIfOver(id, direction)
            }
        }
    }
}

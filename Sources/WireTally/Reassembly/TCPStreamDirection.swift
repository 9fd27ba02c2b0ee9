/// What one segment's payload did to a stream direction.
struct PayloadOutcome {
    /// Bytes never seen before (delivered now or held out of order).
    var newBytes: Int64 = 0
    /// Bytes seen before (retransmitted or duplicated), counted once per extra copy.
    var duplicateBytes: Int64 = 0
    /// Stream range of the segment, when it was placed in the stream.
    var range: Range<Int64>? = nil
    /// True when the segment lay so far from the expected sequence number that it was ignored.
    var outOfWindow = false
}

/// Reassembly state of one direction of a TCP connection: maps 32-bit sequence numbers (with wraparound)
/// to 64-bit stream offsets, delivers bytes in order, buffers what comes early, and declares holes the
/// capture will never fill (acknowledged by the peer, or forced by the buffer cap) as missing.
struct TCPStreamDirection {
    /// True once the sequence number of stream offset 0 is known (from a SYN or the first data seen).
    private(set) var isSynchronized = false
    /// True when this side's SYN was seen.
    private(set) var sawSYN = false
    /// The SYN's sequence number (when `sawSYN`).
    private(set) var initialSequence: UInt32 = 0
    /// Sequence number of stream offset 0.
    private var base: UInt32 = 0
    /// Next in-order stream offset.
    private(set) var nextOffset: Int64 = 0
    /// Stream offset of this side's FIN, once seen.
    private(set) var finOffset: Int64?
    /// Highest stream offset of this direction acknowledged by the peer.
    private(set) var acknowledgedOffset: Int64 = 0
    /// True once any payload was placed in the stream.
    private(set) var hasData = false
    /// True once `finish` ran or the FIN was reached: nothing more is delivered.
    private(set) var isFinished = false

    private(set) var missingBytes: Int64 = 0
    private(set) var uncapturedBytes: Int64 = 0
    private(set) var conflictingBytes: Int64 = 0
    /// Times the buffer cap forced the stream past a hole.
    private(set) var bufferOverflows = 0
    /// True when the first data lay far from the SYN's sequence number and the stream was re-based on it.
    private(set) var wasRebased = false

    private var buffer: OutOfOrderBuffer
    /// A reference (copies of a direction share it): only its connection keeps a direction.
    private let history: DeliveredHistory

    /// - Parameters:
    ///   - lentMemory: packet memory the history may refer to instead of copying delivered bytes.
    ///   - bufferedTotal: the reassembler's count of out-of-order bytes held by all streams.
    init(historyCapacity: Int, lentMemory: LentPacketMemory?, bufferedTotal: UnsafeMutablePointer<Int>?) {
        history = DeliveredHistory(capacity: historyCapacity, lentMemory: lentMemory)
        buffer = OutOfOrderBuffer(total: bufferedTotal)
    }

    /// Captured out-of-order bytes held now.
    var heldBytes: Int { buffer.heldBytes }

    /// The stream offset of sequence number `sequence`, taken as the nearest to the next expected byte.
    func offset(of sequence: UInt32) -> Int64 {
        let expected = base &+ UInt32(truncatingIfNeeded: nextOffset)
        return nextOffset + Int64(Int32(bitPattern: sequence &- expected))
    }

    /// Sets the sequence space from this side's SYN. A SYN with another ISN before any data replaces
    /// the first (a new attempt, or a SYN-ACK re-sent with a new ISN); returns false when the SYN
    /// conflicts with data already seen (the caller treats that as port reuse).
    mutating func synchronize(onSYN sequence: UInt32) -> Bool {
        if sawSYN && sequence == initialSequence { return true }
        guard !hasData else { return false }
        sawSYN = true
        initialSequence = sequence
        base = sequence &+ 1
        isSynchronized = true
        return true
    }

    /// Re-bases the stream on the sequence number the peer acknowledged to complete the handshake (the
    /// ISN+1 the peer accepted), when no data has been seen yet.
    mutating func adoptAcknowledgedBase(_ sequence: UInt32) {
        guard !hasData, base != sequence else { return }
        base = sequence
        isSynchronized = true
    }

    /// Places a segment's payload in the stream.
    mutating func accept(
        sequence: UInt32, length: Int, captured: UnsafeRawBufferPointer, origin: PacketOrigin,
        limits: ReassemblyLimits, delivery: StreamDelivery
    ) -> PayloadOutcome {
        var outcome = PayloadOutcome()
        guard length > 0 else { return outcome }
        if !isSynchronized {
            base = sequence
            isSynchronized = true
        }
        var start = offset(of: sequence)
        if !hasData && (start < 0 || start > Int64(limits.maxBufferedBytesPerDirection)) {
            // The first data is nowhere near the SYN's ISN (e.g. a SYN-ACK re-sent with another ISN):
            // follow the data rather than declare gigabytes missing.
            base = sequence &- UInt32(truncatingIfNeeded: nextOffset)
            wasRebased = true
            start = nextOffset
        }
        let end = start + Int64(length)
        guard start <= nextOffset + limits.maxSequenceJump, end > nextOffset - limits.maxSequenceJump else {
            outcome.outOfWindow = true
            return outcome
        }
        hasData = true
        outcome.range = start..<end
        var captured = captured
        if start < nextOffset {
            let overlap = min(Int64(length), nextOffset - start)
            outcome.duplicateBytes += overlap
            conflictingBytes += history.differingBytes(
                UnsafeRawBufferPointer(rebasing: captured.prefix(Int(overlap))), at: start)
            captured = UnsafeRawBufferPointer(rebasing: captured.dropFirst(Int(overlap)))
            start += overlap
        }
        guard start < end else { return outcome }
        guard !isFinished else {
            // Bytes beyond the end of a stream that already ended (after its FIN or a reset): new on the
            // wire, so counted, but there is no stream left to deliver them to.
            outcome.newBytes = end - start
            return outcome
        }
        if start == nextOffset && buffer.isEmpty {
            outcome.newBytes = end - start
            deliver(captured, length: end - start, origin: origin, delivery: delivery)
        } else {
            let insertion = buffer.insert(offset: start, length: end - start, captured: captured, origin: origin)
            outcome.newBytes = insertion.newBytes
            outcome.duplicateBytes += end - start - insertion.newBytes
            conflictingBytes += insertion.conflictingBytes
            drain(delivery: delivery)
            while buffer.heldBytes > limits.maxBufferedBytesPerDirection, forcePastFirstHole(delivery: delivery) {
                bufferOverflows += 1
            }
            skipAcknowledgedHole(delivery: delivery)
        }
        return outcome
    }

    /// Notes this side's FIN; the stream ends once every byte before it is delivered.
    mutating func noteFIN(sequence: UInt32, payloadLength: Int, delivery: StreamDelivery) {
        if !isSynchronized {
            base = sequence &+ UInt32(truncatingIfNeeded: payloadLength)
            isSynchronized = true
        }
        if finOffset == nil { finOffset = offset(of: sequence) + Int64(payloadLength) }
        endIfFINReached(delivery: delivery)
    }

    /// Notes that the peer acknowledged everything before `sequence` (this direction's numbering) and
    /// returns the stream range it newly acknowledged. Bytes acknowledged but never captured are
    /// declared missing when later bytes are waiting behind them. Inlined into its one caller: nearly
    /// every packet acknowledges.
    @inline(__always)
    mutating func noteAcknowledgment(
        _ sequence: UInt32, limits: ReassemblyLimits, delivery: StreamDelivery
    ) -> Range<Int64>? {
        guard isSynchronized, hasData || sawSYN else { return nil }
        let acknowledged = offset(of: sequence)
        guard acknowledged > acknowledgedOffset, acknowledged <= nextOffset + limits.maxSequenceJump else { return nil }
        let newly = acknowledgedOffset..<acknowledged
        acknowledgedOffset = acknowledged
        skipAcknowledgedHole(delivery: delivery)
        return newly
    }

    /// Ends the stream: holes between held segments and acknowledged bytes never seen are declared
    /// missing, everything held is delivered.
    mutating func finish(delivery: StreamDelivery) {
        guard !isFinished else { return }
        while let first = buffer.firstOffset { skipHole(to: first, delivery: delivery) }
        let acknowledgedEnd = min(acknowledgedOffset, finOffset ?? acknowledgedOffset)
        if acknowledgedEnd > nextOffset { skipHole(to: acknowledgedEnd, delivery: delivery) }
        isFinished = true
        history.release()  // nothing more is compared: free the ring
        delivery.ended()
    }

    /// Declares the hole before the first held segment missing and delivers what continues after it,
    /// to free buffered bytes (a buffer cap was exceeded); false when nothing is held.
    mutating func forcePastFirstHole(delivery: StreamDelivery) -> Bool {
        guard let first = buffer.firstOffset else { return false }
        skipHole(to: first, delivery: delivery)
        return true
    }

    // MARK: - Delivery

    private mutating func deliver(
        _ captured: UnsafeRawBufferPointer, length: Int64, origin: PacketOrigin, delivery: StreamDelivery
    ) {
        let capturedPart = UnsafeRawBufferPointer(start: captured.baseAddress, count: min(captured.count, Int(length)))
        delivery.data(capturedPart, at: nextOffset, origin: origin)
        history.append(capturedPart, at: nextOffset)
        let uncaptured = length - Int64(capturedPart.count)
        if uncaptured > 0 {
            uncapturedBytes += uncaptured
            delivery.gap(at: nextOffset + Int64(capturedPart.count), length: uncaptured, reason: .uncaptured)
        }
        nextOffset += length
        endIfFINReached(delivery: delivery)
    }

    /// Delivers held segments that now continue the stream.
    private mutating func drain(delivery: StreamDelivery) {
        while let first = buffer.firstOffset, first <= nextOffset, let segment = buffer.removeFirst() {
            let skip = nextOffset - segment.offset
            guard skip < segment.length else { continue }
            segment.bytes.withUnsafeBytes { bytes in
                let captured = UnsafeRawBufferPointer(rebasing: bytes.dropFirst(Int(min(skip, Int64(bytes.count)))))
                deliver(captured, length: segment.length - skip, origin: segment.origin, delivery: delivery)
            }
        }
    }

    /// Declares `[nextOffset, offset)` missing and delivers what continues after it.
    private mutating func skipHole(to offset: Int64, delivery: StreamDelivery) {
        guard offset > nextOffset else { return drain(delivery: delivery) }
        missingBytes += offset - nextOffset
        delivery.gap(at: nextOffset, length: offset - nextOffset, reason: .missing)
        nextOffset = offset
        drain(delivery: delivery)
    }

    /// Bytes the peer acknowledged that sit in a hole before held data were lost by the capture, not by
    /// the network: declare them missing so the stream goes on.
    private mutating func skipAcknowledgedHole(delivery: StreamDelivery) {
        while acknowledgedOffset > nextOffset, let first = buffer.firstOffset {
            skipHole(to: min(acknowledgedOffset, first), delivery: delivery)
        }
    }

    private mutating func endIfFINReached(delivery: StreamDelivery) {
        guard let fin = finOffset, nextOffset >= fin, buffer.isEmpty, !isFinished else { return }
        isFinished = true
        delivery.ended()
    }
}

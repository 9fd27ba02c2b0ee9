/// Puts the data of one QUIC stream in one direction back in order (RFC 9000 §2.2): STREAM frames
/// carry an offset, may arrive out of order, and a lost packet's data is sent again in new frames, in
/// whole or in part, so the same stream bytes can come several times.
///
/// `add` takes one frame's data and hands every byte that became contiguous to `deliver`, once, in
/// order, with the packet that made it contiguous (as an application reads it: bytes waiting past a
/// hole are delivered when the hole is filled); it says how many of the frame's bytes were new and how
/// many the stream had already received (retransmitted or duplicated). Data beyond a hole waits, up to `maxBufferedBytes`; past
/// that the hole is given up as a gap (`gap` is called with its range) and delivery goes on after it.
struct QUICStreamReassembler {
    /// What one frame's data added to the stream.
    struct Outcome: Equatable {
        /// Bytes the stream had not received before.
        var newBytes = 0
        /// Bytes already received (in order or waiting): retransmissions and duplicates.
        var duplicateBytes = 0
    }

    /// A run of received bytes waiting past a hole.
    private struct Pending {
        var offset: UInt64
        var bytes: [UInt8]
        var origin: PacketOrigin
        var end: UInt64 { offset + UInt64(bytes.count) }
    }

    /// Bytes waiting past a hole, per stream and direction, beyond which the hole becomes a gap.
    static let maxBufferedBytes = 1 << 20

    /// Bytes before this offset were delivered (or given up as a gap).
    private(set) var delivered: UInt64 = 0
    /// Waiting runs, sorted by offset, not overlapping each other nor `delivered`.
    private var pending: [Pending] = []
    private var pendingBytes = 0
    /// Bytes waiting past a hole.
    var bufferedBytes: Int { pendingBytes }
    /// The stream's final size, once a frame with FIN (or a RESET_STREAM) gave it.
    private(set) var finalSize: UInt64?
    /// True once `deliver` was called with `fin` (every byte up to the final size delivered).
    private(set) var isFinished = false
    /// Bytes given up as gaps.
    private(set) var gapBytes: UInt64 = 0

    /// Adds a frame's `data` at stream `offset` (`fin`: it ends the stream), delivered by `origin`.
    /// `deliver(offset, bytes, fin, origin)` receives newly contiguous bytes in order; `gap(offset,
    /// length)` a hole given up.
    mutating func add(
        offset: UInt64, data: UnsafeRawBufferPointer, fin: Bool, origin: PacketOrigin,
        deliver: (UInt64, UnsafeRawBufferPointer, Bool, PacketOrigin) -> Void, gap: (UInt64, UInt64) -> Void
    ) -> Outcome {
        let end = offset + UInt64(data.count)
        if fin, finalSize == nil { finalSize = end }
        var outcome = Outcome()
        outcome.duplicateBytes = data.count - newBytes(in: offset ..< end)
        outcome.newBytes = data.count - outcome.duplicateBytes
        if offset <= delivered {
            if end > delivered {
                let skip = Int(delivered - offset)
                let fresh = UnsafeRawBufferPointer(rebasing: data[skip...])
                let start = delivered
                delivered = end
                dropPending(before: end)
                deliver(start, fresh, isComplete, origin)
            } else if isComplete, !isFinished {
                deliver(delivered, UnsafeRawBufferPointer(start: nil, count: 0), true, origin)
            }
            drainPending(deliver: deliver, origin: origin)
        } else if outcome.newBytes > 0 {
            insertPending(offset: offset, data: data, origin: origin)
            if pendingBytes > Self.maxBufferedBytes, let first = pending.first {
                gapBytes += first.offset - delivered
                gap(delivered, first.offset - delivered)
                delivered = first.offset
                drainPending(deliver: deliver, origin: origin)
            }
        }
        if isComplete, !isFinished { isFinished = true }
        return outcome
    }

    /// The stream's sender reset it at `finalSize` (RESET_STREAM): nothing past what was delivered
    /// will come; the bytes waiting are dropped.
    mutating func reset(finalSize size: UInt64) {
        if finalSize == nil { finalSize = size }
        pending.removeAll()
        pendingBytes = 0
    }

    /// The end of the capture or of the connection (or a cap): the bytes waiting past a hole are
    /// delivered after the hole is reported as a gap (so a message cut by loss is still parsed as far as
    /// it can be), each run with the packet that carried it.
    mutating func flush(deliver: (UInt64, UnsafeRawBufferPointer, Bool, PacketOrigin) -> Void, gap: (UInt64, UInt64) -> Void) {
        while let first = pending.first {
            if first.offset > delivered {
                gapBytes += first.offset - delivered
                gap(delivered, first.offset - delivered)
                delivered = first.offset
            }
            drainPending(deliver: deliver, origin: nil)
        }
    }

    /// Every byte up to the final size was delivered.
    private var isComplete: Bool { finalSize.map { delivered >= $0 } ?? false }

    /// How many bytes of `range` the stream has not received (neither delivered nor waiting).
    private func newBytes(in range: Range<UInt64>) -> Int {
        guard range.upperBound > delivered else { return 0 }
        var cursor = max(range.lowerBound, delivered)
        var fresh: UInt64 = 0
        for run in pending where run.end > cursor {
            if run.offset >= range.upperBound { break }
            if run.offset > cursor { fresh += run.offset - cursor }
            cursor = max(cursor, run.end)
            if cursor >= range.upperBound { break }
        }
        if cursor < range.upperBound { fresh += range.upperBound - cursor }
        return Int(fresh)
    }

    /// Keeps the parts of `data` at `offset` not received yet, in order among the waiting runs.
    private mutating func insertPending(offset: UInt64, data: UnsafeRawBufferPointer, origin: PacketOrigin) {
        var cursor = offset
        let end = offset + UInt64(data.count)
        var index = pending.firstIndex { $0.end > cursor } ?? pending.endIndex
        while cursor < end {
            let nextStart = index < pending.endIndex ? pending[index].offset : end
            if nextStart > cursor {
                let pieceEnd = min(nextStart, end)
                let bytes = Array(data[Int(cursor - offset) ..< Int(pieceEnd - offset)])
                pending.insert(Pending(offset: cursor, bytes: bytes, origin: origin), at: index)
                pendingBytes += bytes.count
                index += 1
                cursor = pieceEnd
            } else {
                cursor = max(cursor, pending[index].end)
                index += 1
            }
        }
    }

    /// Drops waiting bytes before `offset` (delivered by a frame that covered them).
    private mutating func dropPending(before offset: UInt64) {
        while let first = pending.first, first.offset < offset {
            pending.removeFirst()
            pendingBytes -= first.bytes.count
            if first.end > offset {
                let keep = Array(first.bytes[Int(offset - first.offset)...])
                pending.insert(Pending(offset: offset, bytes: keep, origin: first.origin), at: 0)
                pendingBytes += keep.count
                return
            }
        }
    }

    /// Delivers the waiting runs that start at `delivered`, as delivered by `origin` (nil: by the packets
    /// that carried them).
    private mutating func drainPending(deliver: (UInt64, UnsafeRawBufferPointer, Bool, PacketOrigin) -> Void, origin: PacketOrigin?) {
        while let first = pending.first, first.offset <= delivered {
            pending.removeFirst()
            pendingBytes -= first.bytes.count
            guard first.end > delivered else { continue }
            let skip = Int(delivered - first.offset)
            let start = delivered
            delivered = first.end
            let complete = isComplete
            first.bytes.withUnsafeBytes { deliver(start, UnsafeRawBufferPointer(rebasing: $0[skip...]), complete, origin ?? first.origin) }
        }
    }
}

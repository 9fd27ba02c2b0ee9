/// A segment held because bytes before it have not arrived yet.
struct BufferedSegment {
    /// Stream offset of the first byte.
    var offset: Int64
    /// Captured bytes (at most `length`; fewer when the snaplen cut the packet).
    var bytes: [UInt8]
    /// Length of the segment in the stream.
    var length: Int64
    var origin: PacketOrigin

    var end: Int64 { offset + length }
}

/// Out-of-order segments of one stream direction: sorted by offset, never overlapping (the first copy of
/// every byte wins, later copies only count as overlap).
struct OutOfOrderBuffer {
    private(set) var segments: [BufferedSegment] = []
    /// Captured bytes held.
    private(set) var heldBytes = 0
    /// The reassembler's running total of bytes held by every buffer (see
    /// `TCPReassembler.bufferedBytes`), kept in step with `heldBytes`; nil when nothing counts.
    private let total: UnsafeMutablePointer<Int>?

    init(total: UnsafeMutablePointer<Int>?) { self.total = total }

    var isEmpty: Bool { segments.isEmpty }
    var firstOffset: Int64? { segments.first?.offset }

    /// What inserting a segment did.
    struct Insertion {
        /// Stream bytes that were not held before.
        var newBytes: Int64 = 0
        /// Captured bytes that overlap held bytes with different content.
        var conflictingBytes: Int64 = 0
    }

    /// Holds the bytes of `[offset, offset + length)` not already held. `captured` are the first bytes of
    /// the range (possibly fewer than `length`).
    mutating func insert(
        offset: Int64, length: Int64, captured: UnsafeRawBufferPointer, origin: PacketOrigin
    ) -> Insertion {
        var result = Insertion()
        var cursor = offset
        let end = offset + length
        var index = firstIndex(endingAfter: offset)
        while cursor < end {
            let nextHeld = index < segments.count ? segments[index] : nil
            let pieceEnd = min(end, nextHeld.map { max($0.offset, cursor) } ?? end)
            if pieceEnd > cursor {
                let piece = BufferedSegment(
                    offset: cursor, bytes: Self.slice(captured, from: cursor - offset, to: pieceEnd - offset),
                    length: pieceEnd - cursor, origin: origin)
                heldBytes += piece.bytes.count
                total?.pointee += piece.bytes.count
                result.newBytes += piece.length
                segments.insert(piece, at: index)
                index += 1
                cursor = pieceEnd
                continue
            }
            guard let held = nextHeld else { break }
            let overlapEnd = min(end, held.end)
            result.conflictingBytes += Self.differingBytes(
                held, captured, capturedStart: offset, range: cursor..<overlapEnd)
            cursor = overlapEnd
            index += 1
        }
        return result
    }

    /// Removes and returns the first segment.
    mutating func removeFirst() -> BufferedSegment? {
        guard !segments.isEmpty else { return nil }
        let first = segments.removeFirst()
        heldBytes -= first.bytes.count
        total?.pointee -= first.bytes.count
        return first
    }

    /// Index of the first segment whose end is after `offset` (binary search).
    private func firstIndex(endingAfter offset: Int64) -> Int {
        var low = 0, high = segments.count
        while low < high {
            let middle = (low + high) / 2
            if segments[middle].end <= offset { low = middle + 1 } else { high = middle }
        }
        return low
    }

    private static func slice(_ captured: UnsafeRawBufferPointer, from start: Int64, to end: Int64) -> [UInt8] {
        let lower = Int(min(start, Int64(captured.count)))
        let upper = Int(min(end, Int64(captured.count)))
        return lower < upper ? Array(captured[lower..<upper]) : []
    }

    /// Captured bytes in `range` where `held` and the new copy (which starts at `capturedStart`) differ.
    private static func differingBytes(
        _ held: BufferedSegment, _ captured: UnsafeRawBufferPointer, capturedStart: Int64, range: Range<Int64>
    ) -> Int64 {
        var differing: Int64 = 0
        for position in range {
            let heldIndex = Int(position - held.offset)
            let newIndex = Int(position - capturedStart)
            guard heldIndex < held.bytes.count, newIndex < captured.count else { break }
            if held.bytes[heldIndex] != captured[newIndex] { differing += 1 }
        }
        return differing
    }
}

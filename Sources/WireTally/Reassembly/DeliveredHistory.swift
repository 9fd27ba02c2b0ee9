/// The most recently delivered bytes of one stream direction, kept so that a retransmission can be
/// compared with what was delivered first: a retransmission with different content is a conflicting
/// overlap (an evasion sign; the first copy is what the stream keeps).
///
/// Grows with the stream up to `capacity`, then works as a ring: short connections pay only for what
/// they sent.
struct DeliveredHistory {
    private var ring: [UInt8] = []
    private let capacity: Int
    /// Stream offset stored at ring index 0 (modulo `capacity`).
    private var ringBase: Int64 = 0
    /// Stream offset just past the last byte recorded.
    private var endOffset: Int64 = 0

    init(capacity: Int) { self.capacity = max(0, capacity) }

    /// Records bytes delivered at `offset`; a discontinuity (a gap) starts the history afresh.
    mutating func append(_ bytes: UnsafeRawBufferPointer, at offset: Int64) {
        guard capacity > 0, !bytes.isEmpty else { return }
        if offset != endOffset || ring.isEmpty {
            ring.removeAll(keepingCapacity: true)
            ringBase = offset
            endOffset = offset
        }
        var source = bytes
        if source.count >= capacity {
            source = UnsafeRawBufferPointer(rebasing: source[(source.count - capacity)...])
            ring.removeAll(keepingCapacity: true)
            ringBase = offset + Int64(bytes.count - capacity)
            ring.append(contentsOf: source)
            endOffset = offset + Int64(bytes.count)
            return
        }
        if ring.count < capacity {
            let growth = min(capacity - ring.count, source.count)
            ring.append(contentsOf: UnsafeRawBufferPointer(rebasing: source[0..<growth]))
            endOffset += Int64(growth)
            source = UnsafeRawBufferPointer(rebasing: source[growth...])
        }
        while !source.isEmpty {
            let slot = Int((endOffset - ringBase) % Int64(capacity))
            let run = min(capacity - slot, source.count)
            ring.withUnsafeMutableBytes { destination in
                destination.baseAddress!.advanced(by: slot).copyMemory(from: source.baseAddress!, byteCount: run)
            }
            endOffset += Int64(run)
            source = UnsafeRawBufferPointer(rebasing: source[run...])
        }
    }

    /// How many of `bytes` (a retransmitted copy starting at stream offset `offset`) differ from the
    /// delivered bytes still remembered.
    func differingBytes(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> Int64 {
        let oldest = max(ringBase, endOffset - Int64(ring.count))
        let start = max(offset, oldest)
        let end = min(offset + Int64(bytes.count), endOffset)
        guard start < end else { return 0 }
        var differing: Int64 = 0
        ring.withUnsafeBytes { remembered in
            // By contiguous runs of the ring (one division per run, not per byte); a run ends at the
            // ring's end, and while the ring grows `end` keeps it within the bytes recorded.
            var position = start
            while position < end {
                let slot = Int((position - ringBase) % Int64(capacity))
                let run = Int(min(end - position, Int64(capacity - slot)))
                let copy = Int(position - offset)
                for index in 0..<run where remembered[slot + index] != bytes[copy + index] { differing += 1 }
                position += Int64(run)
            }
        }
        return differing
    }
}

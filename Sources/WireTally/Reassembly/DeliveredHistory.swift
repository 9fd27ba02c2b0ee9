/// The most recently delivered bytes of one stream direction, kept so that a retransmission can be
/// compared with what was delivered first: a retransmission with different content is a conflicting
/// overlap (an evasion sign; the first copy is what the stream keeps).
///
/// Grows with the stream up to `capacity`, then works as a ring: short connections pay only for what
/// they sent. The bytes live in memory the history owns (a class, so that every delivery is one
/// `memcpy` with no copy-on-write check, and growing copies only the bytes recorded).
final class DeliveredHistory {
    /// The ring's bytes: `recorded` of them are valid, `allocated` are reserved.
    private var storage: UnsafeMutableRawPointer?
    private var allocated = 0
    private var recorded = 0
    private var capacity: Int
    /// Stream offset stored at ring index 0 (modulo `capacity`).
    private var ringBase: Int64 = 0
    /// Stream offset just past the last byte recorded.
    private var endOffset: Int64 = 0

    init(capacity: Int) { self.capacity = max(0, capacity) }

    deinit { storage?.deallocate() }

    /// Records bytes delivered at `offset`; a discontinuity (a gap) starts the history afresh.
    func append(_ bytes: UnsafeRawBufferPointer, at offset: Int64) {
        guard capacity > 0, let source = bytes.baseAddress, bytes.count > 0 else { return }
        if offset != endOffset || recorded == 0 {
            recorded = 0
            ringBase = offset
            endOffset = offset
        }
        if bytes.count >= capacity {
            reserve(capacity, keeping: 0)
            storage!.copyMemory(from: source + (bytes.count - capacity), byteCount: capacity)
            recorded = capacity
            ringBase = offset + Int64(bytes.count - capacity)
            endOffset = offset + Int64(bytes.count)
            return
        }
        var copied = 0
        if recorded < capacity {
            let growth = min(capacity - recorded, bytes.count)
            reserve(recorded + growth, keeping: recorded)
            (storage! + recorded).copyMemory(from: source, byteCount: growth)
            recorded += growth
            endOffset += Int64(growth)
            copied = growth
        }
        while copied < bytes.count {
            let slot = Int((endOffset - ringBase) % Int64(capacity))
            let run = min(capacity - slot, bytes.count - copied)
            (storage! + slot).copyMemory(from: source + copied, byteCount: run)
            endOffset += Int64(run)
            copied += run
        }
    }

    /// How many of `bytes` (a retransmitted copy starting at stream offset `offset`) differ from the
    /// delivered bytes still remembered.
    func differingBytes(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> Int64 {
        let oldest = max(ringBase, endOffset - Int64(recorded))
        let start = max(offset, oldest)
        let end = min(offset + Int64(bytes.count), endOffset)
        guard start < end, let remembered = storage else { return 0 }
        var differing: Int64 = 0
        // By contiguous runs of the ring (one division per run, not per byte); a run ends at the ring's
        // end, and while the ring grows `end` keeps it within the bytes recorded.
        var position = start
        while position < end {
            let slot = Int((position - ringBase) % Int64(capacity))
            let run = Int(min(end - position, Int64(capacity - slot)))
            let copy = Int(position - offset)
            for index in 0..<run where remembered.load(fromByteOffset: slot + index, as: UInt8.self) != bytes[copy + index] {
                differing += 1
            }
            position += Int64(run)
        }
        return differing
    }

    /// Forgets every byte and frees the ring; nothing is recorded or compared afterwards.
    func release() {
        storage?.deallocate()
        storage = nil
        allocated = 0
        recorded = 0
        capacity = 0
    }

    /// Makes room for `needed` bytes (at least quadrupling, at most `capacity`: a long stream copies
    /// its history three or four times on the way to the full ring, not six), keeping the first
    /// `keeping` bytes.
    private func reserve(_ needed: Int, keeping: Int) {
        guard needed > allocated else { return }
        let size = min(capacity, max(needed, 4 * allocated))
        let grown = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        if let storage {
            if keeping > 0 { grown.copyMemory(from: storage, byteCount: keeping) }
            storage.deallocate()
        }
        storage = grown
        allocated = size
    }
}

/// The most recently delivered bytes of one stream direction, kept so that a retransmission can be
/// compared with what was delivered first: a retransmission with different content is a conflicting
/// overlap (an evasion sign; the first copy is what the stream keeps).
///
/// The window is the last `capacity` bytes of the run of contiguous deliveries (a gap starts a new
/// run). Bytes delivered from lent packet memory (`LentPacketMemory`) are only referred to; they are
/// copied into the history's ring when their memory is reclaimed, and then only those still in the
/// window, or when a retransmission is compared. Other bytes are copied at delivery.
///
/// The ring grows with the stream up to `capacity`: short connections pay only for what they sent.
/// Its bytes live in memory the history owns (a class, so that a copy is one `memcpy` with no
/// copy-on-write check, and growing copies only the bytes the ring holds).
final class DeliveredHistory {
    /// Delivered bytes in lent packet memory, not copied into the ring yet.
    private struct Reference {
        var offset: Int64
        var bytes: UnsafeRawPointer
        var count: Int
        /// The `LentPacketMemory` loan of the memory `bytes` lies in.
        var loan: Int
    }

    /// References a history keeps at most: beyond them (a stream of tiny segments) bytes are copied at
    /// delivery, so that the list stays small. A power of two (the ring's capacity doubles up to it).
    private static let maxReferences = 256

    /// The ring: stream offset `o` of the window is at index `(o - runStart) % capacity`.
    private var storage: UnsafeMutableRawPointer?
    private var allocated = 0
    private var capacity: Int
    /// Stream offset of the first byte of the current run of contiguous deliveries.
    private var runStart: Int64 = 0
    /// Stream offset just past the last byte delivered.
    private var endOffset: Int64 = 0
    /// Bytes delivered in this run that may be in the window and are not in the ring, oldest first:
    /// `referenceCount` of them from index `firstReference` on, in a ring of `referenceCapacity` (a
    /// power of two, doubled as needed up to `maxReferences`; nil until the first reference). Adding
    /// one and forgetting the oldest (on every delivery and give-back) check no uniqueness and shift
    /// nothing, as an array's append and `removeFirst` did.
    private var referenceRing: UnsafeMutablePointer<Reference>?
    private var referenceCapacity = 0
    private var firstReference = 0
    private var referenceCount = 0
    /// The loan this history last noted itself a borrower of.
    private var borrowedLoan = 0
    /// Unretained (no reference counting on every delivery): the analyzer that lends the memory
    /// outlives every delivery of its streams.
    private let lentMemory: Unmanaged<LentPacketMemory>?

    /// - Parameter lentMemory: where delivered bytes may be referred to instead of copied (nil: copy).
    init(capacity: Int, lentMemory: LentPacketMemory? = nil) {
        self.capacity = max(0, capacity)
        self.lentMemory = lentMemory.map { Unmanaged.passUnretained($0) }
    }

    deinit {
        storage?.deallocate()
        referenceRing?.deallocate()
    }

    /// Stream offset of the oldest byte remembered.
    private var windowStart: Int64 { max(runStart, endOffset - Int64(capacity)) }

    /// Records bytes delivered at `offset`; a discontinuity (a gap) starts the history afresh.
    func append(_ bytes: UnsafeRawBufferPointer, at offset: Int64) {
        guard capacity > 0, let source = bytes.baseAddress, bytes.count > 0 else { return }
        if offset != endOffset || endOffset == runStart {
            runStart = offset
            (firstReference, referenceCount) = (0, 0)
        }
        endOffset = offset + Int64(bytes.count)
        if let lentMemory, referenceCount < Self.maxReferences {
            let loan = lentMemory._withUnsafeGuaranteedRef { $0.loan(holding: bytes) }
            if loan != 0 {
                appendReference(Reference(offset: offset, bytes: source, count: bytes.count, loan: loan))
                if borrowedLoan != loan {
                    borrowedLoan = loan
                    lentMemory._withUnsafeGuaranteedRef { $0.noteBorrower(self) }
                }
                return
            }
        }
        store(source, count: bytes.count, at: offset)
    }

    /// Copies into the ring what the window holds of the bytes referred to in loans up to `loan`, and
    /// forgets those references (their memory is about to be reclaimed).
    func copyReferences(through loan: Int) {
        while referenceCount > 0, let reference = referenceRing?[firstReference], reference.loan <= loan {
            store(reference.bytes, count: reference.count, at: reference.offset)
            firstReference = (firstReference + 1) & (referenceCapacity - 1)
            referenceCount -= 1
        }
    }

    /// How many of `bytes` (a retransmitted copy starting at stream offset `offset`) differ from the
    /// delivered bytes still remembered.
    func differingBytes(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> Int64 {
        copyReferences(through: .max)
        let start = max(offset, windowStart)
        let end = min(offset + Int64(bytes.count), endOffset)
        guard start < end, let remembered = storage else { return 0 }
        var differing: Int64 = 0
        // By contiguous runs of the ring (one division per run, not per byte); a run ends at the ring's
        // end, and while the ring grows `end` keeps it within the bytes stored.
        var position = start
        while position < end {
            let slot = Int((position - runStart) % Int64(capacity))
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
        capacity = 0
        referenceRing?.deallocate()
        referenceRing = nil
        (referenceCapacity, firstReference, referenceCount) = (0, 0, 0)
    }

    /// Adds `reference` after the others (`referenceCount < maxReferences`). Inlined: most deliveries
    /// add one.
    @inline(__always)
    private func appendReference(_ reference: Reference) {
        if referenceCount == referenceCapacity { growReferences() }
        (referenceRing! + ((firstReference + referenceCount) & (referenceCapacity - 1))).initialize(to: reference)
        referenceCount += 1
    }

    /// Doubles the ring of references (8 at first), the oldest moved to index 0.
    private func growReferences() {
        let grownCapacity = max(8, 2 * referenceCapacity)
        let grown = UnsafeMutablePointer<Reference>.allocate(capacity: grownCapacity)
        if let referenceRing {
            for index in 0..<referenceCount {
                (grown + index).initialize(to: referenceRing[(firstReference + index) & (referenceCapacity - 1)])
            }
            referenceRing.deallocate()
        }
        (referenceRing, referenceCapacity, firstReference) = (grown, grownCapacity, 0)
    }

    /// Copies into the ring the part of `count` bytes delivered at `offset` that is still in the window.
    private func store(_ source: UnsafeRawPointer, count: Int, at offset: Int64) {
        let end = offset + Int64(count)
        var position = max(offset, windowStart)
        guard position < end else { return }
        reserve(Int(min(Int64(capacity), endOffset - runStart)))
        while position < end {
            let slot = Int((position - runStart) % Int64(capacity))
            let run = Int(min(end - position, Int64(capacity - slot)))
            (storage! + slot).copyMemory(from: source + Int(position - offset), byteCount: run)
            position += Int64(run)
        }
    }

    /// Makes room for `needed` bytes (at least quadrupling, at most `capacity`: a long stream copies
    /// its ring three or four times on the way to the full ring, not six), keeping the bytes stored.
    private func reserve(_ needed: Int) {
        guard needed > allocated else { return }
        let size = min(capacity, max(needed, 4 * allocated))
        let grown = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        if let storage {
            grown.copyMemory(from: storage, byteCount: allocated)
            storage.deallocate()
        }
        storage = grown
        allocated = size
    }
}

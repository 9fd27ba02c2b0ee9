import Testing
@testable import WireTally

/// The history of delivered bytes compares retransmissions with what was delivered first, whether the
/// first copy was copied at delivery or referred to in lent packet memory (`LentPacketMemory`) and
/// copied only when that memory was reclaimed (after which the memory is rewritten here, as the
/// reader rewrites a batch it gets back).
@Suite struct DeliveredHistoryTests {
    /// A buffer standing for a packet batch's memory.
    final class BatchMemory {
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        private var used = 0

        deinit { bytes.deallocate() }

        /// `content` placed after what was placed before, as a packet's payload in a batch.
        func place(_ content: [UInt8]) -> UnsafeRawBufferPointer {
            let placed = UnsafeMutableRawBufferPointer(rebasing: bytes[used..<used + content.count])
            placed.copyBytes(from: content)
            used += content.count
            return UnsafeRawBufferPointer(placed)
        }

        /// Rewrites every byte (the reader reusing the batch) and starts placing from the beginning.
        func rewrite() {
            bytes.initializeMemory(as: UInt8.self, repeating: 0xEE)
            used = 0
        }
    }

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// A history of `capacity` bytes that may refer to lent memory, and a batch's memory lent.
    static func historyWithALoan(capacity: Int = 64) -> (LentPacketMemory, DeliveredHistory, BatchMemory) {
        let lent = LentPacketMemory()
        let batch = BatchMemory()
        lent.lend(UnsafeRawBufferPointer(batch.bytes))
        return (lent, DeliveredHistory(capacity: capacity, lentMemory: lent), batch)
    }

    /// Reclaims the oldest loan, whose memory is `batch`, and rewrites it.
    static func reclaim(_ lent: LentPacketMemory, rewriting batch: BatchMemory) {
        lent.reclaimOldest()
        batch.rewrite()
    }

    static func differing(_ history: DeliveredHistory, _ text: String, at offset: Int64) -> Int64 {
        bytes(text).withUnsafeBytes { history.differingBytes($0, at: offset) }
    }

    /// Delivered from lent memory, compared after the loan was reclaimed and the memory rewritten.
    @Test func conflictingRetransmissionAfterItsMemoryWasReclaimed() {
        let (lent, history, batch) = Self.historyWithALoan()
        history.append(batch.place(Self.bytes("GET /abcdefgh")), at: 0)
        Self.reclaim(lent, rewriting: batch)
        #expect(lent.outstandingLoans == 0)
        #expect(Self.differing(history, "GET /abcdefgh", at: 0) == 0)
        #expect(Self.differing(history, "GET /abXdeYgh", at: 0) == 2)
        #expect(Self.differing(history, "efgZ", at: 9) == 1)
    }

    /// Compared while the loan is still out: the bytes are read where they were delivered from.
    @Test func conflictingRetransmissionWhileItsMemoryIsLent() {
        let (lent, history, batch) = Self.historyWithALoan()
        history.append(batch.place(Self.bytes("0123456789")), at: 0)
        #expect(Self.differing(history, "01234X6789", at: 0) == 1)
        history.append(batch.place(Self.bytes("abcdef")), at: 10)
        Self.reclaim(lent, rewriting: batch)
        #expect(Self.differing(history, "89abXdef", at: 8) == 1)
    }

    /// Bytes outside the lent memory (here an array, as a segment from the out-of-order buffer) are
    /// copied when delivered: changing them afterwards changes nothing.
    @Test func bytesOutsideLentMemoryAreCopiedAtDelivery() {
        let (lent, history, batch) = Self.historyWithALoan()
        var buffered = Self.bytes("held out of order")
        buffered.withUnsafeBytes { history.append($0, at: 0) }
        buffered.replaceSubrange(0..<4, with: Self.bytes("XXXX"))
        #expect(lent.outstandingLoans == 1)
        #expect(Self.differing(history, "held out of order", at: 0) == 0)
        #expect(Self.differing(history, "held Out", at: 0) == 1)
    }

    /// A 16-byte window reaching over two loans: reclaiming the first copies only its last 6 bytes
    /// (4..<10), the ones still in the window; bytes 0..<4 are forgotten as they would be when copied.
    @Test func windowSpanningTwoLoans() {
        let (lent, history, first) = Self.historyWithALoan(capacity: 16)
        let second = BatchMemory()
        history.append(first.place(Self.bytes("ABCDEFGHIJ")), at: 0)
        lent.lend(UnsafeRawBufferPointer(second.bytes))
        history.append(second.place(Self.bytes("KLMNOPQRST")), at: 10)
        Self.reclaim(lent, rewriting: first)
        #expect(Self.differing(history, "abcdefghijklmnopqrst", at: 0) == 16)
        #expect(Self.differing(history, "ABCDEFGHIJKLMNOPQRST", at: 0) == 0)
        Self.reclaim(lent, rewriting: second)
        let copies = ["ABCDEFGHIJKLMNOPQRSt", "abcdEFGHIJ", "abcdeFGHIJ"]
        #expect(copies.map { Self.differing(history, $0, at: 0) } == [1, 0, 1])
    }

    /// A gap starts a new run: what was delivered before it is no longer compared, even while its
    /// memory is lent.
    @Test func gapForgetsTheReferencesBeforeIt() {
        let (lent, history, batch) = Self.historyWithALoan()
        history.append(batch.place(Self.bytes("before")), at: 0)
        history.append(batch.place(Self.bytes("after")), at: 10)
        Self.reclaim(lent, rewriting: batch)
        #expect(Self.differing(history, "XXXXXX", at: 0) == 0)
        #expect(Self.differing(history, "aXXer", at: 10) == 2)
    }

    /// Random deliveries (lent or copied, with gaps), loans reclaimed two behind, memory rewritten
    /// once reclaimed, and retransmissions with random changes: every comparison counts what a model
    /// that keeps the whole stream counts within the window (the last 16 KiB of the run).
    @Test func matchesAWholeStreamModel() {
        var random = SeededGenerator(state: 21)
        let capacity = 16_384
        let lent = LentPacketMemory()
        let history = DeliveredHistory(capacity: capacity, lentMemory: lent)
        let batches = (0..<4).map { _ in BatchMemory() }
        var lentBatches: [BatchMemory] = []
        var stream: [UInt8] = []
        var runStart = 0
        var compared = 0, conflicting: Int64 = 0
        for round in 0..<1000 {
            let batch = batches[round % batches.count]
            lent.lend(UnsafeRawBufferPointer(batch.bytes))
            lentBatches.append(batch)
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                if Int.random(in: 0..<40, using: &random) == 0 {
                    let gap = Int.random(in: 1...3000, using: &random)
                    stream += [UInt8](repeating: 0, count: gap)
                    runStart = stream.count
                }
                let size = Int.random(in: 1...1500, using: &random)
                let content = (0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }
                if Int.random(in: 0..<5, using: &random) == 0 {
                    content.withUnsafeBytes { history.append($0, at: Int64(stream.count)) }
                } else {
                    history.append(batch.place(content), at: Int64(stream.count))
                }
                stream += content
                if Int.random(in: 0..<10, using: &random) == 0 {
                    let length = Int.random(in: 1...8000, using: &random)
                    let offset = max(0, stream.count - Int.random(in: 1...20_000, using: &random))
                    var copy = (offset..<offset + length).map { $0 < stream.count ? stream[$0] : 0 }
                    for _ in 0..<Int.random(in: 0...20, using: &random) {
                        copy[Int.random(in: 0..<length, using: &random)] ^= 0x5A
                    }
                    let windowStart = max(runStart, stream.count - capacity)
                    let compareEnd = min(offset + length, stream.count)
                    var expected: Int64 = 0
                    if max(offset, windowStart) < compareEnd {
                        for position in max(offset, windowStart)..<compareEnd where copy[position - offset] != stream[position] {
                            expected += 1
                        }
                    }
                    let counted = copy.withUnsafeBytes { history.differingBytes($0, at: Int64(offset)) }
                    #expect(counted == expected, "round \(round), offset \(offset), length \(length)")
                    compared += 1
                    conflicting += counted
                }
            }
            if lentBatches.count > 2 {
                lent.reclaimOldest()
                lentBatches.removeFirst().rewrite()
            }
        }
        #expect(compared > 150 && conflicting > 1000)
    }
}

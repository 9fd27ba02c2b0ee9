/// Packet memory that the analysing thread keeps a while after analysing it, so that the histories of
/// delivered bytes (`DeliveredHistory`) can refer to the bytes there instead of copying every one:
/// the buffers of the last packet batches (`PacketBatch`), lent one at a time as each is analysed and
/// reclaimed, oldest first, when the batch goes back to the reader (on one thread, the buffers one
/// capture file is read into: `HeldReadBuffers`). On reclaiming, each history whose
/// window still reaches into the memory copies those bytes into its own ring; in a busy stream most
/// bytes have left the window by then and are never copied.
///
/// Bytes outside the memory lent now (files merged on one thread, live capture, a datagram rebuilt from IP fragments,
/// segments delivered from the out-of-order buffer) are copied at delivery, as without lending.
/// Used on the analysing thread only.
package final class LentPacketMemory {
    package init() {}

    /// The memory lent now, while its packets are analysed (nil: none).
    private var current: UnsafeRawBufferPointer?
    /// Number of the loan of `current`; loans are numbered from 1 in the order they were made.
    private var currentLoan = 0
    /// Number of the oldest loan not reclaimed.
    private var oldestLoan = 1
    /// For each loan not reclaimed, oldest first: the histories that refer to its memory.
    private var borrowers: [[DeliveredHistory]] = []
    /// Emptied lists of `borrowers`, reused so that a loan allocates nothing once warm.
    private var spareLists: [[DeliveredHistory]] = []

    /// Loans not reclaimed yet.
    var outstandingLoans: Int { borrowers.count }

    /// Lends `memory`: bytes delivered from it may be referred to until `reclaimOldest()` reclaims this
    /// loan (after every earlier one).
    func lend(_ memory: UnsafeRawBufferPointer) {
        current = memory
        currentLoan += 1
        borrowers.append(spareLists.popLast() ?? [])
    }

    /// Reclaims the oldest loan: every history still referring to its memory copies what its window
    /// still holds of it. The memory may be reused once this returns.
    func reclaimOldest() {
        guard !borrowers.isEmpty else { return }
        var histories = borrowers.removeFirst()
        for history in histories { history.copyReferences(through: oldestLoan) }
        if oldestLoan == currentLoan { current = nil }
        oldestLoan += 1
        histories.removeAll(keepingCapacity: true)
        spareLists.append(histories)
    }

    /// The loan whose memory holds all of `bytes` and may be referred to; 0 when none does.
    @inline(__always)
    func loan(holding bytes: UnsafeRawBufferPointer) -> Int {
        guard let current, let start = bytes.baseAddress, let lentStart = current.baseAddress,
              start >= lentStart, start + bytes.count <= lentStart + current.count
        else { return 0 }
        return currentLoan
    }

    /// Notes that `history` refers to the memory of the current loan (once per history and loan).
    func noteBorrower(_ history: DeliveredHistory) {
        borrowers[borrowers.count - 1].append(history)
    }
}

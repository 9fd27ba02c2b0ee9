/// The one-thread path's counterpart of `HeldPacketBatches`: gives the capture input the buffers it
/// reads into (`CaptureBufferLender`) and lends each (`LentPacketMemory`) to the histories of
/// delivered bytes while its packets are analysed, so that they refer to the bytes there instead of
/// copying every one. The last `count` buffers read through are held after their analysis; a buffer
/// is read into again only once its loan is reclaimed (the histories have copied what they still need
/// of it).
///
/// The input asks for the next buffer only when the next packet does not fit in the current one, so
/// every packet in a buffer handed back has been analysed. Used on the analysing thread only; its
/// loans must be the only ones of `memory`.
final class HeldReadBuffers: CaptureBufferLender {
    /// Buffers held after their analysis, as many as the batches of the two-thread path, and each as
    /// big as one of them (so that they stay in the caches the same way).
    static let count = HeldPacketBatches.count
    static let bufferSize = PacketBatch.byteCapacity

    private let memory: LentPacketMemory
    /// The buffers lent, oldest first, one per loan not reclaimed: the last is being read into.
    private var lent: [UnsafeMutableRawBufferPointer] = []
    /// Buffers whose loans were reclaimed, to be read into again.
    private var spare: [UnsafeMutableRawBufferPointer] = []

    init(memory: LentPacketMemory) {
        self.memory = memory
        lent.reserveCapacity(Self.count + 1)
    }

    deinit {
        for buffer in lent { buffer.deallocate() }
        for buffer in spare { buffer.deallocate() }
    }

    func exchangeBuffer(unread: UnsafeRawBufferPointer, minimumCapacity: Int) -> UnsafeMutableRawBufferPointer {
        // `unread` lies in the last buffer lent (or in the input's own): never the one reclaimed here
        while lent.count > Self.count { reclaimOldest() }
        let buffer = spareBuffer(minimumCapacity: max(minimumCapacity, unread.count))
        if let start = unread.baseAddress, unread.count > 0 {
            buffer.baseAddress!.copyMemory(from: start, byteCount: unread.count)
        }
        lent.append(buffer)
        memory.lend(UnsafeRawBufferPointer(buffer))
        return buffer
    }

    /// Reclaims every loan (at the end of the input, before the analysis finishes).
    func reclaimAll() {
        while !lent.isEmpty { reclaimOldest() }
    }

    private func reclaimOldest() {
        memory.reclaimOldest()
        spare.append(lent.removeFirst())
    }

    /// A buffer of at least `minimumCapacity` bytes: a spare one when it is big enough.
    private func spareBuffer(minimumCapacity: Int) -> UnsafeMutableRawBufferPointer {
        if let buffer = spare.popLast() {
            if buffer.count >= minimumCapacity { return buffer }
            buffer.deallocate()
        }
        return .allocate(byteCount: max(minimumCapacity, Self.bufferSize), alignment: 16)
    }
}

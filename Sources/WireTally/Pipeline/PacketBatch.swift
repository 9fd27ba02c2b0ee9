/// Packets in a row, so another thread can analyse them while the reader goes on: one byte buffer
/// and one slot per packet, both reused from batch to batch. The packets get into the buffer in one
/// of two ways: the reader's input reads the file straight into it (`readingBuffer`, then
/// `appendInPlace`), or they are copied out of the reader's own buffer (`append`, when several files
/// are merged). The reader may decode each packet too (the views then point into the batch's buffer);
/// either way the owner the frame names is read as the packet is added
/// (`CapturedPacket.recordFrameOwner(reusing:)`), so that the analysing thread never reads the frame
/// for it.
final class PacketBatch: PipeBatch {
    /// One packet, its bytes in `storage`.
    struct Slot {
        /// The packet, its bytes in the batch's buffer. Whole, not field by field: it is moved in
        /// and read in place, where rebuilding it from fields copied it (retaining its owner) twice.
        var packet: CapturedPacket
        /// The packet decoded by the reader, when `isDecoded`. Not optional: the analysing thread
        /// reads it in place, where unwrapping an optional would copy it.
        var decoded: DecodedPacket = .heldFragment
        /// False when the analysing thread must decode the packet (no decoder given, or an IP
        /// fragment: fragment state belongs to the analysing thread's decoder).
        var isDecoded = false
    }

    /// Bytes a batch holds before it is handed over (a packet bigger than that gets a batch of its own).
    /// Small enough that the batches in flight stay in the caches between the reader's read and the
    /// analysis (1 MiB batches cost 20 % more CPU; 64 KiB ones more hand-overs).
    static let byteCapacity = 256 << 10

    private(set) var slots: [Slot] = []
    /// Bytes the reader had read from its files when the batch was handed over (for progress).
    var fileBytesRead = 0
    private var storage: UnsafeMutableRawPointer
    private var capacity: Int
    /// Bytes of `storage` taken by copied packets.
    private var used = 0
    /// The owner a frame added last named, reused while the next frames name the same.
    private var lastRecordedOwner: RecordedOwner?

    init() {
        capacity = Self.byteCapacity
        storage = .allocate(byteCount: capacity, alignment: 16)
        slots.reserveCapacity(1024)
    }

    deinit { storage.deallocate() }

    /// Copies `packet` in; false when it does not fit any more (a batch always takes its first
    /// packet). With a `decoder`, the copy is decoded (`PacketDecoder.decodeUnlessFragment`).
    func append(_ packet: consuming CapturedPacket, decoder: PacketDecoder?) -> Bool {
        let count = packet.bytes.count
        if used + count > capacity {
            guard slots.isEmpty else { return false }
            replaceStorage(capacity: count, keeping: UnsafeRawBufferPointer(start: nil, count: 0))
        }
        if let base = packet.bytes.baseAddress, count > 0 { (storage + used).copyMemory(from: base, byteCount: count) }
        packet.bytes = UnsafeRawBufferPointer(start: storage + used, count: count)
        used += count
        add(packet, decoder: decoder)
        return true
    }

    /// Takes `packet`, whose bytes lie in this batch's buffer (read there through `readingBuffer`).
    func appendInPlace(_ packet: consuming CapturedPacket, decoder: PacketDecoder?) {
        add(packet, decoder: decoder)
    }

    /// The batch's buffer, for a capture input to read into (`CaptureBufferLender`): at least
    /// `minimumCapacity` bytes, starting with a copy of `unread` (which may lie in it). The batch must
    /// be empty.
    func readingBuffer(startingWith unread: UnsafeRawBufferPointer, minimumCapacity: Int) -> UnsafeMutableRawBufferPointer {
        precondition(slots.isEmpty, "a batch's buffer is read into only while it holds no packets")
        if capacity < minimumCapacity {
            replaceStorage(capacity: max(minimumCapacity, Self.byteCapacity), keeping: unread)
        } else if let base = unread.baseAddress, unread.count > 0 {
            storage.copyMemory(from: base, byteCount: unread.count)
        }
        return UnsafeMutableRawBufferPointer(start: storage, count: capacity)
    }

    /// The batch's buffer, which holds the bytes of every packet in it.
    var memory: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage, count: capacity) }

    /// Empties the batch for reuse (keeps its buffers).
    func clear() {
        slots.removeAll(keepingCapacity: true)
        used = 0
    }

    /// Moves `packet` into a new slot, then decodes it there: the decoded packet is written into its
    /// slot, not built aside and copied in.
    private func add(_ packet: consuming CapturedPacket, decoder: PacketDecoder?) {
        packet.recordFrameOwner(reusing: &lastRecordedOwner)
        slots.append(Slot(packet: packet))
        guard let decoder else { return }
        slots.withUnsafeMutableBufferPointer { slots in
            let slot = slots.baseAddress.unsafelyUnwrapped + (slots.count - 1)
            slot.pointee.isDecoded = decoder.decodeUnlessFragment(slot.pointee.packet, into: &slot.pointee.decoded)
        }
    }

    /// A new buffer of `capacity` bytes starting with a copy of `kept` (which may lie in the old one).
    private func replaceStorage(capacity newCapacity: Int, keeping kept: UnsafeRawBufferPointer) {
        let replacement = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
        if let base = kept.baseAddress, kept.count > 0 { replacement.copyMemory(from: base, byteCount: kept.count) }
        storage.deallocate()
        storage = replacement
        capacity = newCapacity
    }
}

/// Packets in a row, so another thread can analyse them while the reader goes on: one byte buffer
/// and one slot per packet, both reused from batch to batch. The packets get into the buffer in one
/// of two ways: the reader's input reads the file straight into it (`readingBuffer`, then
/// `appendInPlace`), or they are copied out of the reader's own buffer (`append`, when several files
/// are merged). The reader may decode each packet too (the views then point into the batch's buffer);
/// either way the owner the frame names is read as the packet is added
/// (`CapturedPacket.recordFrameOwner(reusing:)`), so that the analysing thread never reads the frame
/// for it.
final class PacketBatch: PipeBatch {
    /// One packet, its bytes in `storage`. Slots are filled field by field where they lie
    /// (`add`), never built aside and copied in.
    struct Slot {
        /// The packet, its bytes in the batch's buffer. Whole, not field by field: it is moved in
        /// and read in place, where rebuilding it from fields copied it (retaining its owner) twice.
        var packet: CapturedPacket
        /// The packet decoded by the reader, when `isDecoded`. Not optional: the analysing thread
        /// reads it in place, where unwrapping an optional would copy it.
        var decoded: DecodedPacket
        /// False when the analysing thread must decode the packet (no decoder given, or an IP
        /// fragment: fragment state belongs to the analysing thread's decoder).
        var isDecoded: Bool
    }

    /// Bytes a batch holds before it is handed over (a packet bigger than that gets a batch of its own).
    /// Small enough that the batches in flight stay in the caches between the reader's read and the
    /// analysis (1 MiB batches cost 20 % more CPU; 64 KiB ones more hand-overs).
    static let byteCapacity = 256 << 10

    /// The batch's packets in order, valid until the batch is cleared (read them in place: a copy
    /// of a slot copies its decoded packet).
    var slots: UnsafeBufferPointer<Slot> { UnsafeBufferPointer(start: slotStorage, count: slotCount) }

    /// Calls `body` with each slot in order, where it lies.
    @inline(__always)
    func forEachSlot(_ body: (UnsafePointer<Slot>) -> Void) {
        for slot in UnsafePointer(slotStorage)..<UnsafePointer(slotStorage + slotCount) { body(slot) }
    }

    /// Bytes the reader had read from its files when the batch was handed over (for progress).
    var fileBytesRead = 0
    private var storage: UnsafeMutableRawPointer
    private var capacity: Int
    /// Bytes of `storage` taken by copied packets.
    private var used = 0
    /// The owner a frame added last named, reused while the next frames name the same.
    private var lastRecordedOwner: RecordedOwner?
    /// The owners of the slots' packets, each once per run of packets it owns: kept alive here while the
    /// slots are (a packet does not retain its `recordedOwner`, and its reader or `lastRecordedOwner`
    /// moves on to the next one).
    private var slotOwners: [RecordedOwner] = []
    /// Room for `slotCapacity` slots, the first `slotCount` in use. Not an array: a slot is
    /// initialized where it lies, field by field, which an array's `append` cannot do.
    private var slotStorage: UnsafeMutablePointer<Slot>
    private var slotCapacity = 1024
    private var slotCount = 0

    init() {
        capacity = Self.byteCapacity
        storage = .allocate(byteCount: capacity, alignment: 16)
        slotStorage = .allocate(capacity: slotCapacity)
    }

    deinit {
        slotStorage.deinitialize(count: slotCount)
        slotStorage.deallocate()
        storage.deallocate()
    }

    /// Copies `packet` in; false when it does not fit any more (a batch always takes its first
    /// packet). With a `decoder`, the copy is decoded (`PacketDecoder.decodeUnlessFragment`).
    func append(_ packet: consuming CapturedPacket, decoder: PacketDecoder?) -> Bool {
        let count = packet.bytes.count
        if used + count > capacity {
            guard slotCount == 0 else { return false }
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
        precondition(slotCount == 0, "a batch's buffer is read into only while it holds no packets")
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
        slotStorage.deinitialize(count: slotCount)
        slotCount = 0
        used = 0
        slotOwners.removeAll(keepingCapacity: true)
    }

    /// Fills the next slot where it lies: the packet decoded straight into it (a `DecodedPacket` is
    /// plain data, so it may be written over the slot's uninitialized memory), then the packet moved in.
    private func add(_ packet: consuming CapturedPacket, decoder: PacketDecoder?) {
        if slotCount == slotCapacity { growSlots() }
        let slot = slotStorage + slotCount
        packet.recordFrameOwner(reusing: &lastRecordedOwner)
        if let owner = packet.recordedOwner, owner !== slotOwners.last { slotOwners.append(owner) }
        let decoded = slot.pointer(to: \.decoded).unsafelyUnwrapped
        let isDecoded: Bool
        if let decoder {
            isDecoded = decoder.decodeUnlessFragment(packet, into: &decoded.pointee)
        } else {
            decoded.initialize(to: .heldFragment)
            isDecoded = false
        }
        slot.pointer(to: \.isDecoded).unsafelyUnwrapped.initialize(to: isDecoded)
        slot.pointer(to: \.packet).unsafelyUnwrapped.initialize(to: packet)
        slotCount += 1
    }

    /// Twice the room for slots, the slots in use moved over.
    private func growSlots() {
        let grown = UnsafeMutablePointer<Slot>.allocate(capacity: 2 * slotCapacity)
        grown.moveInitialize(from: slotStorage, count: slotCount)
        slotStorage.deallocate()
        slotStorage = grown
        slotCapacity *= 2
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

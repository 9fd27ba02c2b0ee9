/// Packets in a row, so another thread can analyse them while the reader goes on: one byte buffer
/// and one slot per packet, both reused from batch to batch. The packets get into the buffer in one
/// of two ways: the reader's input reads the file straight into it (`readingBuffer`, then
/// `appendInPlace`), or they are copied out of the reader's own buffer (`append`, when several files
/// are merged). The reader may decode each packet too (the views then point into the batch's buffer).
final class PacketBatch: PipeBatch {
    /// One packet's bytes in `storage`, and its record fields.
    struct Slot {
        var frameNumber: Int
        var timestamp: Timestamp
        var linkType: LinkType
        var originalLength: Int
        var bytes: UnsafeRawBufferPointer
        var fileIndex: Int
        var interfaceIndex: Int
        var recordedOwner: RecordedOwner?
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

    init() {
        capacity = Self.byteCapacity
        storage = .allocate(byteCount: capacity, alignment: 16)
        slots.reserveCapacity(1024)
    }

    deinit { storage.deallocate() }

    /// Copies `packet` in; false when it does not fit any more (a batch always takes its first
    /// packet). With a `decoder`, the copy is decoded (`PacketDecoder.decodeUnlessFragment`).
    func append(_ packet: CapturedPacket, decoder: PacketDecoder?) -> Bool {
        let count = packet.bytes.count
        if used + count > capacity {
            guard slots.isEmpty else { return false }
            replaceStorage(capacity: count, keeping: UnsafeRawBufferPointer(start: nil, count: 0))
        }
        if let base = packet.bytes.baseAddress, count > 0 { (storage + used).copyMemory(from: base, byteCount: count) }
        let copy = UnsafeRawBufferPointer(start: storage + used, count: count)
        used += count
        add(packet, bytes: copy, decoder: decoder)
        return true
    }

    /// Takes `packet`, whose bytes lie in this batch's buffer (read there through `readingBuffer`).
    func appendInPlace(_ packet: CapturedPacket, decoder: PacketDecoder?) {
        add(packet, bytes: packet.bytes, decoder: decoder)
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

    /// The packet of `slot`, its bytes valid until the batch is cleared.
    func packet(_ slot: Slot) -> CapturedPacket {
        CapturedPacket(
            frameNumber: slot.frameNumber, timestamp: slot.timestamp, linkType: slot.linkType,
            originalLength: slot.originalLength, bytes: slot.bytes,
            fileIndex: slot.fileIndex, interfaceIndex: slot.interfaceIndex, recordedOwner: slot.recordedOwner)
    }

    /// Empties the batch for reuse (keeps its buffers).
    func clear() {
        slots.removeAll(keepingCapacity: true)
        used = 0
    }

    private func add(_ packet: CapturedPacket, bytes: UnsafeRawBufferPointer, decoder: PacketDecoder?) {
        var slot = Slot(
            frameNumber: packet.frameNumber, timestamp: packet.timestamp, linkType: packet.linkType,
            originalLength: packet.originalLength, bytes: bytes, fileIndex: packet.fileIndex,
            interfaceIndex: packet.interfaceIndex, recordedOwner: packet.recordedOwner)
        if let decoder, let decoded = decoder.decodeUnlessFragment(self.packet(slot)) {
            slot.decoded = decoded
            slot.isDecoded = true
        }
        slots.append(slot)
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

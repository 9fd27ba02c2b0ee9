/// Packets copied out of a reader's buffer in a row, so another thread can analyse them while the
/// reader goes on: one byte buffer and one slot per packet, both reused from batch to batch. The reader
/// may decode each packet's copy too (the views then point into the batch's buffer).
final class PacketBatch {
    /// Where one packet's bytes are in `storage`, and its record fields.
    struct Slot {
        var frameNumber: Int
        var timestamp: Timestamp
        var linkType: LinkType
        var originalLength: Int
        var offset: Int
        var count: Int
        var fileIndex: Int
        var interfaceIndex: Int
        /// The packet decoded by the reader, when `isDecoded`. Not optional: the analysing thread
        /// reads it in place, where unwrapping an optional would copy it.
        var decoded: DecodedPacket = .heldFragment
        /// False when the analysing thread must decode the packet (no decoder given, or an IP
        /// fragment: fragment state belongs to the analysing thread's decoder).
        var isDecoded = false
    }

    /// Bytes a batch holds before it is handed over (a packet bigger than that gets a batch of its own).
    /// Small enough that the batches in flight stay in the caches between the reader's copy and the
    /// analysis (1 MiB batches cost 20 % more CPU; 64 KiB ones more hand-overs).
    static let byteCapacity = 256 << 10

    private(set) var slots: [Slot] = []
    /// Bytes the reader had read from its files when the batch was handed over (for progress).
    var fileBytesRead = 0
    private var storage: UnsafeMutableRawPointer
    private var capacity: Int
    private var used = 0

    init() {
        capacity = Self.byteCapacity
        storage = .allocate(byteCount: capacity, alignment: 16)
        slots.reserveCapacity(1024)
    }

    deinit { storage.deallocate() }

    /// False when `packet` does not fit any more (a batch always takes its first packet). With a
    /// `decoder`, the copy is decoded (`PacketDecoder.decodeUnlessFragment`).
    func append(_ packet: CapturedPacket, decoder: PacketDecoder?) -> Bool {
        let count = packet.bytes.count
        if used + count > capacity {
            guard slots.isEmpty else { return false }
            storage.deallocate()
            capacity = count
            storage = .allocate(byteCount: capacity, alignment: 16)
        }
        if let base = packet.bytes.baseAddress, count > 0 { (storage + used).copyMemory(from: base, byteCount: count) }
        var slot = Slot(
            frameNumber: packet.frameNumber, timestamp: packet.timestamp, linkType: packet.linkType,
            originalLength: packet.originalLength, offset: used, count: count, fileIndex: packet.fileIndex,
            interfaceIndex: packet.interfaceIndex)
        if let decoder, let decoded = decoder.decodeUnlessFragment(self.packet(slot)) {
            slot.decoded = decoded
            slot.isDecoded = true
        }
        slots.append(slot)
        used += count
        return true
    }

    /// The packet of `slot`, its bytes valid until the batch is cleared.
    func packet(_ slot: Slot) -> CapturedPacket {
        CapturedPacket(
            frameNumber: slot.frameNumber, timestamp: slot.timestamp, linkType: slot.linkType,
            originalLength: slot.originalLength, bytes: UnsafeRawBufferPointer(start: storage + slot.offset, count: slot.count),
            fileIndex: slot.fileIndex, interfaceIndex: slot.interfaceIndex)
    }

    /// Empties the batch for reuse (keeps its buffers).
    func clear() {
        slots.removeAll(keepingCapacity: true)
        used = 0
    }
}

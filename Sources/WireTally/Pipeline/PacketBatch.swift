/// Packets in a row, so another thread can analyse them while the reader goes on: one byte buffer
/// and one slot per packet, both reused from batch to batch. The packets' bytes get there in one of
/// three ways: they stay in the mapped file, the batch keeping the windows they lie in (`keep`, then
/// `appendInPlace`); the reader's input reads the file straight into the batch's buffer
/// (`readingBuffer`, then `appendInPlace`); or they are copied out of the reader's own buffer
/// (`append`, when several files are merged). The reader may decode each packet too (the views then
/// point where the packet's bytes are).
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
    /// Bytes of the packets taken in place.
    private(set) var inPlaceBytes = 0
    /// The mapped windows the packets taken in place lie in.
    private var windows: [MappedFileWindow] = []

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

    /// Takes `packet`, whose `byteCount` bytes lie in this batch's buffer (read there through
    /// `readingBuffer`) or in a window it keeps. The count comes from the caller: read here, from the
    /// consumed packet, it cost a copy of the packet.
    func appendInPlace(_ packet: consuming CapturedPacket, byteCount: Int, decoder: PacketDecoder?) {
        inPlaceBytes &+= byteCount
        add(packet, decoder: decoder)
    }

    /// Keeps `window` mapped while the batch is in use: the packets appended in place from now on
    /// lie in it.
    func keep(_ window: MappedFileWindow) {
        if windows.last !== window { windows.append(window) }
    }

    /// Lets go of the windows of the packets the batch held before (their last holder unmaps them),
    /// keeping `current`, the one the reader's input reads from now. Called by the reading thread
    /// as it takes the batch to fill, so that the unmapping is that thread's work.
    func keepOnly(_ current: MappedFileWindow?) {
        windows.removeAll(keepingCapacity: true)
        if let current { windows.append(current) }
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

    /// Empties the batch for reuse (keeps its buffers).
    func clear() {
        slots.removeAll(keepingCapacity: true)
        used = 0
        inPlaceBytes = 0
    }

    private func add(_ packet: consuming CapturedPacket, decoder: PacketDecoder?) {
        if let decoder, let decoded = decoder.decodeUnlessFragment(packet) {
            slots.append(Slot(packet: packet, decoded: decoded, isDecoded: true))
        } else {
            slots.append(Slot(packet: packet))
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

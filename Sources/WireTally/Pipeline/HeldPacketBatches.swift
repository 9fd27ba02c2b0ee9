/// The packet batches the analysing thread has analysed and not given back to the reader yet: the
/// last `count` are held, their buffers lent (`LentPacketMemory`) to the histories of delivered bytes,
/// which then refer to the bytes there instead of copying them. A batch goes back to the reader only
/// once its loan is reclaimed (the histories have copied what they still need of it), so the reader
/// never rewrites memory a history refers to.
struct HeldPacketBatches {
    /// Batches held after their analysis. In dense traffic a busy stream's 64 KiB window has moved past
    /// a batch's bytes within two or three batches (256 KiB each), so those are never copied.
    static let count = 3

    private let memory: LentPacketMemory
    private let reader: BackgroundPacketReader
    private var held: [PacketBatch] = []

    init(memory: LentPacketMemory, reader: BackgroundPacketReader) {
        self.memory = memory
        self.reader = reader
        held.reserveCapacity(Self.count + 1)
    }

    /// Lends `batch`'s memory while its packets are analysed.
    func analysing(_ batch: PacketBatch) {
        memory.lend(batch.memory)
    }

    /// Holds `batch`, analysed, and gives the oldest batch held back when more than `count` are.
    mutating func analysed(_ batch: PacketBatch) {
        held.append(batch)
        if held.count > Self.count { giveBackOldest() }
    }

    /// Gives every batch held back (at the end of the input).
    mutating func giveBackAll() {
        while !held.isEmpty { giveBackOldest() }
    }

    private mutating func giveBackOldest() {
        memory.reclaimOldest()
        reader.done(held.removeFirst())
    }
}

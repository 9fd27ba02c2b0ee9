/// The QPACK state for the field sections one side encodes, as its peer decodes them: the dynamic
/// table the side's encoder stream builds, read incrementally, and the decoding of its field sections.
///
/// The table is intact until the encoder stream loses bytes (a gap: later instructions cannot be
/// framed) or carries an invalid instruction (a reference outside the table, an entry larger than the
/// capacity, a capacity above `maxTableCapacity`, an instruction longer than the table could hold): it
/// is then lost for good, and sections that refer to it fail with `.tableLost`; sections that use the
/// static table only still decode. A section failing on its own never changes the table.
struct QPACKDecoderState {
    /// The largest dynamic table capacity honoured: 1 MiB (aioquic and browsers advertise 4–64 KiB;
    /// the table holds at most this many bytes of names and values).
    static let maxTableCapacity = 1 << 20

    enum TableState: Equatable {
        case intact
        /// Encoder-stream bytes were lost (a gap).
        case lost
        /// The encoder stream carried an invalid instruction.
        case failed
    }

    private(set) var table = QPACKDynamicTable(maxCapacity: maxTableCapacity)
    private(set) var tableState = TableState.intact
    private var instructions = QPACKInstructionBuffer(maxPending: maxTableCapacity + 64)
    private var huffman = QPACKHuffman()
    /// SETTINGS_QPACK_MAX_TABLE_CAPACITY of the decoding side (the peer), when its SETTINGS were seen.
    var advertisedMaxCapacity: UInt64?
    /// The largest capacity the encoder set: stands in for the advertised maximum until that is known.
    private(set) var largestCapacitySet: UInt64 = 0
    /// Encoder instructions read: inserts (Duplicate included) and capacity changes.
    private(set) var inserts = 0
    private(set) var capacityChanges = 0
    let maxListSize: Int

    init(maxListSize: Int) { self.maxListSize = max(maxListSize, 1) }

    /// Bytes of the encoder stream, in order.
    mutating func encoderStream(_ bytes: UnsafeRawBufferPointer) {
        guard tableState == .intact else { return }
        var read: [QPACKEncoderInstruction] = []
        var huffman = self.huffman
        let ok = instructions.feed(bytes, read: { p, start in
            QPACKEncoderInstruction.read(p, at: start, maxStringLength: Self.maxTableCapacity, huffman: &huffman)
        }, handle: { read.append($0) })
        self.huffman = huffman
        for instruction in read where !apply(instruction) {
            tableState = .failed
            return
        }
        if !ok { tableState = .failed }
    }

    /// Encoder-stream bytes were lost: the table is unknown from here.
    mutating func loseEncoderStream() {
        if tableState == .intact { tableState = .lost }
    }

    private mutating func apply(_ instruction: QPACKEncoderInstruction) -> Bool {
        switch instruction {
        case .setCapacity(let capacity):
            capacityChanges += 1
            largestCapacitySet = max(largestCapacitySet, capacity)
            return table.setCapacity(capacity)
        case .insertWithNameReference(let isStatic, let index, let value):
            let name = isStatic ? QPACKStaticTable.entry(index)?.name : table.entry(relative: index)?.name
            guard let name else { return false }
            return insert(name: name, value: value)
        case .insertWithLiteralName(let name, let value):
            return insert(name: name, value: value)
        case .duplicate(let relativeIndex):
            guard let entry = table.entry(relative: relativeIndex) else { return false }
            return insert(name: entry.name, value: entry.value)
        }
    }

    private mutating func insert(name: String, value: String) -> Bool {
        inserts += 1
        return table.insert(name: name, value: value)
    }

    /// MaxEntries (RFC 9204 §4.5.1.1) from the advertised capacity, else the largest the encoder set.
    private var maxEntries: UInt64? {
        let capacity = advertisedMaxCapacity ?? (largestCapacitySet > 0 ? largestCapacitySet : nil)
        return capacity.map { $0 / 32 }
    }

    /// Decodes an encoded field section (a HEADERS payload).
    mutating func decodeSection(_ section: UnsafeRawBufferPointer) -> QPACKSectionOutcome {
        let reader = QPACKFieldSectionReader(
            table: table, maxEntries: maxEntries, tableLost: tableState != .intact, maxListSize: maxListSize)
        return reader.decode(section, huffman: &huffman)
    }
}

/// Counts the instructions of a QPACK decoder stream (RFC 9204 §4.4): they tell the encoder what was
/// decoded and change nothing an observer decodes.
struct QPACKDecoderStreamReader {
    private var instructions = QPACKInstructionBuffer(maxPending: 16)
    private(set) var sectionAcknowledgments = 0
    private(set) var streamCancellations = 0
    private(set) var insertCountIncrements = 0
    /// An instruction could not be read (nothing more is read).
    private(set) var failed = false

    mutating func read(_ bytes: UnsafeRawBufferPointer) {
        guard !failed else { return }
        var acks = 0, cancellations = 0, increments = 0
        let ok = instructions.feed(bytes, read: { p, start in QPACKDecoderInstruction.read(p, at: start) }, handle: { instruction in
            switch instruction {
            case .sectionAcknowledgment: acks += 1
            case .streamCancellation: cancellations += 1
            case .insertCountIncrement: increments += 1
            }
        })
        sectionAcknowledgments += acks
        streamCancellations += cancellations
        insertCountIncrements += increments
        if !ok { failed = true }
    }
}

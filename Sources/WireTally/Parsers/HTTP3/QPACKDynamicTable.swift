/// The QPACK dynamic table of one encoder as its peer's decoder holds it (RFC 9204 §3.2): entries by
/// absolute index (the first inserted is 0), the oldest evicted when an insert or a smaller capacity
/// needs room. Entry size = name + value + 32 bytes. References to entries are not tracked (an
/// observer does not block evictions: the encoder only evicts what it may).
struct QPACKDynamicTable {
    struct Entry {
        var name: String
        var value: String
        var size: Int { name.utf8.count + value.utf8.count + 32 }
    }

    /// The largest capacity honoured (`QPACKDecoderState.maxTableCapacity`).
    let maxCapacity: Int
    private(set) var capacity = 0
    private(set) var size = 0
    /// Entries inserted since the start (the absolute index the next insert gets).
    private(set) var insertCount: UInt64 = 0
    /// Entries still in the table, oldest first from `first`.
    private var entries: [Entry] = []
    private var first = 0

    init(maxCapacity: Int) { self.maxCapacity = maxCapacity }

    /// Entries in the table now.
    var count: Int { entries.count - first }

    /// Set Dynamic Table Capacity; false when above `maxCapacity`.
    mutating func setCapacity(_ newCapacity: UInt64) -> Bool {
        guard newCapacity <= UInt64(maxCapacity) else { return false }
        capacity = Int(newCapacity)
        evict(toFit: 0)
        return true
    }

    /// Inserts an entry, evicting the oldest as needed; false when it is larger than the capacity.
    mutating func insert(name: String, value: String) -> Bool {
        let entry = Entry(name: name, value: value)
        guard entry.size <= capacity else { return false }
        evict(toFit: entry.size)
        entries.append(entry)
        size += entry.size
        insertCount += 1
        return true
    }

    /// The entry with absolute index `index`, nil when not inserted yet or evicted.
    func entry(absolute index: UInt64) -> Entry? {
        let evicted = insertCount - UInt64(count)
        guard index >= evicted, index < insertCount else { return nil }
        return entries[first + Int(index - evicted)]
    }

    /// The entry `relative` places back from the newest (encoder instructions, RFC 9204 §3.2.5).
    func entry(relative: UInt64) -> Entry? {
        guard relative < insertCount else { return nil }
        return entry(absolute: insertCount - 1 - relative)
    }

    private mutating func evict(toFit needed: Int) {
        while size + needed > capacity && first < entries.count {
            size -= entries[first].size
            first += 1
        }
        // Drop evicted slots once they are the larger part, so storage follows the live entries.
        if first > 32 && first * 2 > entries.count {
            entries.removeFirst(first)
            first = 0
        }
    }
}

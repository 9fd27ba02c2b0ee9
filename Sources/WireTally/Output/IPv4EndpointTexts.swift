/// The texts of IPv4 endpoints written lately (`10.0.0.1:59470`): a connection's client and server come
/// again with each of its exchanges, so an endpoint's text is kept in one of 16 slots picked by a hash of
/// the address and port, and copied (three word stores) instead of formatted again (five numbers) while
/// no other endpoint took the slot. The slots are made at the first endpoint (most encoders write none).
struct IPv4EndpointTexts {
    /// The room `write` needs at its destination (the longest text, 21 bytes, as whole words).
    static var maximumCount: Int { 24 }

    private struct Entry {
        /// The address in bits 16–47, the port in the low 16; all ones: no endpoint yet.
        var key = UInt64.max
        /// The text's bytes in memory order, zero after `count`.
        var text: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var count = 0
    }

    /// Owns the slots (shared by copies of an encoder, freed with the last).
    private final class Slots {
        static var count: Int { 16 }
        let entries = UnsafeMutablePointer<Entry>.allocate(capacity: count)
        init() { entries.initialize(repeating: Entry(), count: Self.count) }
        deinit { entries.deallocate() }
    }

    private var slots: Slots?
    /// `slots`' entries, read without reference counting (a class reference read for each endpoint was
    /// a retain and a release).
    private var entries: UnsafeMutablePointer<Entry>?

    /// Stores the text of the IPv4 endpoint `address`:`port` (`IPAddress.writeIPv4Text`) at
    /// `destination` (room for `maximumCount` bytes, which may all be written); returns its length.
    @inline(__always)
    mutating func write(_ address: IPAddress, port: UInt16, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        let key = UInt64(UInt32(truncatingIfNeeded: address.low)) << 16 | UInt64(port)
        guard let entries else { return writeFirst(address, port: port, to: destination) }
        // Fibonacci hashing: the top four bits of the key times 2^64 / φ
        let entry = entries + Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 60)
        guard entry.pointee.key == key else { return Self.writeNew(address, port: port, key: key, into: entry, to: destination) }
        let to = UnsafeMutableRawPointer(destination)
        to.storeBytes(of: entry.pointee.text.0, as: UInt64.self)
        to.storeBytes(of: entry.pointee.text.1, toByteOffset: 8, as: UInt64.self)
        to.storeBytes(of: entry.pointee.text.2, toByteOffset: 16, as: UInt64.self)
        return entry.pointee.count
    }

    /// Makes the slots, then writes the first endpoint.
    @inline(never)
    private mutating func writeFirst(_ address: IPAddress, port: UInt16, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        let slots = Slots()
        self.slots = slots
        entries = slots.entries
        return write(address, port: port, to: destination)
    }

    /// Formats an endpoint its slot does not hold, and keeps it there.
    @inline(never)
    private static func writeNew(
        _ address: IPAddress, port: UInt16, key: UInt64, into entry: UnsafeMutablePointer<Entry>,
        to destination: UnsafeMutablePointer<UInt8>
    ) -> Int {
        destination.initialize(repeating: 0, count: maximumCount)
        let count = address.writeIPv4Text(port: port, to: destination)
        (destination + count).update(repeating: 0, count: maximumCount &- count)  // (its stores may go past)
        let text = UnsafeRawPointer(destination)
        entry.pointee = Entry(
            key: key,
            text: (
                text.loadUnaligned(as: UInt64.self), text.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                text.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
            ),
            count: count
        )
        return count
    }
}

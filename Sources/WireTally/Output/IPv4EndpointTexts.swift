/// The texts of the last two IPv4 endpoints written (`10.0.0.1:59470`): a connection's client and server
/// come again with each of its exchanges, so the text of one seen last is copied (three word stores)
/// instead of formatted again (five numbers).
struct IPv4EndpointTexts {
    /// The room `write` needs at its destination (the longest text, 21 bytes, as whole words).
    static var maximumCount: Int { 24 }

    private struct Entry {
        /// The address in bits 16–47, the port in the low 16; all ones: no endpoint yet.
        var key = UInt64.max
        /// The text's bytes in memory order, zero after `count`.
        var text: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var count = 0

        @inline(__always)
        func store(to destination: UnsafeMutablePointer<UInt8>) -> Int {
            let to = UnsafeMutableRawPointer(destination)
            to.storeBytes(of: text.0, as: UInt64.self)
            to.storeBytes(of: text.1, toByteOffset: 8, as: UInt64.self)
            to.storeBytes(of: text.2, toByteOffset: 16, as: UInt64.self)
            return count
        }
    }

    private var first = Entry(), second = Entry()
    /// Whether a new endpoint replaces `first` (the one used less recently), else `second`.
    private var replacesFirst = true

    /// Stores the text of the IPv4 endpoint `address`:`port` (`IPAddress.writeIPv4Text`) at
    /// `destination` (room for `maximumCount` bytes, which may all be written); returns its length.
    @inline(__always)
    mutating func write(_ address: IPAddress, port: UInt16, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        let key = UInt64(UInt32(truncatingIfNeeded: address.low)) << 16 | UInt64(port)
        if first.key == key {
            replacesFirst = false
            return first.store(to: destination)
        }
        if second.key == key {
            replacesFirst = true
            return second.store(to: destination)
        }
        return writeNew(address, port: port, key: key, to: destination)
    }

    /// Formats an endpoint not among the two kept, and keeps it in place of the one used less recently.
    @inline(never)
    private mutating func writeNew(
        _ address: IPAddress, port: UInt16, key: UInt64, to destination: UnsafeMutablePointer<UInt8>
    ) -> Int {
        destination.initialize(repeating: 0, count: Self.maximumCount)
        let count = address.writeIPv4Text(port: port, to: destination)
        (destination + count).update(repeating: 0, count: Self.maximumCount &- count)
        let text = UnsafeRawPointer(destination)
        let entry = Entry(
            key: key,
            text: (
                text.loadUnaligned(as: UInt64.self), text.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                text.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
            ),
            count: count
        )
        if replacesFirst { first = entry } else { second = entry }
        replacesFirst.toggle()
        return count
    }
}

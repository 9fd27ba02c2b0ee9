/// The recent packets one endpoint sent in one packet-number space, as the capture showed them: which
/// packet numbers were seen (a second copy is a duplicate), which exchange each packet's stream frames
/// served, and which were acknowledged — so an ACK can be given to the exchange whose data it newly
/// acknowledges (RFC 9000 §13.2: an ACK frame lists ranges of packet numbers).
///
/// Bounded: only the `window` packet numbers below the largest one seen are remembered; an older packet
/// number counts as new and its owner as unknown.
struct QUICPacketLog {
    private struct Entry {
        /// The exchange the packet's stream frames served (the largest share), -1 for none.
        var owner: Int32
        var acknowledged = false
    }

    /// Packet numbers remembered below the largest one seen.
    static let window: UInt64 = 4096

    private var entries: [UInt64: Entry] = [:]
    private var largest: UInt64?

    /// Notes a packet; false when that packet number was seen before (a duplicate datagram or packet).
    mutating func note(_ packetNumber: UInt64, owner: Int?) -> Bool {
        if let largest, packetNumber + Self.window < largest { return true }
        guard entries[packetNumber] == nil else { return false }
        entries[packetNumber] = Entry(owner: owner.map { Int32(clamping: $0) } ?? -1)
        if packetNumber > largest ?? 0 || largest == nil {
            largest = packetNumber
            if entries.count > Int(2 * Self.window) {
                entries = entries.filter { $0.key + Self.window >= packetNumber }
            }
        }
        return true
    }

    /// Gives a packet's owner afterwards (its frames were read after it was noted).
    mutating func setOwner(_ owner: Int, of packetNumber: UInt64) {
        entries[packetNumber]?.owner = Int32(clamping: owner)
    }

    /// Marks the packets of `ranges` acknowledged and returns the owner of the largest one newly
    /// acknowledged that had one (nil when none had).
    mutating func acknowledge(_ ranges: [ClosedRange<UInt64>]) -> Int? {
        var best: (packetNumber: UInt64, owner: Int)?
        for range in ranges {
            let newest = min(range.upperBound, largest ?? 0)
            guard newest >= range.lowerBound else { continue }
            // walk the smaller of the range and the remembered packets
            if newest - range.lowerBound < UInt64(entries.count) {
                var packetNumber = newest
                while true {
                    acknowledge(packetNumber, into: &best)
                    if packetNumber == range.lowerBound { break }
                    packetNumber -= 1
                }
            } else {
                for packetNumber in entries.keys where range.contains(packetNumber) { acknowledge(packetNumber, into: &best) }
            }
        }
        return best?.owner
    }

    private mutating func acknowledge(_ packetNumber: UInt64, into best: inout (packetNumber: UInt64, owner: Int)?) {
        guard let entry = entries[packetNumber], !entry.acknowledged else { return }
        entries[packetNumber]?.acknowledged = true
        guard entry.owner >= 0, best.map({ packetNumber > $0.packetNumber }) ?? true else { return }
        best = (packetNumber, Int(entry.owner))
    }
}

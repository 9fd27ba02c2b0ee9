/// The recent packets one endpoint sent in one packet-number space, as the capture showed them: which
/// packet numbers were seen (a second copy is a duplicate), which exchange each packet's stream frames
/// served, and which were acknowledged — so an ACK can be given to the exchange whose data it newly
/// acknowledges (RFC 9000 §13.2: an ACK frame lists ranges of packet numbers).
///
/// A ring of the last `window` packet numbers (indexed by number: no hashing), and a watermark below
/// which every number is acknowledged or unknown, so an ACK frame — whose first range usually repeats
/// everything acknowledged before — costs only its new numbers. An older packet number counts as new
/// and its owner as unknown.
struct QUICPacketLog {
    private struct Slot {
        /// The packet number in the slot (`UInt64.max`: none yet).
        var packetNumber = UInt64.max
        /// The exchange the packet's stream frames served (the largest share), -1 for none.
        var owner: Int32 = -1
        var acknowledged = false
    }

    /// Packet numbers remembered below the largest one seen.
    static let window: UInt64 = 4096

    private var slots = [Slot](repeating: Slot(), count: Int(window))
    private var largest: UInt64?
    /// Every packet number below it is acknowledged or was never seen.
    private var acknowledgedBelow: UInt64 = 0

    /// Notes a packet; false when that packet number was seen before (a duplicate datagram or packet).
    mutating func note(_ packetNumber: UInt64, owner: Int?) -> Bool {
        if let largest, packetNumber + Self.window <= largest { return true }
        let index = Int(packetNumber % Self.window)
        guard slots[index].packetNumber != packetNumber else { return false }
        slots[index] = Slot(packetNumber: packetNumber, owner: owner.map { Int32(clamping: $0) } ?? -1)
        if largest.map({ packetNumber > $0 }) ?? true { largest = packetNumber }
        acknowledgedBelow = min(acknowledgedBelow, packetNumber)
        return true
    }

    /// Gives a packet's owner afterwards (its frames were read after it was noted).
    mutating func setOwner(_ owner: Int, of packetNumber: UInt64) {
        let index = Int(packetNumber % Self.window)
        if slots[index].packetNumber == packetNumber { slots[index].owner = Int32(clamping: owner) }
    }

    /// Marks the packets of `ranges` acknowledged and returns the owner of the largest one newly
    /// acknowledged that had one (nil when none had).
    mutating func acknowledge(_ ranges: [ClosedRange<UInt64>]) -> Int? {
        guard let largest else { return nil }
        let oldest = max(acknowledgedBelow, largest >= Self.window ? largest - Self.window + 1 : 0)
        var best: (packetNumber: UInt64, owner: Int)?
        for range in ranges where range.upperBound >= oldest && range.lowerBound <= largest {
            var packetNumber = min(range.upperBound, largest)
            let lowest = max(range.lowerBound, oldest)
            while true {
                let index = Int(packetNumber % Self.window)
                if slots[index].packetNumber == packetNumber, !slots[index].acknowledged {
                    slots[index].acknowledged = true
                    let owner = Int(slots[index].owner)
                    if owner >= 0, best.map({ packetNumber > $0.packetNumber }) ?? true { best = (packetNumber, owner) }
                }
                if packetNumber == lowest { break }
                packetNumber -= 1
            }
        }
        advanceWatermark(upTo: largest)
        return best?.owner
    }

    /// Moves the watermark past packet numbers acknowledged or never seen.
    private mutating func advanceWatermark(upTo largest: UInt64) {
        acknowledgedBelow = max(acknowledgedBelow, largest >= Self.window ? largest - Self.window + 1 : 0)
        while acknowledgedBelow <= largest {
            let slot = slots[Int(acknowledgedBelow % Self.window)]
            guard slot.packetNumber != acknowledgedBelow || slot.acknowledged else { return }
            acknowledgedBelow += 1
        }
    }
}

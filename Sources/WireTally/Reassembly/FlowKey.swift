/// A direction-free key for a flow: protocol plus both endpoints in canonical order, so both
/// directions of a connection find the same entry.
struct FlowKey: Hashable {
    var lowAddress: IPAddress
    var highAddress: IPAddress
    var lowPort: UInt16
    var highPort: UInt16
    var transportProtocol: UInt8

    init(transportProtocol: UInt8, _ a: IPAddress, _ aPort: UInt16, _ b: IPAddress, _ bPort: UInt16) {
        self.transportProtocol = transportProtocol
        if Self.precedes(a, aPort, b, bPort) {
            lowAddress = a; lowPort = aPort; highAddress = b; highPort = bPort
        } else {
            lowAddress = b; lowPort = bPort; highAddress = a; highPort = aPort
        }
    }

    /// `(a, aPort) < (b, bPort)`, without a tuple comparison (every packet builds a key).
    @inline(__always)
    private static func precedes(_ a: IPAddress, _ aPort: UInt16, _ b: IPAddress, _ bPort: UInt16) -> Bool {
        a == b ? aPort < bPort : a < b
    }

    /// Slots of `ActivityTable`'s recently found flows: a few hundred, so that the flows a capture
    /// interleaves seldom share one.
    static let recentSlots = 1 << recentSlotBits
    private static let recentSlotBits = 8

    /// The slot of this key among `recentSlots`: the addresses' low words and the ports folded into
    /// one word and multiplied by 2^64 / φ, whose top bits spread nearby values over the slots (a few
    /// instructions, where the dictionary's hash takes a few hundred). Equal keys share a slot.
    @inline(__always)
    var recentSlot: Int {
        let folded = lowAddress.low ^ highAddress.low.byteSwapped ^ (UInt64(lowPort) << 16 | UInt64(highPort))
        return Int(truncatingIfNeeded: (folded &* 0x9E37_79B9_7F4A_7C15) >> (64 - Self.recentSlotBits))
    }

    /// Hashes the addresses and ports folded into three words (one `Hasher` round per word instead of
    /// one per field: this runs for every packet). Equal keys fold equally, as `==` requires.
    func hash(into hasher: inout Hasher) {
        hasher.combine(lowAddress.high ^ (highAddress.high &* 0x9E37_79B9_7F4A_7C15))
        hasher.combine(lowAddress.low ^ (highAddress.low &* 0x9E37_79B9_7F4A_7C15))
        hasher.combine(UInt64(lowPort) | UInt64(highPort) << 16 | UInt64(transportProtocol) << 32
            | (lowAddress.isIPv6 ? 1 << 40 : 0) | (highAddress.isIPv6 ? 1 << 41 : 0))
    }
}

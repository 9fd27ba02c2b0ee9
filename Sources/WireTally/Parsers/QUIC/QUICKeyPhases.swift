/// The 1-RTT keys of one direction across key updates (RFC 9001 §6): the current generation, the one
/// before it (kept for packets reordered across the update, §6.5) and the next one, derived when a
/// packet first shows the other key phase bit. A generation becomes current only once a packet opened
/// with it (§6.3), so a forged or damaged bit cannot move the keys.
struct QUICKeyPhases {
    /// Which generation, relative to the current one.
    enum Generation { case current, previous, next }

    private(set) var current: QUICPacketKeys
    /// The key phase bit of `current` (generation 0 has 0; it alternates with each update).
    private(set) var currentPhase = false
    private var previous: QUICPacketKeys?
    private var next: QUICPacketKeys?
    /// The lowest packet number opened with `current`: a packet below it with the other bit is the
    /// previous generation's, above it the next one's.
    private var currentFirstPacket: UInt64?
    /// Updates this direction made (generations beyond the first).
    private(set) var updates = 0

    init(_ keys: QUICPacketKeys) { current = keys }

    /// The generations to try for a packet whose key phase bit is `phase` and number `packetNumber`,
    /// most likely first: with the current bit, the current one; with the other bit, the previous
    /// generation for a packet older than the current generation, else the next one (derived here).
    mutating func candidates(phase: Bool, packetNumber: UInt64) -> [Generation] {
        guard phase != currentPhase else { return [.current] }
        if next == nil { next = current.nextPhase }
        let older = currentFirstPacket.map { packetNumber < $0 } ?? false
        let both: [Generation] = older ? [.previous, .next] : [.next, .previous]
        return both.filter { keys($0) != nil }
    }

    /// The keys of `generation`, when it exists.
    func keys(_ generation: Generation) -> QUICPacketKeys? {
        switch generation {
        case .current: current
        case .previous: previous
        case .next: next
        }
    }

    /// Packet `packetNumber` opened with `generation`: the next generation becomes current (the current
    /// one previous).
    mutating func opened(packetNumber: UInt64, with generation: Generation) {
        switch generation {
        case .next:
            guard let next else { return }
            previous = current
            current = next
            self.next = nil
            currentPhase.toggle()
            currentFirstPacket = packetNumber
            updates += 1
        case .current:
            currentFirstPacket = min(currentFirstPacket ?? packetNumber, packetNumber)
        case .previous:
            break
        }
    }
}

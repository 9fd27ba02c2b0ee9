/// The packets something owns on the wire, per direction: counts at the three levels (IP, frame,
/// transport payload) and by category (setup, payload, retransmission, ack, teardown).
///
/// The categories of a direction add up to its ``DirectionTally/total`` at every level.
public struct Wire: Hashable, Sendable {
    /// Client to server.
    public var up: DirectionTally
    /// Server to client.
    public var down: DirectionTally

    /// The packets of each direction (none by default).
    public init(up: DirectionTally = DirectionTally(), down: DirectionTally = DirectionTally()) {
        self.up = up
        self.down = down
    }

    init(_ wire: ExchangeWire) {
        self.init(up: wire.tally(.up), down: wire.tally(.down))
    }

    /// One direction.
    public subscript(direction: FlowDirection) -> DirectionTally { direction == .up ? up : down }

    /// Bytes of one direction at `level` (all categories).
    public func bytes(_ direction: FlowDirection, level: WireLevel = .ip) -> Int { level.value(self[direction].total) }

    /// Bytes of both directions at `level`.
    public func bytes(level: WireLevel = .ip) -> Int { bytes(.up, level: level) + bytes(.down, level: level) }

    /// Packets of both directions.
    public var packets: Int { up.total.packets + down.total.packets }
}

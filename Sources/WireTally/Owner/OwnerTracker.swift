/// Keeps the owner of each live connection and flow (by its direction-free key) while packets
/// name them; only captures with owners (PKTAP, Apple or PCAPdroid pcapng, PCAPdroid trailers) fill
/// it.
final class OwnerTracker {
    private var owners: [FlowKey: TrafficOwner] = [:]

    /// Notes that a packet of the flow `key` named `origin`.
    @inline(__always)
    func note(_ origin: PacketOwner, key: FlowKey) {
        if let known = owners[key] {
            if !known.isConflicting, !known.first.namesSameOwner(as: origin) { owners[key]?.isConflicting = true }
        } else {
            owners[key] = TrafficOwner(origin)
        }
    }

    /// The owner of the flow `key` so far.
    func owner(of key: FlowKey) -> TrafficOwner? {
        owners.isEmpty ? nil : owners[key]
    }

    /// The owner of the flow `key`, forgotten: its record is being written.
    func take(_ key: FlowKey) -> TrafficOwner? {
        owners.isEmpty ? nil : owners.removeValue(forKey: key)
    }
}

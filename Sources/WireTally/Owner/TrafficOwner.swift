/// The process or app a connection or flow belongs to: the owner its first packet naming one
/// names. `isConflicting` when a later packet named another owner (records flag it
/// `owner_conflict`).
public struct TrafficOwner: Equatable, Sendable {
    public var kind: PacketOwner.Kind
    /// Pid (process) or uid (app).
    public var id: Int32
    /// The process or app name; nil when the capture gave an empty one.
    public var name: String?
    /// The process a delegated socket acted for (Apple), nil when not delegated.
    public var effectiveID: Int32?
    public var effectiveName: String?
    public internal(set) var isConflicting = false
    /// The packet-level owner, to compare later packets with.
    let first: PacketOwner

    init(_ origin: PacketOwner) {
        first = origin
        kind = origin.kind
        id = origin.id
        name = origin.name.isEmpty ? nil : origin.name.description
        effectiveID = origin.effectiveID
        effectiveName = origin.effectiveName.isEmpty ? nil : origin.effectiveName.description
    }

    /// The name traffic is grouped under: the effective process (the app a daemon worked for), else
    /// the process or app name, else `pid N` / `uid N`.
    public var label: String {
        if let effectiveName { return effectiveName }
        if let name { return name }
        return kind == .app ? "uid \(id)" : "pid \(id)"
    }
}

/// The process or app a connection or flow belongs to: the owner its first packet naming one
/// names. `isConflicting` when a later packet named another owner (records flag it
/// `owner_conflict`).
package struct TrafficOwner: Equatable, Sendable {
    package var kind: PacketOwner.Kind
    /// Pid (process) or uid (app).
    package var id: Int32
    /// The process or app name; nil when the capture gave an empty one.
    package var name: String?
    /// The process a delegated socket acted for (Apple), nil when not delegated.
    package var effectiveID: Int32?
    package var effectiveName: String?
    package internal(set) var isConflicting = false
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
    package var label: String {
        if let effectiveName { return effectiveName }
        if let name { return name }
        return kind == .app ? "uid \(id)" : "pid \(id)"
    }
}

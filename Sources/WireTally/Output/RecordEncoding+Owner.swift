extension RecordEncoding {
    /// The `process` (`{pid, name, effective_pid, effective_name}`) or `app` (`{uid, name}`) member
    /// of connection, flow and http records; absent when the capture names no owner.
    static func ownerField<Encoder: JSONEncoding>(_ origin: TrafficOwner?, to encoder: inout Encoder) {
        guard let origin else { return }
        switch origin.kind {
        case .process:
            encoder.object("process") { encoder in
                encoder.field("pid", Int(origin.id))
                encoder.field("name", origin.name)
                encoder.field("effective_pid", origin.effectiveID.map(Int.init))
                encoder.field("effective_name", origin.effectiveName)
            }
        case .app:
            encoder.object("app") { encoder in
                encoder.field("uid", Int(origin.id))
                encoder.field("name", origin.name)
            }
        case .none:
            break
        }
    }

    /// `owner_conflict` when packets of the connection or flow named different owners.
    static func ownerFlags(_ origin: TrafficOwner?) -> [String] {
        origin?.isConflicting == true ? ["owner_conflict"] : []
    }
}

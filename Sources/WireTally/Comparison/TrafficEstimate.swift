/// What an app-layer source — a built-in estimator, or an app's own log entry — says one exchange cost,
/// to be compared with the wire.
package struct TrafficEstimate: Hashable, Sendable {
    /// Upload bytes (request) and download bytes (response) the source reports.
    package var up: Int
    package var down: Int
    /// The source's own split into header and body bytes, when it has one.
    package var upHeaders: Int?
    package var upBody: Int?
    package var downHeaders: Int?
    package var downBody: Int?

    package init(up: Int, down: Int, upHeaders: Int? = nil, upBody: Int? = nil, downHeaders: Int? = nil, downBody: Int? = nil) {
        self.up = up
        self.down = down
        self.upHeaders = upHeaders
        self.upBody = upBody
        self.downHeaders = downHeaders
        self.downBody = downBody
    }
}

/// The level of wire truth estimates are compared with.
public enum WireLevel: String, CaseIterable, Sendable {
    case ip = "ip_bytes"
    case frame = "frame_bytes"
    case payload = "payload_bytes"

    /// The counter of this level.
    public func value(_ counters: TrafficCounters) -> Int {
        switch self {
        case .ip: return counters.ipBytes
        case .frame: return counters.frameBytes
        case .payload: return counters.payloadBytes
        }
    }
}

/// The one category each TCP packet is counted in.
public enum PacketCategory: Int, CaseIterable, Sendable {
    /// SYN, SYN-ACK (first copies and retransmissions) and the pure ACK completing the handshake.
    case setup
    /// A packet carrying payload bytes seen for the first time (also when it has FIN or PSH set).
    case payload
    /// A packet whose payload bytes were all seen before (retransmission or duplicate).
    case retransmission
    /// A pure ACK: no payload, no SYN/FIN/RST, before any FIN of the connection.
    case ack
    /// FIN or RST without new payload, and every pure ACK after the connection's first FIN.
    case teardown

    /// The name used in JSON output.
    public var name: String { key.description }

    /// The name as a literal: the key of the category in records, written without run-time escaping.
    package var key: StaticString {
        switch self {
        case .setup: return "setup"
        case .payload: return "payload"
        case .retransmission: return "retransmission"
        case .ack: return "ack"
        case .teardown: return "teardown"
        }
    }
}

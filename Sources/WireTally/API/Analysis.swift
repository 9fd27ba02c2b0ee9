/// Everything an analysis found: the HTTP exchanges with their exact wire bytes, the connections
/// that carried them, the DNS lookups and the summary of every packet read.
///
/// Made by ``Capture/analyze(files:keyLogs:options:)``, or from a stream with
/// ``init(collecting:)``. Compare it with what an app counted with ``Comparison/run(_:appLog:level:)``.
public struct Analysis: Sendable {
    /// In the order they completed (a connection's exchanges in connection order).
    public internal(set) var exchanges: [Exchange] = []
    /// TCP and QUIC connections, in the order they ended.
    public internal(set) var connections: [Connection] = []
    /// The DNS lookups (over UDP and TCP), in the order they completed.
    public internal(set) var dns: [DNSLookup] = []
    /// What happened to every packet read.
    public internal(set) var summary = Summary(CaptureSummary())

    init() {}

    /// Collects a stream's records (from ``Capture/records(files:keyLogs:options:)`` or
    /// ``Capture/live(interface:keyLogs:options:durationSeconds:)``) until it ends.
    public init<Records: AsyncSequence>(collecting records: Records) async throws where Records.Element == Record {
        for try await record in records { add(record) }
    }

    mutating func add(_ record: Record) {
        switch record {
        case let .exchange(exchange): exchanges.append(exchange)
        case let .connection(connection): connections.append(connection)
        case let .dns(lookup): dns.append(lookup)
        case let .summary(summary): self.summary = summary
        }
    }

    /// The exchanges carried by connection `id`, in connection order.
    public func exchanges(onConnection id: Int) -> [Exchange] {
        exchanges.filter { $0.connectionID == id }.sorted { $0.index < $1.index }
    }
}

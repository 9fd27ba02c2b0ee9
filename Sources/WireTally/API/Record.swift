/// One finished unit of an analysis, as a stream hands it over: a connection's exchanges come just
/// before the connection, and the summary last.
public enum Record: Hashable, Sendable {
    case exchange(Exchange)
    case connection(Connection)
    case dns(DNSLookup)
    case summary(Summary)

    /// The record of the pipeline's `record`; nil for what the facade does not report on its own
    /// (flows: their packets are in ``Summary/otherIP``).
    init?(_ record: AnalysisRecord, keepsSources: Bool) {
        switch record {
        case let .exchange(record):
            self = .exchange(Exchange(record.exchange, id: record.id, connection: record.connection, keepsSource: keepsSources))
        case let .connection(connection): self = .connection(Connection(connection))
        case let .quicConnection(connection): self = .connection(Connection(connection))
        case let .dns(transaction): self = .dns(DNSLookup(transaction))
        case .flow: return nil
        }
    }
}

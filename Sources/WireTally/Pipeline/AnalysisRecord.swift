/// A finished unit of analysis handed to the output: emitted as soon as it is complete, so output
/// streams while a capture is read. A connection's exchanges come just before the connection.
///
/// An emitted record no longer changes: an exchange's record is an immutable `ExchangeRecord` (its
/// `ExchangeConnection` a copy taken at emission), a DNS transaction is a value, and a connection,
/// QUIC connection or flow is emitted once it has left its tracker's table, after which the analyzer
/// does not touch it. So a writer may read records on another thread (`OffThreadRecordWriter`), as
/// long as the last reference to a record is dropped on the analysing thread (`RecordBatch`).
package enum AnalysisRecord {
    case connection(TCPConnection)
    /// A QUIC connection (UDP datagrams followed by connection ID).
    case quicConnection(QUICConnection)
    case flow(IPFlow)
    /// An HTTP exchange with its record id and its connection, by reference.
    case exchange(ExchangeRecord)
    // DNS
    /// A DNS query with its answer (either may be missing), as soon as it is answered or given up.
    /// Indirect, so that this ~300-byte value does not make every record that size: a record is then
    /// one pointer, moved as such into and out of a `RecordBatch` and through the writer's calls.
    indirect case dns(DNSTransaction)
}

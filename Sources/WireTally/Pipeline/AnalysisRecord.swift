/// A finished unit of analysis handed to the output: emitted as soon as it is complete, so output
/// streams while a capture is read. A connection's exchanges come just before the connection.
///
/// An emitted record no longer changes: an exchange and a DNS transaction are values (the exchange's
/// `ExchangeConnection` is a copy taken at emission), and a connection, QUIC connection or flow is
/// emitted once it has left its tracker's table, after which the analyzer does not touch it. So a
/// writer may read records on another thread (`OffThreadRecordWriter`), as long as the last reference
/// to a connection is dropped on the analysing thread (`RecordBatch`).
package enum AnalysisRecord {
    case connection(TCPConnection)
    /// A QUIC connection (UDP datagrams followed by connection ID).
    case quicConnection(QUICConnection)
    case flow(IPFlow)
    /// An HTTP exchange with its record id (1, 2, … in emission order) and its connection.
    case exchange(HTTPExchange, id: Int, connection: ExchangeConnection)
    // DNS
    /// A DNS query with its answer (either may be missing), as soon as it is answered or given up.
    case dns(DNSTransaction)
}

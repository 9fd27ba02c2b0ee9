/// A finished unit of analysis handed to the output: emitted as soon as it is complete, so output
/// streams while a capture is read. A connection's exchanges come just before the connection.
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

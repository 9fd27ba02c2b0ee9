/// An HTTP exchange's record (`AnalysisRecord.exchange`): the exchange, its record id and its
/// connection as they were when it was emitted.
///
/// A reference, so that the record — about 1 KB of values, the exchange's wire share alone 440
/// bytes — is built once in its own memory and then moves from the analyzer through a `RecordBatch` to
/// a writer as one pointer. It does not change once made, so a writer may read it on another thread;
/// the last reference to it is dropped on the analysing thread (by its `RecordBatch`), as for every
/// record.
package final class ExchangeRecord {
    /// The exchange, with its timing as emitted.
    package let exchange: HTTPExchange
    /// The record id: 1, 2, … in emission order.
    package let id: Int
    /// The exchange's connection as it was at emission.
    package let connection: ExchangeConnection

    package init(_ exchange: consuming HTTPExchange, id: Int, connection: consuming ExchangeConnection) {
        self.exchange = exchange
        self.id = id
        self.connection = connection
    }

    /// Exchange `exchange` of TCP connection `connection` as it is now (`tls`, `owner`: see
    /// `ExchangeConnection.snapshot`). Inlined into its one caller: the exchange is moved into the
    /// record's memory once, and the connection's snapshot is made here rather than passed in.
    @inline(__always)
    init(_ exchange: consuming HTTPExchange, id: Int, of connection: TCPConnection, tls: TLSConnectionAnalysis?, owner: SharedTrafficOwner?) {
        self.connection = .snapshot(
            of: connection, tls: tls, exchange: exchange.index, decrypted: exchange.tlsRecords != nil, owner: owner)
        self.exchange = exchange
        self.id = id
    }
}

/// One TCP connection or QUIC connection, with every packet it carried.
///
/// Conservation: per direction, the ``Exchange/wire`` of its exchanges plus ``unattributed`` equals
/// ``wire`` at every level. A DNS-over-TCP connection's packets go to its ``DNSLookup``s instead
/// (their ``DNSLookup/wire``, both directions together) and ``unattributed``.
public struct Connection: Hashable, Sendable {
    /// The record id (shared with flows: 1, 2, … in the order they were first seen).
    public var id: Int
    /// `tcp` or `quic`.
    public var transport: Exchange.Transport
    /// `ip:port` of the client (the SYN sender).
    public var client: String
    /// `ip:port` of the server.
    public var server: String
    /// Capture time of its first packet, seconds since 1970.
    public var firstTime: Double
    /// Capture time of its last packet, seconds since 1970.
    public var lastTime: Double
    /// All its packets, per direction, level and category.
    public var wire: Wire
    /// The packets no exchange owns (a connection without HTTP, or packets before the first or
    /// between exchanges that the attribution rules leave to the connection), per direction.
    public var unattributed: DirectionPair<TrafficCounters>
    /// Exchanges it carried.
    public var exchangeCount: Int
    /// Flag names as in the JSON Lines record (`gap`, `evicted`, `reset`, `tls_no_key`…).
    public var flags: [String]

    init(_ connection: TCPConnection) {
        let ledger = connection.ledger
        id = connection.id
        transport = .tcp
        client = connection.clientEndpoint
        server = connection.serverEndpoint
        firstTime = connection.firstTimestamp.seconds
        lastTime = connection.lastTimestamp.seconds
        wire = Wire(up: ledger.tally(.up), down: ledger.tally(.down))
        unattributed = DirectionPair(ledger.unattributed(.up), ledger.unattributed(.down))
        exchangeCount = (connection.consumer as? ApplicationLayerAnalysis)?.exchangeCount ?? 0
        flags = RecordEncoding.flags(of: connection)
    }

    init(_ connection: QUICConnection) {
        let ledger = connection.ledger
        id = connection.id
        transport = .quic
        client = connection.clientEndpoint
        server = connection.serverEndpoint
        firstTime = connection.firstTimestamp.seconds
        lastTime = connection.lastTimestamp.seconds
        wire = Wire(up: ledger.totals.up, down: ledger.totals.down)
        unattributed = ledger.unattributed
        exchangeCount = connection.exchangeCount
        flags = connection.flags.names
    }
}

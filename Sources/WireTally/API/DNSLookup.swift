/// One DNS query with its answer (either may be missing), over UDP or TCP port 53.
///
/// Its packets are also counted by their flow (UDP) or connection (TCP): a lookup is a finer view,
/// not an outcome of its own. The lookup that gave an exchange's server address is also counted on
/// that exchange (``Exchange/dnsIPBytes``).
public struct DNSLookup: Hashable, Sendable {
    /// The record id.
    public var id: Int
    /// `ip:port` of the client.
    public var client: String
    /// `ip:port` of the server.
    public var server: String
    /// `udp` or `tcp`.
    public var transport: String
    /// The name asked for (lower-cased, no trailing dot).
    public var query: String?
    /// The record type asked for (`A`, `AAAA`, `HTTPS`…).
    public var queryType: String?
    /// The response code (`NOERROR`, `NXDOMAIN`…); nil without response.
    public var responseCode: String?
    /// The addresses the answer gave (following its CNAME chain).
    public var addresses: [String]
    /// The names of the answer's CNAME chain.
    public var cnames: [String]
    /// Capture time of the query, seconds since 1970.
    public var queryTime: Double?
    /// Capture time of the answer, seconds since 1970; nil without answer.
    public var answerTime: Double?
    /// All packets of the lookup (queries, retries and answers). Over TCP: the packets its
    /// connection's ledger gave it, as an exchange of that connection.
    public var wire: TrafficCounters
    /// DNS over TCP: the ``Connection/id`` of its connection; nil over UDP.
    public var connectionID: Int?
    /// Flag names as in the JSON Lines record (`no_query`, `no_response`, `malformed`…).
    public var flags: [String]

    init(_ transaction: DNSTransaction) {
        id = transaction.id
        client = transaction.client.description
        server = transaction.server.description
        transport = transaction.transport.rawValue
        query = transaction.question?.name
        queryType = transaction.question?.type.description
        responseCode = transaction.response?.rcode.description
        addresses = transaction.addresses.map(\.description)
        cnames = transaction.cnames
        queryTime = transaction.queryTimestamp?.seconds
        answerTime = transaction.answerTimestamp?.seconds
        wire = transaction.wire
        connectionID = transaction.connectionID
        flags = transaction.flags.names
    }
}

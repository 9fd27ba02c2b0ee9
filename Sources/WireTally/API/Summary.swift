/// What happened to every packet read: the last record of an analysis.
///
/// Conservation: every packet read is counted in exactly one outcome — ``tcp``, ``quic``,
/// ``otherIP``, ``filtered``, ``undecoded`` — so they add up to ``read`` (``isConserved``).
public struct Summary: Hashable, Sendable {
    /// Every packet read.
    public var read: TrafficCounters
    /// Packets of TCP connections.
    public var tcp: TrafficCounters
    /// Packets of QUIC connections.
    public var quic: TrafficCounters
    /// Packets of other flows (other UDP, other IP).
    public var otherIP: TrafficCounters
    /// Packets the filter rejected.
    public var filtered: TrafficCounters
    /// Packets that could not be decoded to a flow (unknown link type, bad IP header…) and IP
    /// fragments whose datagram never completed.
    public var undecoded: TrafficCounters
    /// TCP connections reported.
    public var connections: Int
    /// QUIC connections reported.
    public var quicConnections: Int
    /// Other flows reported (their packets are in ``otherIP``).
    public var flows: Int
    /// HTTP exchanges reported.
    public var exchanges: Int
    /// IP bytes of the packets the exchanges own.
    public var attributedIPBytes: Int
    /// DNS lookups reported.
    public var dnsLookups: Int
    /// Stream bytes the capture never saw (holes).
    public var missingBytes: Int
    /// Connections with a hole (bytes the capture never saw).
    public var connectionsWithGaps: Int
    /// TLS connections (and QUIC connections) by decryption status (`decrypted`, `partial`,
    /// `no_key`, `failed`, `unsupported_cipher`) when key logs were given.
    public var tlsDecryption: [String: Int]
    /// Capture time of the first packet, seconds since 1970.
    public var firstTime: Double?
    /// Capture time of the last packet, seconds since 1970.
    public var lastTime: Double?
    /// Input that could not be read completely (a truncated or corrupt file, a filter that does not
    /// compile for a link type): everything reported before the damage is complete.
    public var inputErrors: [String]

    /// True when every packet read is counted in exactly one outcome (packets and frame bytes).
    public var isConserved: Bool {
        let sum = tcp + quic + otherIP + filtered + undecoded
        return sum.packets == read.packets && sum.frameBytes == read.frameBytes
    }

    /// The summary of a run, unless the run analysed nothing because of its problems: its input
    /// errors (nil), or those and the caller's own (the command line's app logs it could not read).
    package init(checking summary: CaptureSummary, problems: [String]? = nil) throws(WireTallyError) {
        let problems = problems ?? summary.errors
        if summary.analysedNothing(problems: problems) { throw .nothingAnalysed(problems: problems) }
        self.init(summary)
    }

    init(_ summary: CaptureSummary) {
        read = summary.read
        tcp = summary.inConnections
        quic = summary.inQUICConnections
        otherIP = summary.inFlows
        filtered = summary.filtered
        undecoded = summary.undecoded.values.reduce(summary.incompleteFragments, +)
        connections = summary.connections
        quicConnections = summary.quicConnections
        flows = summary.flows
        exchanges = summary.exchanges
        attributedIPBytes = summary.attributedIPBytes
        dnsLookups = summary.dnsTransactions
        missingBytes = summary.missingBytes
        connectionsWithGaps = summary.connectionsWithGaps
        tlsDecryption = summary.tlsDecryption
        firstTime = summary.firstTimestamp?.seconds
        lastTime = summary.lastTimestamp?.seconds
        inputErrors = summary.errors
    }
}

/// What happened to every packet read: the final record of an analysis.
///
/// Conservation: `read` equals the sum of the outcome counters (`inConnections + inQUICConnections +
/// inFlows + filtered + undecoded… + incompleteFragments`) at every level; `isConserved` checks it.
public struct CaptureSummary: Sendable {
    /// Every packet read from the input(s).
    public var read = TrafficCounters()
    /// Packets excluded by the BPF filter.
    public var filtered = TrafficCounters()
    /// TCP packets, counted in connection records.
    public var inConnections = TrafficCounters()
    /// UDP datagrams of QUIC connections, counted in their `transport:"quic"` connection records.
    public var inQUICConnections = TrafficCounters()
    /// Other UDP and other IP packets, counted in flow records.
    public var inFlows = TrafficCounters()
    /// Packets that could not be decoded to a flow, by reason.
    public var undecoded: [DecodeFailure: TrafficCounters] = [:]
    /// IP fragments whose datagram never completed.
    public var incompleteFragments = TrafficCounters()

    public var connections = 0
    public var quicConnections = 0
    public var flows = 0
    /// HTTP exchanges found, and the IP bytes attributed to them.
    public var exchanges = 0
    public var attributedIPBytes = 0
    // DNS
    /// DNS transactions reported as `dns` records. Their packets are also counted by the flow (UDP) or
    /// connection (TCP) records: DNS records are a finer view, not an outcome of their own.
    public var dnsTransactions = 0
    /// Connections with stream bytes the capture never saw, and how many bytes.
    public var connectionsWithGaps = 0
    public var missingBytes = 0
    public var connectionEvictions = 0
    public var flowEvictions = 0
    public var quicConnectionEvictions = 0
    public var idleExpirations = 0
    /// Holes declared missing because the out-of-order bytes of all connections exceeded
    /// `ReassemblyLimits.maxBufferedBytesTotal`.
    public var bufferCapGaps = 0
    /// Connections whose client direction stopped at the cap on open requests
    /// (`HTTPLimits.maxOpenRequests`), flagged `too_many_open_requests`.
    public var openRequestCapConnections = 0
    /// TLS connections (over TCP, and QUIC connections) by `tls.decryption` (`decrypted`, `partial`,
    /// `no_key`, `failed`, `unsupported_cipher`) when key logs were given.
    public var tlsDecryption: [String: Int] = [:]
    public var badIPChecksums = 0
    public var badTransportChecksums = 0
    public var fragmentedDatagrams = 0
    /// Packets of each link type that had no decoder.
    public var unknownLinkTypes: [UInt32: Int] = [:]
    public var firstTimestamp: Timestamp?
    public var lastTimestamp: Timestamp?
    /// Decimal digits of the capture's timestamps.
    public var timestampDigits = 6
    /// Input errors (truncated or malformed files…); the records before them are complete.
    public var errors: [String] = []

    public init() {}

    /// The sum of every outcome: equals `read` in packets and frame bytes when nothing was lost.
    public var accounted: TrafficCounters {
        var sum = filtered + inConnections + inQUICConnections + inFlows + incompleteFragments
        for counters in undecoded.values { sum += counters }
        return sum
    }

    /// IP bytes of every packet read (only outcomes that reached the IP header have any).
    public var accountedIPBytes: Int { accounted.ipBytes }

    /// True when input errors left no packet to analyse (every file missing, unreadable or not a
    /// capture, or no packet the filter passed): the library's `WireTallyError.nothingAnalysed`.
    public var analysedNothing: Bool { !errors.isEmpty && read.packets - filtered.packets == 0 }

    /// True when every packet read is counted in exactly one outcome (packets and frame bytes; IP
    /// bytes exist only per outcome).
    public var isConserved: Bool {
        accounted.packets == read.packets && accounted.frameBytes == read.frameBytes
    }
}

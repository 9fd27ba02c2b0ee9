/// What happened to every packet read: the final record of an analysis.
///
/// Conservation: `read` equals the sum of the outcome counters (`inConnections + inQUICConnections +
/// inFlows + filtered + undecoded… + incompleteFragments`) at every level; `isConserved` checks it.
package struct CaptureSummary: Sendable {
    /// Every packet read from the input(s).
    package var read = TrafficCounters()
    /// Packets excluded by the BPF filter.
    package var filtered = TrafficCounters()
    /// TCP packets, counted in connection records.
    package var inConnections = TrafficCounters()
    /// UDP datagrams of QUIC connections, counted in their `transport:"quic"` connection records.
    package var inQUICConnections = TrafficCounters()
    /// Other UDP and other IP packets, counted in flow records.
    package var inFlows = TrafficCounters()
    /// Packets that could not be decoded to a flow, by reason.
    package var undecoded: [DecodeFailure: TrafficCounters] = [:]
    /// IP fragments whose datagram never completed.
    package var incompleteFragments = TrafficCounters()

    package var connections = 0
    package var quicConnections = 0
    package var flows = 0
    /// HTTP exchanges found, and the IP bytes attributed to them.
    package var exchanges = 0
    package var attributedIPBytes = 0
    // DNS
    /// DNS transactions reported as `dns` records. Their packets are also counted by the flow (UDP) or
    /// connection (TCP) records: DNS records are a finer view, not an outcome of their own.
    package var dnsTransactions = 0
    /// Connections with stream bytes the capture never saw, and how many bytes.
    package var connectionsWithGaps = 0
    package var missingBytes = 0
    package var connectionEvictions = 0
    package var flowEvictions = 0
    package var quicConnectionEvictions = 0
    package var idleExpirations = 0
    /// Holes declared missing because the out-of-order bytes of all connections exceeded
    /// `ReassemblyLimits.maxBufferedBytesTotal`.
    package var bufferCapGaps = 0
    /// Connections whose client direction stopped at the cap on open requests
    /// (`HTTPLimits.maxOpenRequests`), flagged `too_many_open_requests`.
    package var openRequestCapConnections = 0
    /// TLS connections (over TCP, and QUIC connections) by `tls.decryption` (`decrypted`, `partial`,
    /// `no_key`, `failed`, `unsupported_cipher`) when key logs were given.
    package var tlsDecryption: [String: Int] = [:]
    package var badIPChecksums = 0
    package var badTransportChecksums = 0
    package var fragmentedDatagrams = 0
    /// Packets of each link type that had no decoder.
    package var unknownLinkTypes: [UInt32: Int] = [:]
    package var firstTimestamp: Timestamp?
    package var lastTimestamp: Timestamp?
    /// Decimal digits of the capture's timestamps.
    package var timestampDigits = 6
    /// Input errors (truncated or malformed files…); the records before them are complete.
    package var errors: [String] = []

    package init() {}

    /// The sum of every outcome: equals `read` in packets and frame bytes when nothing was lost.
    package var accounted: TrafficCounters {
        var sum = filtered + inConnections + inQUICConnections + inFlows + incompleteFragments
        for counters in undecoded.values { sum += counters }
        return sum
    }

    /// IP bytes of every packet read (only outcomes that reached the IP header have any).
    package var accountedIPBytes: Int { accounted.ipBytes }

    /// True when a run with `problems` (its input errors, and any of the caller's own) had no packet
    /// to analyse (every file missing, unreadable or not a capture, or no packet the filter passed):
    /// the library's `WireTallyError.nothingAnalysed`, the command line's exit status 1.
    package func analysedNothing(problems: [String]) -> Bool { !problems.isEmpty && read.packets - filtered.packets == 0 }

    /// True when every packet read is counted in exactly one outcome (packets and frame bytes; IP
    /// bytes exist only per outcome).
    package var isConserved: Bool {
        accounted.packets == read.packets && accounted.frameBytes == read.frameBytes
    }
}

/// How ``Capture`` analyses packets. The defaults are those of `wiretally analyze`: the command line
/// builds an `AnalysisOptions` from its flags and runs through the same entry as ``Capture``.
public struct AnalysisOptions: Sendable {
    /// A BPF filter (tcpdump syntax); the packets it rejects are counted in ``Summary/filtered``.
    public var filter: String?
    /// Keep only the packets the capture says belong to this process or app (PKTAP and Apple pcapng:
    /// the process or effective process name; PCAPdroid: the app name); the others are counted in
    /// ``Summary/filtered``, like the packets ``filter`` rejects.
    public var appName: String?
    /// Decode gzip/deflate bodies to report their decoded size (``Exchange/Message/decodedBodyBytes``).
    /// Off by default: decoding costs more than everything else together.
    public var decodeBodies = false
    /// Keep what ``Comparison/run(_:appLog:level:)`` needs of every exchange (its connection's
    /// ledger) until the analysis is released. On by default; turn it off to bound memory when
    /// streaming a long live capture or a huge file whose exchanges are not compared.
    public var keepsExchangesForComparison = true
    /// Seconds a keep-alive connection stays idle before its last exchange is reported (as `live`
    /// does); nil: at the connection's next packet or its end.
    public var settleSeconds: Double?
    /// Files only: read and decode on a second thread (`2`), or not (`1`); nil chooses as
    /// `--threads auto` does. The records are the same.
    public var threads: Int?

    // The limits below bound memory and work on huge or hostile input. What goes past one is flagged
    // on its exchange or connection; its bytes are still counted (conservation holds).

    /// Live TCP connections (and, separately, other flows) tracked at once; beyond it the least
    /// recently active one is reported and forgotten to make room. At least 1.
    public var maxConnections = ReassemblyLimits().maxConnections
    /// Out-of-order bytes buffered per connection direction before the first hole is declared
    /// missing (``Summary/missingBytes``).
    public var maxBufferedBytesPerDirection = ReassemblyLimits().maxBufferedBytesPerDirection
    /// Out-of-order bytes buffered across all connections; beyond it the connections holding the most
    /// have their first hole declared missing.
    public var maxBufferedBytesTotal = ReassemblyLimits().maxBufferedBytesTotal
    /// Seconds without a packet after which an open connection is reported. At least 1.
    public var idleTimeoutSeconds = ReassemblyLimits().idleTimeoutSeconds
    /// Largest HTTP/1.x start line plus header (or trailer) block; beyond it the message is flagged
    /// `headers_too_large` and the rest of its direction is not parsed. At least 1.
    public var maxHeaderBytes = HTTPLimits().maxHeaderBytes
    /// HTTP/1.x requests of one connection waiting for their response at once; a request beyond them
    /// and the rest of the client's direction are not parsed (connection flag
    /// `too_many_open_requests`). At least 1.
    public var maxOpenRequests = HTTPLimits().maxOpenRequests
    /// HTTP/1.x requests waiting for their response on all connections together; past it, a
    /// connection whose request would exceed it stops as one past ``maxOpenRequests``. At least 1.
    public var maxOpenRequestsTotal = HTTPLimits().maxOpenRequestsTotal
    /// Largest decoded body counted (with ``decodeBodies``); beyond it decoding stops and the message
    /// is flagged `decompression_bomb`.
    public var maxDecodedBodyBytes = HTTPLimits().maxDecodedBodyBytes
    /// Decoded/encoded size ratio (checked once 1 MiB is decoded) beyond which decoding stops as a
    /// `decompression_bomb`. At least 1.
    public var maxDecodingRatio = HTTPLimits().maxDecodingRatio

    /// The defaults of `wiretally analyze`, with a filter and the choices most callers make.
    public init(filter: String? = nil, decodeBodies: Bool = false, keepsExchangesForComparison: Bool = true) {
        self.filter = filter
        self.decodeBodies = decodeBodies
        self.keepsExchangesForComparison = keepsExchangesForComparison
    }
}

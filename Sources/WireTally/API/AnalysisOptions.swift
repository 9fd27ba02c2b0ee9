/// How ``Capture`` analyses packets. The defaults are those of `wiretally analyze`.
public struct AnalysisOptions: Sendable {
    /// A BPF filter (tcpdump syntax); the packets it rejects are counted in ``Summary/filtered``.
    public var filter: String?
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

    public init(filter: String? = nil, decodeBodies: Bool = false, keepsExchangesForComparison: Bool = true) {
        self.filter = filter
        self.decodeBodies = decodeBodies
        self.keepsExchangesForComparison = keepsExchangesForComparison
    }

    /// The pipeline's options with the secrets of `keyLogs`.
    func analyzerOptions(keyLogs: [String]) throws(WireTallyError) -> CaptureAnalyzer.Options {
        var limits = ReassemblyLimits()
        limits.settleNanoseconds = settleSeconds.map { Int64(max(0, $0) * 1e9) }
        var http = HTTPLimits()
        http.decodeBodies = decodeBodies
        var options = CaptureAnalyzer.Options(filter: filter, limits: limits, http: http)
        options.keepsReportedExchanges = keepsExchangesForComparison
        if !keyLogs.isEmpty {
            do {
                options.tlsKeys = try TLSKeyStore.reading(files: keyLogs)
            } catch {
                switch error {
                case let .cannotOpen(path, reason): throw .unreadableKeyLog(path: path, reason: reason)
                }
            }
        }
        return options
    }
}

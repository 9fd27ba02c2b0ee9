/// Sets what an app counted (its network monitor's per-request byte counts) against the exact wire
/// bytes of an ``Analysis``: pairs each request with its exchange, gives each request's error and
/// explains the gap by cause — what `wiretally compare --app-log` does with a log file.
///
/// ```swift
/// let result = try Comparison.run(analysis, appLog: monitor.requests)
/// #expect(abs(result.errorPercent ?? 0) < 5, "\(result)")   // the table of every request
/// ```
public enum Comparison {
    /// Pairs `appLog` with the analysis's exchanges (method and URL, then nearest start; see
    /// `AppLogMatcher`) and compares each pair's byte counts at `level`.
    ///
    /// The wire of a request is its exchange's packets in both directions and, at IP level, the DNS
    /// lookup that preceded its connection (``Exchange/dnsIPBytes``).
    /// - Throws: ``WireTallyError/notComparable`` when the analysis was made without
    ///   ``AnalysisOptions/keepsExchangesForComparison``.
    public static func run(
        _ analysis: Analysis, appLog: [AppRequest], level: WireLevel = .ip
    ) throws(WireTallyError) -> ComparisonReport {
        let sources = analysis.exchanges.compactMap(\.source)
        guard sources.count == analysis.exchanges.count else { throw .notComparable }
        let wire = sources.map { AppLogWireExchange($0.exchange, id: $0.id, connection: $0.connection) }
        let entries = appLog.enumerated().map { $1.entry(sequence: $0) }
        let report = AppLogReport(log: AppLog(path: "<app log>", format: .wiretally, entries: entries), wire: wire)
        var totals = EstimatorReport(name: "app log", level: level)
        var requests: [RequestComparison] = []
        for matched in report.estimates {
            let source = sources[matched.match.wire]
            let breakdown = EstimateBreakdown(appLog: matched.estimate, exchange: source.exchange)
            totals.add(source.exchange, source.connection, breakdown: breakdown)
            requests.append(RequestComparison(
                request: appLog[matched.match.entry], exchange: analysis.exchanges[matched.match.wire],
                gap: GapAttribution(exchange: source.exchange, connection: source.connection, breakdown: breakdown, level: level)))
        }
        let matchedWithoutCounts = Set(report.result.matches.map(\.entry)).subtracting(report.estimates.map(\.match.entry))
        return ComparisonReport(
            level: level, requests: requests,
            unmatchedRequests: report.result.unmatchedEntries.map { appLog[$0] },
            requestsWithoutByteCounts: matchedWithoutCounts.sorted().map { appLog[$0] },
            unmatchedExchanges: report.result.unmatchedWire.map { analysis.exchanges[$0] },
            estimatedBytes: totals.estimatedUp + totals.estimatedDown, wireBytes: totals.wireUp + totals.wireDown,
            gapByCause: totals.gapByCause, medianErrorPercent: totals.medianErrorPercent,
            p95ErrorPercent: totals.p95ErrorPercent, clockOffsetMilliseconds: report.result.clockOffsetMs)
    }
}

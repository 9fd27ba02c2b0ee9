#if canImport(Glibc)
import Glibc
#endif

/// Runs the built-in estimators over an analysis: collect each `.exchange` record with `add`, then ask
/// for one report per estimator.
///
///     var options = CaptureAnalyzer.Options()
///     options.http = EstimatorRun.requiredHTTPLimits(options.http)
///     let run = EstimatorRun(level: .ip)
///     // in the RecordWriter: case let .exchange(record): run.add(record.exchange, record.connection)
///     let json = run.reports().map(\.json)          // one object per estimator
package final class EstimatorRun {
    /// Decoded bytes of each body kept for the re-encoding of `rebuilt` (bodies larger than this are
    /// approximated from their first bytes).
    package static let retainedBodyBytes = 64 << 20

    /// `limits` with body decoding on and retention large enough for `rebuilt`'s re-encoding.
    package static func requiredHTTPLimits(_ limits: HTTPLimits = HTTPLimits()) -> HTTPLimits {
        var limits = limits
        limits.decodeBodies = true
        limits.retainedBodyBytes = max(limits.retainedBodyBytes, retainedBodyBytes)
        limits.measureReencodedBodies = true
        return limits
    }

    package let level: WireLevel
    package let estimators: [Estimator]
    private var reportsByEstimator: [EstimatorReport]

    package init(level: WireLevel = .ip, estimators: [Estimator] = Estimator.allCases) {
        self.level = level
        self.estimators = estimators
        reportsByEstimator = estimators.map { EstimatorReport(estimator: $0, level: level) }
    }

    /// Adds one exchange (as emitted in `AnalysisRecord.exchange`) to every estimator's report. Only the
    /// figures are kept, not the bodies.
    package func add(_ exchange: HTTPExchange, _ connection: ExchangeConnection) {
        for index in reportsByEstimator.indices { reportsByEstimator[index].add(exchange, connection) }
    }

    package func reports() -> [EstimatorReport] { reportsByEstimator }
}

/// One exchange as an estimator saw it: its estimate, the wire and the gap by cause.
package struct EstimatedRequest: Sendable {
    package var method: String
    package var url: String
    package var gap: GapAttribution
    package var approximated: Bool

    /// estimated − wire (negative: the estimator under-counted).
    package var errorBytes: Int { gap.estimated - gap.wire }
    /// 100 · error / wire (nil when wire is 0).
    package var errorPercent: Double? { EstimatorReport.errorPercent(estimated: gap.estimated, wire: gap.wire) }

    package var json: JSONValue {
        .object([
            ("method", .string(method)), ("url", .string(url)), ("estimated", .integer(gap.estimated)),
            ("wire", .integer(gap.wire)), ("error_bytes", .integer(errorBytes)),
            ("error_pct", errorPercent.map { .number(EstimatorReport.format($0)) } ?? .null),
            ("gap_by_cause", gap.json),
        ])
    }
}

/// One estimator over all exchanges of an analysis.
///
/// JSON: `{"name","level","requests","skipped","approximated",
/// "up":{"estimated","wire","error_bytes","error_pct"},"down":{…},"dns":{"wire"},"total":{…},
/// "per_request":{"median_error_pct","p95_error_pct","worst":[{"method","url","estimated","wire",
/// "error_bytes","error_pct","gap_by_cause"}…]},"gap_by_cause":{CAUSE: bytes,…}}`.
///
/// - `error_bytes` = estimated − wire, `error_pct` = 100 · error_bytes / wire (signed: negative when
///   the estimator reports less than the wire carried). `up`/`down` wire are the exchanges' packets
///   and, at IP level, the DNS lookups before their connections (queries up, answers down), which
///   `dns.wire` shows alone; `total` = up + down.
/// - `gap_by_cause` adds up exactly to total wire − total estimated (= −total.error_bytes), and so does
///   each request's.
/// - `median_error_pct` is the median of the signed per-request error percent, `p95_error_pct` the 95th
///   percentile (nearest rank) of its absolute value, over the requests with wire > 0.
/// - `worst`: the 5 requests with the largest absolute error in bytes (the earlier one first on a tie).
/// - `skipped`: exchanges the estimator cannot estimate (naive/rebuilt on encrypted exchanges);
///   `approximated`: exchanges whose re-encoded size was approximated (body not retained completely).
///
/// Memory does not grow with the capture beyond one `Double` per request (the error percents the
/// median and the 95th percentile need): sums are kept as requests are added, and only the current
/// worst requests are kept whole.
package struct EstimatorReport: Sendable {
    /// The estimator's name (or, for an app log, the name the report is given).
    package let name: String
    /// The built-in estimator, nil when the estimates come from elsewhere (an app log).
    package let estimator: Estimator?
    package let level: WireLevel
    /// Requests estimated (skipped ones not included).
    package private(set) var requestCount = 0
    package private(set) var skipped = 0
    /// Requests whose re-encoded size was approximated.
    package private(set) var approximatedCount = 0
    package private(set) var estimatedUp = 0
    package private(set) var estimatedDown = 0
    package private(set) var wireUp = 0
    package private(set) var wireDown = 0
    package private(set) var dnsWire = 0
    /// Sum of every request's causes (nil before the first request).
    private var causeTally: GapAttribution.Tally?
    /// Sum of every request's causes by name (empty before the first request).
    package var gapByCause: [String: Int] { causeTally?.byName ?? [:] }
    /// The requests with the largest absolute error in bytes, largest first (earlier first on a tie).
    package private(set) var worst: [EstimatedRequest] = []
    /// Signed error percent of each request with wire > 0, in the order added.
    private var errorPercents: [Double] = []
    package static let worstCount = 5

    package init(estimator: Estimator, level: WireLevel) {
        name = estimator.rawValue
        self.estimator = estimator
        self.level = level
    }

    /// A report of estimates that come from elsewhere (an app log), added with `add(_:breakdown:…)`.
    package init(name: String, level: WireLevel) {
        self.name = name
        estimator = nil
        self.level = level
    }

    /// Adds the built-in estimator's estimate of one exchange (or counts it skipped).
    package mutating func add(_ exchange: HTTPExchange, _ connection: ExchangeConnection) {
        guard let breakdown = estimator?.breakdown(exchange) else {
            skipped += 1
            return
        }
        add(exchange, connection, breakdown: breakdown)
    }

    /// Adds one exchange with an estimate given as a breakdown.
    package mutating func add(_ exchange: HTTPExchange, _ connection: ExchangeConnection, breakdown: EstimateBreakdown) {
        let gap = GapAttribution(exchange: exchange, connection: connection, breakdown: breakdown, level: level)
        requestCount += 1
        if breakdown.approximated { approximatedCount += 1 }
        estimatedUp += gap.estimate.up
        estimatedDown += gap.estimate.down
        wireUp += gap.wireUp
        wireDown += gap.wireDown
        dnsWire += gap.dns
        if causeTally == nil { causeTally = gap.tally } else { causeTally!.add(gap.tally) }
        let errorBytes = gap.estimated - gap.wire
        if let percent = Self.errorPercent(estimated: gap.estimated, wire: gap.wire) { errorPercents.append(percent) }
        // after every kept request with an error at least as large: a tie keeps the earlier one first
        let position = worst.firstIndex { abs($0.errorBytes) < abs(errorBytes) } ?? worst.count
        guard position < Self.worstCount else { return }
        let url: String
        if let request = exchange.request ?? (breakdown.encrypted ? exchange.response : nil) {
            url = HAREntry.url(of: request, connection: connection, serverName: exchange.serverName)
        } else {
            url = "http://" + connection.serverEndpoint  // a response whose request the capture missed
        }
        worst.insert(
            EstimatedRequest(method: exchange.request?.method ?? "", url: url, gap: gap, approximated: breakdown.approximated),
            at: position)
        if worst.count > Self.worstCount { worst.removeLast() }
    }

    /// Median of the signed error percent over requests with wire > 0.
    package var medianErrorPercent: Double? {
        let values = errorPercents.sorted()
        guard !values.isEmpty else { return nil }
        let middle = values.count / 2
        return values.count % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2
    }

    /// 95th percentile (nearest rank) of the absolute error percent over requests with wire > 0.
    package var p95ErrorPercent: Double? {
        let values = errorPercents.map(abs).sorted()
        guard !values.isEmpty else { return nil }
        let rank = Int((0.95 * Double(values.count)).rounded(.up))
        return values[max(rank, 1) - 1]
    }

    /// `value` with two decimals, exactly as C's `%.2f` writes it.
    static func format(_ value: Double) -> String {
        let capacity = 32
        var text = [CChar](repeating: 0, count: capacity)
        let written = withVaList([value]) { vsnprintf(&text, capacity, "%.2f", $0) }
        guard written >= 0, written < capacity else { return value.description }
        return String(decoding: text.prefix(Int(written)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// 100 · (estimated − wire) / wire: signed, negative when the estimate is short; nil without wire bytes.
    static func errorPercent(estimated: Int, wire: Int) -> Double? {
        wire > 0 ? 100 * Double(estimated - wire) / Double(wire) : nil
    }

    static func side(estimated: Int, wire: Int) -> JSONValue {
        .object([
            ("estimated", .integer(estimated)), ("wire", .integer(wire)), ("error_bytes", .integer(estimated - wire)),
            ("error_pct", errorPercent(estimated: estimated, wire: wire).map { .number(format($0)) } ?? .null),
        ])
    }

    package var json: JSONValue {
        let causes = gapByCause
        return .object([
            ("name", .string(name)),
            ("level", .string(level.rawValue)),
            ("requests", .integer(requestCount)),
            ("skipped", .integer(skipped)),
            ("approximated", .integer(approximatedCount)),
            ("up", Self.side(estimated: estimatedUp, wire: wireUp)),
            ("down", Self.side(estimated: estimatedDown, wire: wireDown)),
            ("dns", .object([("wire", .integer(dnsWire))])),
            ("total", Self.side(estimated: estimatedUp + estimatedDown, wire: wireUp + wireDown)),
            ("per_request", .object([
                ("median_error_pct", medianErrorPercent.map { .number(Self.format($0)) } ?? .null),
                ("p95_error_pct", p95ErrorPercent.map { .number(Self.format($0)) } ?? .null),
                ("worst", .array(worst.map(\.json))),
            ])),
            ("gap_by_cause", .object(GapAttribution.causes.map { ($0, .integer(causes[$0] ?? 0)) })),
        ])
    }
}

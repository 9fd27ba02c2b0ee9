/// `wiretally compare`: analyses the capture once, then sets the built-in estimators and each app log
/// against the wire, and summarises the endpoints.
///
/// JSON (`json`): `{"wire_level","estimators":[…],"app_logs":[…],"endpoints":[…],"window_seconds",
/// "summary":{…}}` — an estimator object as `EstimatorReport.json`; an app log object as
/// `AppLogReport.json` with the estimator-style `up`, `down`, `dns`, `total`, `per_request` and
/// `gap_by_cause` of its matched entries; endpoints as `EndpointAggregator.json`.
package struct CompareRun {
    package var files: [String]
    package var appLogs: [String]
    package var level: WireLevel
    package var options: CaptureAnalyzer.Options
    /// Told how far reading the capture has got (see `AnalysisRun.progress`).
    package var progress: ((ReadProgress) -> Void)?

    package init(files: [String], appLogs: [String] = [], level: WireLevel = .ip, options: CaptureAnalyzer.Options = .init()) {
        self.files = files
        self.appLogs = appLogs
        self.level = level
        self.options = options
    }

    /// What a comparison found.
    package struct Result {
        package var estimators: [EstimatorReport]
        /// Per app log: its matching report and the estimate report of its matched entries.
        package var appLogs: [(report: AppLogReport, estimates: EstimatorReport)]
        package var endpoints: EndpointAggregator
        package var summary: CaptureSummary
        /// Problems: input errors of the capture, app logs that could not be read.
        package var errors: [String]
    }

    /// Runs the comparison; `observer`, when given, also receives every record and the summary (for
    /// outputs built from the same single pass, like the HTML report).
    package func run(observer: (any RecordWriter)? = nil) -> Result {
        var options = self.options
        options.http = EstimatorRun.requiredHTTPLimits(options.http)
        options.keepsReportedExchanges = !appLogs.isEmpty  // matched after the analysis, by their ledger
        let collector = ExchangeCollector(level: level, keepsExchanges: !appLogs.isEmpty)
        let writer: any RecordWriter = observer.map { RecordTee([collector, $0]) } ?? collector
        var analysisRun = AnalysisRun(files: files, options: options)
        analysisRun.progress = progress
        let analysis = analysisRun.run(writer: writer)
        var errors = analysis.summary.errors
        let wire = collector.exchanges.map { AppLogWireExchange($0.exchange, id: $0.id, connection: $0.connection) }
        let byID = Dictionary(collector.exchanges.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var logs: [(AppLogReport, EstimatorReport)] = []
        for path in appLogs {
            do {
                let report = AppLogReport(log: try AppLog.read(path: path), wire: wire)
                var estimates = EstimatorReport(name: path, level: level)
                for matched in report.estimates {
                    guard let exchange = byID[matched.wire.id] else { continue }
                    estimates.add(exchange.exchange, exchange.connection,
                                  breakdown: EstimateBreakdown(appLog: matched.estimate, exchange: exchange.exchange))
                }
                logs.append((report, estimates))
            } catch let error as AppLogError {
                errors.append(error.description)  // names the file itself
            } catch {
                errors.append("\(path): \(error)")
            }
        }
        return Result(
            estimators: collector.estimators.reports(), appLogs: logs, endpoints: collector.endpoints,
            summary: analysis.summary, errors: errors)
    }
}

extension CompareRun.Result {
    /// The report as one JSON document.
    package func json(level: WireLevel, files: [String]) -> JSONValue {
        let estimatorKeys = ["up", "down", "dns", "total", "per_request", "gap_by_cause"]
        let appLogObjects: [JSONValue] = appLogs.map { log in
            let extra = estimatorKeys.compactMap { key in log.estimates.json[key].map { (key, $0) } }
            return log.report.json(extra: extra)
        }
        let endpointsJSON = endpoints.json()
        return .object([
            ("wire_level", .string(level.rawValue)),
            ("estimators", .array(estimators.map(\.json))),
            ("app_logs", .array(appLogObjects)),
            ("endpoints", endpointsJSON["endpoints"] ?? .array([])),
            ("window_seconds", endpointsJSON["window_seconds"] ?? .null),
            ("summary", RecordEncoding.summary(summary, files: files)),
        ])
    }
}

/// Feeds each exchange to the estimators and the endpoint summary, and keeps it with its connection
/// when app logs are to be matched (only then: kept exchanges make memory grow with the capture).
final class ExchangeCollector: RecordWriter {
    private(set) var exchanges: [ExchangeRecord] = []
    let estimators: EstimatorRun
    let endpoints = EndpointAggregator()
    private let keepsExchanges: Bool

    init(level: WireLevel, keepsExchanges: Bool) {
        estimators = EstimatorRun(level: level)
        self.keepsExchanges = keepsExchanges
    }

    func write(_ record: AnalysisRecord, timestampDigits: Int) {
        guard case let .exchange(exchangeRecord) = record else { return }
        estimators.add(exchangeRecord.exchange, exchangeRecord.connection)
        endpoints.add(record)
        if keepsExchanges { exchanges.append(exchangeRecord) }
    }

    func finish(summary: CaptureSummary, files: [String]) {}
}

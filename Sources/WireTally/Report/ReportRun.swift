/// `wiretally report`: analyses the capture once — through `CompareRun` when the accuracy comparison
/// is asked for (app logs or the built-in estimators), else through `AnalysisRun` — and collects the
/// report's model on the way.
package struct ReportRun {
    package var files: [String]
    package var appLogs: [String]
    /// Include the built-in estimators (naive, rebuilt, metrics, http) in the accuracy comparison.
    package var estimators: Bool
    package var level: WireLevel
    package var options: CaptureAnalyzer.Options
    /// Told how far reading the capture has got (see `AnalysisRun.progress`).
    package var progress: ((ReadProgress) -> Void)?

    package init(files: [String], appLogs: [String] = [], estimators: Bool = false, level: WireLevel = .ip,
                options: CaptureAnalyzer.Options = .init()) {
        self.files = files
        self.appLogs = appLogs
        self.estimators = estimators
        self.level = level
        self.options = options
    }

    /// Runs the analysis (and comparison) and returns the report's model; input problems are in its
    /// `errors` and shown on the page.
    package func run() -> ReportModel {
        var options = self.options
        // request bodies tell repeats from different requests in the duplicate test (as `--summary`)
        if options.http.retainedBodyBytes == 0 { options.http.retainedBodyBytes = 4096 }
        guard estimators || !appLogs.isEmpty else {
            let collector = ReportCollector(aggregatingEndpoints: true)
            var analysisRun = AnalysisRun(files: files, options: options)
            analysisRun.progress = progress
            let result = analysisRun.run(writer: collector)
            return ReportModel(files: files, level: level, summary: result.summary, errors: result.summary.errors,
                               collector: collector, endpoints: collector.endpoints ?? EndpointAggregator(), accuracy: nil)
        }
        let collector = ReportCollector(aggregatingEndpoints: false)
        var compareRun = CompareRun(files: files, appLogs: appLogs, level: level, options: options)
        compareRun.progress = progress
        let comparison = compareRun.run(observer: collector)
        let json = comparison.json(level: level, files: files)
        let accuracy = JSONValue.object([
            ("level", .string(level.rawValue)),
            ("estimators", estimators ? json["estimators"] ?? .array([]) : .array([])),
            ("app_logs", json["app_logs"] ?? .array([])),
        ])
        return ReportModel(files: files, level: level, summary: comparison.summary, errors: comparison.errors,
                           collector: collector, endpoints: comparison.endpoints, accuracy: accuracy)
    }
}

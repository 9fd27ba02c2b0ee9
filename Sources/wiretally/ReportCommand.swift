import ArgumentParser
import WireTally

struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write a self-contained HTML report of the capture(s): summary, waterfall, endpoints, accuracy, connections, DNS.",
        discussion: """
        One HTML file with everything inline (no network fetches): the summary (duration, requests, up/down \
        IP bytes, overhead share, errors), a filterable waterfall of the HTTP exchanges, per-endpoint traffic \
        and request-rate timelines with runaway/duplicate/burst flags, the accuracy comparison (with \
        --app-log or --estimators), the connections and the DNS lookups. Exit status as for analyze: \
        the report is written with what was read even when the input is truncated or corrupt (2).
        """)

    @Argument(help: "Capture files (pcap, pcapng, either gzip-compressed).")
    var files: [String]

    @Option(name: .customLong("app-log"), help: "An app's own log to compare with the wire (repeatable).")
    var appLogs: [String] = []

    @Flag(help: "Compare the built-in app-layer estimators (naive, rebuilt, metrics, http) with the wire.")
    var estimators = false

    @Option(help: "Wire level of the accuracy comparison: ip_bytes, frame_bytes or payload_bytes.")
    var level: WireLevelArgument = WireLevelArgument(value: .ip)

    @Option(name: .shortAndLong, help: "BPF filter (tcpdump syntax).")
    var filter: String?

    @OptionGroup var keyLogAndApp: KeyLogAndAppArguments

    @Option(name: .shortAndLong, help: "The HTML file to write.")
    var output: String

    @Flag(help: "No progress bar (it is shown on a terminal for files over a few MB).")
    var quiet = false

    func run() throws {
        // the estimators and the endpoints' duplicates read decoded bodies
        var options = AnalysisOptions(filter: filter, decodeBodies: true, keepsExchangesForComparison: false)
        options.appName = keyLogAndApp.appName
        let analyzerOptions = try keyLogAndApp.analyzerOptions(options)
        let progress = ProgressDisplay(quiet: quiet)
        var reportRun = ReportRun(files: files, appLogs: appLogs, estimators: estimators, level: level.value,
                                  options: analyzerOptions)
        reportRun.progress = progress.callback
        let model = reportRun.run()
        progress.clear()
        do {
            let destination = try TextOutput(path: output)
            destination.write(ReportDocument.html(model))
            destination.flush()
        } catch {
            printError("wiretally: \(error)")
            throw ExitCode(1)
        }
        try endRun(problems: model.errors, summary: model.summary)
    }
}

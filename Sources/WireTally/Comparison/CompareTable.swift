extension CompareRun.Result {
    /// The report for people: one line per estimator, a block per app log, then the endpoints.
    package func table(level: WireLevel, files: [String]) -> String {
        var lines = ["wire level: \(level.rawValue)   files: \(files.joined(separator: ", "))", ""]
        let table = TextTable(columns: [
            .text("SOURCE", width: 16), .init("REQ", width: 5), .init("UP EST", width: 10), .init("UP WIRE", width: 10),
            .init("UP ERR", width: 8), .init("DOWN EST", width: 10), .init("DOWN WIRE", width: 10), .init("DOWN ERR", width: 8),
            .init("MEDIAN", width: 8), .init("P95", width: 7), .text("LARGEST CAUSES", width: 0),
        ])
        lines.append(table.header)
        for report in estimators { lines.append(table.row(Self.cells(report, name: report.name))) }
        for log in appLogs { lines.append(table.row(Self.cells(log.estimates, name: "app log"))) }
        for log in appLogs {
            let result = log.report.result
            lines.append("")
            lines.append("app log \(log.report.log.path) (\(log.report.log.format.rawValue)): \(log.report.log.entries.count) entries, "
                + "\(result.matches.count) matched, \(result.unmatchedEntries.count) unmatched in the log, "
                + "\(result.unmatchedWire.count) exchanges not in the log, clock offset "
                + (result.clockOffsetMs.map { Self.decimal($0) + " ms" } ?? "unknown"))
            var timings: [String] = []
            for phase in AppLogTimingComparison.Phase.allCases {
                guard let statistics = log.report.timings.phases[phase], statistics.compared > 0 else { continue }
                timings.append("\(phase.rawValue) median |app−wire| \(statistics.medianDiffMs.map(Self.decimal) ?? "-") ms (p95 \(statistics.p95DiffMs.map(Self.decimal) ?? "-"), n=\(statistics.compared))")
            }
            if !timings.isEmpty { lines.append("  timings: " + timings.joined(separator: "; ")) }
        }
        lines.append("")
        lines.append("gap by cause (wire − estimated, bytes)")
        let causeTable = TextTable(columns: [.text("SOURCE", width: 16)] + GapAttribution.causes.map { .init($0, width: 8) })
        lines.append(causeTable.header)
        let reports = estimators.map { ($0.name, $0) } + appLogs.map { ("app log", $0.estimates) }
        for (name, report) in reports {
            let causes = report.gapByCause
            lines.append(causeTable.row([name] + GapAttribution.causes.map { String(causes[$0] ?? 0) }))
        }
        lines.append("")
        lines.append(EndpointSummaryWriter.table(endpoints.summaries(), windowWidth: endpoints.windowWidth, files: files))
        return lines.joined(separator: "\n") + "\n"
    }

    private static func cells(_ report: EstimatorReport, name: String) -> [String] {
        func percent(_ estimated: Int, _ wire: Int) -> String {
            EstimatorReport.errorPercent(estimated: estimated, wire: wire).map { decimal($0) + "%" } ?? "-"
        }
        // ties in the order of `GapAttribution.causes` (not in the dictionary's, which varies)
        let causes = report.gapByCause
        let largest = GapAttribution.causes.compactMap { name in causes[name].map { (name, $0) } }.filter { $0.1 != 0 }
            .enumerated().sorted { abs($0.element.1) != abs($1.element.1) ? abs($0.element.1) > abs($1.element.1) : $0.offset < $1.offset }
            .prefix(3).map { "\($0.element.0) \($0.element.1)" }.joined(separator: ", ")
        return [
            name, String(report.requestCount), String(report.estimatedUp), String(report.wireUp),
            percent(report.estimatedUp, report.wireUp), String(report.estimatedDown), String(report.wireDown),
            percent(report.estimatedDown, report.wireDown),
            report.medianErrorPercent.map { decimal($0) + "%" } ?? "-", report.p95ErrorPercent.map { decimal($0) + "%" } ?? "-",
            largest,
        ]
    }

    /// One decimal.
    static func decimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return (tenths < 0 ? "-" : "") + "\(abs(tenths) / 10).\(abs(tenths) % 10)"
    }
}

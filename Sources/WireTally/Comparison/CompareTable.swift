extension CompareRun.Result {
    /// The report for people: one line per estimator, a block per app log, then the endpoints.
    public func table(level: WireLevel, files: [String]) -> String {
        var lines = ["wire level: \(level.rawValue)   files: \(files.joined(separator: ", "))", ""]
        let header = ["SOURCE", "REQ", "UP EST", "UP WIRE", "UP ERR", "DOWN EST", "DOWN WIRE", "DOWN ERR", "MEDIAN", "P95", "LARGEST CAUSES"]
        let widths = [16, 5, 10, 10, 8, 10, 10, 8, 8, 7, 0]
        lines.append(Self.row(header, widths))
        for report in estimators { lines.append(Self.row(Self.cells(report, name: report.name), widths)) }
        for log in appLogs {
            lines.append(Self.row(Self.cells(log.estimates, name: "app log"), widths))
        }
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
        let causeWidths = [16] + GapAttribution.causes.map { max(8, $0.count + 1) }
        lines.append(Self.row(["SOURCE"] + GapAttribution.causes, causeWidths))
        let reports = estimators.map { ($0.name, $0) } + appLogs.map { ("app log", $0.estimates) }
        for (name, report) in reports {
            let causes = report.gapByCause
            lines.append(Self.row([name] + GapAttribution.causes.map { String(causes[$0] ?? 0) }, causeWidths))
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

    private static func row(_ cells: [String], _ widths: [Int]) -> String {
        var line = ""
        for (index, cell) in cells.enumerated() {
            let width = index < widths.count ? widths[index] : 0
            let text = width > 0 && cell.count > width - 1 ? String(cell.prefix(width - 2)) + "…" : cell
            line += index == 0 || index == cells.count - 1 ? text.padding(width) : text.leftPadding(width)
            line += " "
        }
        while line.last == " " { line.removeLast() }
        return line
    }

    /// One decimal.
    static func decimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return (tenths < 0 ? "-" : "") + "\(abs(tenths) / 10).\(abs(tenths) % 10)"
    }
}

private extension String {
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
    func leftPadding(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}

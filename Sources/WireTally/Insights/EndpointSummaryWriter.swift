/// `analyze --summary`: collects the exchanges into endpoints (`EndpointAggregator`) and at the end
/// writes either one JSON document `{"endpoints":[…]}` or a table for people — instead of the
/// per-exchange records.
public final class EndpointSummaryWriter: RecordWriter {
    public enum Format: String, Sendable {
        case table, json
    }

    public let aggregator: EndpointAggregator
    private let output: TextOutput
    private let format: Format

    public init(output: TextOutput, format: Format, options: EndpointAggregator.Options = .init()) {
        self.output = output
        self.format = format
        aggregator = EndpointAggregator(options: options)
    }

    public func write(_ record: AnalysisRecord, timestampDigits: Int) {
        aggregator.add(record)
    }

    public func finish(summary: CaptureSummary, files: [String]) {
        switch format {
        case .json: output.write(aggregator.json().serialized + "\n")
        case .table: output.write(Self.table(aggregator.summaries(), windowWidth: aggregator.windowWidth, files: files))
        }
        output.flush()
    }

    /// The endpoint table: one line per endpoint (method, host, path, requests, up and down IP bytes,
    /// share, flags, requests per window as a sparkline), then one indented line of evidence per flag.
    public static func table(_ endpoints: [EndpointSummary], windowWidth: Int64, files: [String]) -> String {
        let titles = ["METHOD", "HOST", "PATH", "REQ", "UP BYTES", "DOWN BYTES", "SHARE", "FLAGS", "REQUESTS PER WINDOW"]
        let widths = [7, 22, 32, 6, 10, 11, 6, 18, 0]
        let left = [true, true, true, false, false, false, false, true, true]
        func row(_ cells: [String]) -> String {
            var line = ""
            for (index, cell) in cells.enumerated() {
                var text = cell
                let width = widths[index]
                if width > 0 && text.count > width { text = String(text.prefix(width - 1)) + "…" }
                let padding = String(repeating: " ", count: max(0, width - text.count))
                line += (left[index] ? text + padding : padding + text) + " "
            }
            while line.last == " " { line.removeLast() }
            return line + "\n"
        }
        var text = row(titles)
        for endpoint in endpoints {
            let flags = endpoint.flags.map(\.kind.rawValue).joined(separator: ",")
            text += row([
                endpoint.method ?? "-", endpoint.host, endpoint.path ?? "(encrypted)", String(endpoint.requests),
                String(endpoint.upIPBytes), String(endpoint.downIPBytes),
                RunawayDetector.format(endpoint.share * 100, digits: 1) + "%", flags.isEmpty ? "-" : flags,
                sparkline(endpoint.windows) + " " + endpoint.windows.map { String($0.requests) }.joined(separator: " "),
            ])
            for flag in endpoint.flags { text += "    ↳ " + flag.summary + "\n" }
        }
        let total = endpoints.reduce(0) { $0 + $1.requests }
        text += "\n\(endpoints.count) endpoints, \(total) exchanges in \(files.joined(separator: ", ")); windows of "
            + RunawayDetector.format(Double(windowWidth) / 1e9, digits: 0) + " s (rates per observed second)\n"
        return text
    }

    /// One block character per window, scaled to the endpoint's busiest window.
    static func sparkline(_ windows: [RateWindow]) -> String {
        let blocks: [Character] = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
        let peak = windows.map(\.requests).max() ?? 0
        guard peak > 0 else { return String(repeating: " ", count: windows.count) }
        return String(windows.map { window in
            window.requests == 0 ? " " : blocks[min(7, (window.requests * 8 - 1) / peak)]
        })
    }
}

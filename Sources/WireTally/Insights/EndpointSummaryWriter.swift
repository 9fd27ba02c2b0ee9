/// `analyze --summary`: collects the exchanges into endpoints (`EndpointAggregator`) and at the end
/// writes either one JSON document or a table for people — instead of the per-exchange records.
///
/// JSON (`--format json`), endpoints by up + down IP bytes descending:
///
/// ```json
/// {"endpoints":[{"method":"GET","host":"10.77.0.2","path":"/api/status","requests":84,
///    "up_ip_bytes":20664,"down_ip_bytes":20552,"share":0.8002,
///    "rate_windows":[{"start":1795328054.000,"end":1795328056.000,"requests":2,"rate_per_min":77.85},…],
///    "flags":["runaway"],
///    "evidence":{"runaway":{"windows":11,"kendall_tau":0.954,"first_rate_per_min":97.45,
///       "last_rate_per_min":396.14,"growth":4.07,"first_mean_interval_ms":615.7,
///       "last_mean_interval_ms":151.5,"z":4.07,"rates_per_min":[77.8,…]}}}],
///  "window_seconds":2.000,"exchanges":105}
/// ```
///
/// - `app` (first, only when the capture names the process or app of each connection: PKTAP, Apple
///   or PCAPdroid pcapng, PCAPdroid trailers): the endpoints are split by app and listed app by app;
///   the document then ends with `apps`: [`app`, `requests`, `up_ip_bytes`, `down_ip_bytes`].
/// - `method` and `path` are null for exchanges without a readable request (TLS without keys, a
///   response whose request was not captured); `host` is then the SNI / DNS name or the server address.
/// - `path` is the `PathTemplate` of the target (query dropped, ids folded); `host` is lowercased.
/// - `share` is the endpoint's up + down IP bytes over those of all exchanges (4 decimals; DNS bytes
///   before a connection are not included).
/// - `rate_windows`: fixed windows shared by all endpoints (`window_seconds`), from the endpoint's
///   first request's window to its last; `rate_per_min` is per second of the window inside the
///   endpoint's first…last request span, so partial edge windows are not under-counted.
/// - `flags`: `runaway`, `duplicate`, `burst` (`RunawayDetector`), each with its object in `evidence`:
///   runaway as above; `duplicate`: `duplicates`, `requests`, `identities`, `min_gap_ms`, `max_gap_ms`,
///   `max_interval_ms`, `examples` [`ts`, `gap_ms`, `request`]; `burst`: `median_rate_per_min`,
///   `windows` [`start`, `end`, `requests`, `rate_per_min`, `ratio`].
package final class EndpointSummaryWriter: OffThreadRecordWriter {
    package enum Format: String, Sendable {
        case table, json
    }

    package let aggregator: EndpointAggregator
    private let output: TextOutput
    private let format: Format

    package init(output: TextOutput, format: Format, options: EndpointAggregator.Options = .init()) {
        self.output = output
        self.format = format
        aggregator = EndpointAggregator(options: options)
    }

    package func write(_ record: AnalysisRecord, timestampDigits: Int) {
        aggregator.add(record)
    }

    package func finish(summary: CaptureSummary, files: [String]) {
        switch format {
        case .json: output.write(aggregator.json().serialized + "\n")
        case .table: output.write(Self.table(aggregator.summaries(), windowWidth: aggregator.windowWidth, files: files))
        }
        output.flush()
    }

    /// The endpoint table: one line per endpoint (app when the capture names them, method, host, path,
    /// requests, up and down IP bytes, share, flags, requests per window as a sparkline), then one
    /// indented line of evidence per flag.
    package static func table(_ endpoints: [EndpointSummary], windowWidth: Int64, files: [String]) -> String {
        let withApps = endpoints.contains { $0.app != nil }
        let appColumn = withApps ? 1 : 0
        let table = TextTable(columns: (withApps ? [.text("APP", width: 16)] : []) + [
            .text("METHOD", width: 7), .text("HOST", width: 22), .text("PATH", width: 32), .init("REQ", width: 6),
            .init("UP BYTES", width: 10), .init("DOWN BYTES", width: 11), .init("SHARE", width: 6), .text("FLAGS", width: 18),
            .text("REQUESTS PER WINDOW", width: 0),
        ])
        func row(_ cells: [String]) -> String { table.row(cells) + "\n" }
        var text = table.header + "\n"
        for endpoint in endpoints {
            let flags = endpoint.flags.map(\.kind.rawValue).joined(separator: ",")
            text += row(Array([endpoint.app ?? "-"].prefix(appColumn)) + [
                endpoint.method ?? "-", endpoint.host, endpoint.path ?? "(encrypted)", String(endpoint.requests),
                String(endpoint.upIPBytes), String(endpoint.downIPBytes),
                RunawayDetector.format(endpoint.share * 100, digits: 1) + "%", flags.isEmpty ? "-" : flags,
                sparkline(endpoint.windows) + " " + endpoint.windows.map { String($0.requests) }.joined(separator: " "),
            ])
            for flag in endpoint.flags { text += "    ↳ " + flag.summary + "\n" }
        }
        let total = endpoints.reduce(0) { $0 + $1.requests }
        let apps = EndpointAggregator.apps(endpoints)
        if !apps.isEmpty {
            func cell(_ text: String, _ width: Int, left: Bool = false) -> String {
                let padding = String(repeating: " ", count: max(0, width - text.count))
                return left ? text + padding : padding + text
            }
            text += "\n" + cell("APP", 16, left: true) + " " + cell("REQ", 6) + " " + cell("UP BYTES", 10) + " "
                + cell("DOWN BYTES", 11) + "\n"
            for app in apps {
                text += cell(app.app, 16, left: true) + " " + cell(String(app.requests), 6) + " "
                    + cell(String(app.up), 10) + " " + cell(String(app.down), 11) + "\n"
            }
        }
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

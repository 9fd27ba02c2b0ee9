/// Everything the HTML report shows, built in one pass over the capture: the summary, one row per
/// exchange, connection and DNS lookup, the endpoint summary and, when asked, the accuracy comparison.
///
/// `json` is the data block the page renders: rows are arrays whose cells are named once by the
/// `columns` next to them (compact for big captures). Exchange rows come in waterfall order
/// (`WaterfallOrder`: by start, the streams of an HTTP/2 connection together).
package struct ReportModel {
    package var files: [String]
    package var level: WireLevel
    package var summary: CaptureSummary
    package var totals: ReportTotals
    /// Problems met: input errors of the capture, app logs that could not be read.
    package var errors: [String]
    package var json: JSONValue

    /// Timing phases of the waterfall, in the order they are drawn.
    package static let phases = ["dns", "connect", "ssl", "send", "wait", "receive"]
    /// Exchange rows; HTTP/2 streams also have `version` `HTTP/2`, `stream` (id), `pushed_by` and the
    /// connection-level frame bytes the exchange was given (`share_up`, `share_down`: payload bytes,
    /// part of `up`/`down`).
    static let exchangeColumns = ["id", "conn", "start_ms", "host", "method", "target", "endpoint", "status",
                                  "up", "down"] + phases + ["total", "flags", "version", "stream", "pushed_by",
                                  "share_up", "share_down", "app"]
    static let connectionColumns = ["id", "client", "server", "transport", "start_ms", "duration_ms", "exchanges", "up", "down",
                                    "unattributed", "handshake_rtt_ms", "tls", "flags", "app"]
    static let dnsColumns = ["id", "dns_id", "query", "qtype", "rcode", "addresses", "cnames", "server", "transport",
                             "start_ms", "rtt_ms", "retries", "ip_bytes", "flags"]

    /// Where `start_ms` is in a row: the collector leaves it null until the capture's start is known.
    private static func startColumn(_ columns: [String]) -> Int { columns.firstIndex(of: "start_ms") ?? 0 }

    /// The name an endpoint is filtered by: `METHOD host path-template` (`*` for no method), after
    /// `app: ` when the capture names the app.
    static func endpointKey(_ endpoint: (method: String?, host: String, path: String?), app: String?) -> String {
        (app.map { "\($0): " } ?? "") + "\(endpoint.method ?? "*") \(endpoint.host)\(endpoint.path ?? "")"
    }

    init(files: [String], level: WireLevel, summary: CaptureSummary, errors: [String],
         collector: ReportCollector, endpoints: EndpointAggregator, accuracy: JSONValue?) {
        self.files = files
        self.level = level
        self.summary = summary
        self.totals = collector.totals
        self.errors = errors
        let origin = summary.firstTimestamp?.nanoseconds ?? 0
        func relative(_ nanoseconds: Int64?) -> JSONValue {
            nanoseconds.map { .number(RecordEncoding.milliseconds($0 - origin)) } ?? .null
        }
        let summaries = endpoints.summaries()
        // beyond the aggregator's endpoint cap, exchanges are counted in its "(other)" endpoint
        let keys = Set(summaries.map { Self.endpointKey(($0.method, $0.host, $0.path), app: $0.app) })
        let other = summaries.first { $0.path == EndpointAggregator.otherPath }.map {
            Self.endpointKey(($0.method, $0.host, $0.path), app: $0.app)
        }
        let endpointColumn = Self.exchangeColumns.firstIndex(of: "endpoint") ?? 0
        let order = WaterfallOrder.positions(collector.exchanges.map {
            WaterfallOrder.Row(start: $0.start, id: $0.id, connection: $0.connection, multiplexed: $0.multiplexed)
        })
        let exchanges = order.map { collector.exchanges[$0] }.map { row in
            var cells = row.cells
            cells[Self.startColumn(Self.exchangeColumns)] = relative(row.start)
            if let other, !keys.contains(cells[endpointColumn].plainText) { cells[endpointColumn] = .string(other) }
            return JSONValue.array(cells)
        }
        let connections = collector.connections.map { row in
            var cells = row.cells
            cells[Self.startColumn(Self.connectionColumns)] = relative(row.start)
            return JSONValue.array(cells)
        }
        let dns = collector.dns.map { row in
            var cells = row.cells
            cells[Self.startColumn(Self.dnsColumns)] = relative(row.start)
            return JSONValue.array(cells)
        }

        let endpointObjects: [JSONValue] = summaries.map { endpoint in
            guard case var .object(members) = EndpointAggregator.json(endpoint) else { return .null }
            members.insert(("key", .string(Self.endpointKey((endpoint.method, endpoint.host, endpoint.path), app: endpoint.app))), at: 0)
            members.append(("evidence_text", .object(endpoint.flags.map { ($0.kind.rawValue, .string($0.summary)) })))
            return .object(members)
        }
        let totals = self.totals
        json = .object([
            ("generator", .string("wiretally")),
            ("files", .array(files.map(JSONValue.string))),
            ("level", .string(level.rawValue)),
            ("summary", RecordEncoding.summary(summary, files: files)),
            ("totals", .object([
                ("requests", .integer(totals.requests)),
                ("up_ip_bytes", .integer(totals.upIPBytes)),
                ("down_ip_bytes", .integer(totals.downIPBytes)),
                ("http_up_ip_bytes", .integer(totals.httpUpIPBytes)),
                ("http_down_ip_bytes", .integer(totals.httpDownIPBytes)),
                ("message_bytes", .integer(totals.messageBytes)),
                ("overhead_bytes", .integer(totals.overheadBytes)),
                ("overhead_share", .number(RunawayDetector.format(totals.overheadShare, digits: 4))),
                ("http_errors", .integer(totals.httpErrors)),
            ])),
            ("errors", .array(errors.map(JSONValue.string))),
            ("exchanges", .object([("columns", .array(Self.exchangeColumns.map(JSONValue.string))), ("rows", .array(exchanges))])),
            ("endpoints", .array(endpointObjects)),
            ("window_seconds", .number(RunawayDetector.format(Double(endpoints.windowWidth) / 1e9, digits: 3))),
            ("accuracy", accuracy ?? .null),
            ("connections", .object([("columns", .array(Self.connectionColumns.map(JSONValue.string))), ("rows", .array(connections))])),
            ("dns", .object([("columns", .array(Self.dnsColumns.map(JSONValue.string))), ("rows", .array(dns))])),
        ])
    }
}

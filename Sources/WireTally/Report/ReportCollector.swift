/// Collects what the HTML report shows from the records of one analysis pass: each exchange, connection
/// and DNS lookup as a compact row (numbers taken from the JSON record `analyze` writes, so they are
/// the same), and the traffic totals of the summary.
final class ReportCollector: RecordWriter {
    /// Exchange rows, before the capture start is known: the absolute start and the row's cells.
    /// Exchange rows, before the capture start is known: the absolute start, the row's cells, and its
    /// connection and whether that connection multiplexes streams (HTTP/2), for the waterfall's order.
    private(set) var exchanges: [(start: Int64, id: Int, connection: Int, multiplexed: Bool, cells: [JSONValue])] = []
    private(set) var connections: [(start: Int64, cells: [JSONValue])] = []
    private(set) var dns: [(start: Int64?, cells: [JSONValue])] = []
    private(set) var totals = ReportTotals()
    /// The endpoint summary, when this collector feeds it (not when a comparison does).
    let endpoints: EndpointAggregator?

    init(aggregatingEndpoints: Bool) {
        endpoints = aggregatingEndpoints ? EndpointAggregator() : nil
    }

    func write(_ record: AnalysisRecord, timestampDigits digits: Int) {
        switch record {
        case let .exchange(record):
            endpoints?.add(record.exchange, connection: record.connection)
            addExchange(record.exchange, id: record.id, connection: record.connection, digits: digits)
        case let .connection(connection):
            addConnection(
                RecordEncoding.connection(connection, timestampDigits: digits), from: connection.firstTimestamp,
                to: connection.lastTimestamp, app: connection.owner?.label)
        case let .quicConnection(connection):
            addConnection(
                RecordEncoding.record(record, timestampDigits: digits), from: connection.firstTimestamp,
                to: connection.lastTimestamp, app: connection.owner?.label)
        case let .flow(flow):
            let json = RecordEncoding.flow(flow, timestampDigits: digits)
            totals.upIPBytes += json.integer("up", "ip_bytes")
            totals.downIPBytes += json.integer("down", "ip_bytes")
        case let .dns(transaction):
            let json = RecordEncoding.dns(transaction, timestampDigits: digits)
            dns.append((transaction.queryTimestamp?.nanoseconds ?? transaction.answerTimestamp?.nanoseconds, Self.cells(ReportModel.dnsColumns, [
                "id": json["id"], "dns_id": json["dns_id"], "query": json["query"], "qtype": json["qtype"], "rcode": json["rcode"],
                "addresses": json["addresses"], "cnames": json["cnames"], "server": json["server"], "transport": json["transport"],
                "rtt_ms": json["rtt"], "retries": json["retries"], "ip_bytes": json["wire"]?["ip_bytes"], "flags": json["flags"],
            ])))
        }
    }

    func finish(summary: CaptureSummary, files: [String]) {}

    /// A connection row (TCP or QUIC) from its record, which lasted from `first` to `last`, carried for
    /// `app` (`TrafficOwner.label`).
    private func addConnection(_ json: JSONValue, from first: Timestamp, to last: Timestamp, app: String?) {
        totals.upIPBytes += json.integer("up", "ip_bytes")
        totals.downIPBytes += json.integer("down", "ip_bytes")
        let unattributed = json.integer("unattributed", "up", "ip_bytes") + json.integer("unattributed", "down", "ip_bytes")
        let tls = json["tls"].flatMap { tls -> JSONValue? in
            guard case .object = tls else { return nil }
            let parts = ["version", "sni", "alpn"].compactMap { tls[$0].flatMap { $0 == .null ? nil : $0.plainText } }
            return .string(parts.joined(separator: " "))
        }
        connections.append((first.nanoseconds, Self.cells(ReportModel.connectionColumns, [
            "id": json["id"], "client": json["client"], "server": json["server"], "transport": json["transport"],
            "duration_ms": .number(RecordEncoding.milliseconds(last.nanoseconds - first.nanoseconds)),
            "exchanges": json["exchanges"], "up": json["up"]?["ip_bytes"], "down": json["down"]?["ip_bytes"],
            "unattributed": .integer(unattributed), "handshake_rtt_ms": json["handshake_rtt_ms"], "tls": tls, "flags": json["flags"],
            "app": app.map(JSONValue.string),
        ])))
    }

    private func addExchange(_ exchange: HTTPExchange, id: Int, connection: ExchangeConnection, digits: Int) {
        let json = RecordEncoding.http(exchange, id: id, connection: connection, timestampDigits: digits)
        let up = json.integer("wire", "up", "ip_bytes"), down = json.integer("wire", "down", "ip_bytes")
        let flags = RecordEncoding.flags(of: exchange, on: connection)
        totals.requests += 1
        totals.httpUpIPBytes += up
        totals.httpDownIPBytes += down
        totals.messageBytes += Self.messageBytes(json["request"], estimated: flags.contains("estimated"))
            + Self.messageBytes(json["response"], estimated: flags.contains("estimated"))
        let status = exchange.response?.status
        if exchange.response == nil || (status ?? 0) >= 400 { totals.httpErrors += 1 }
        let parts = EndpointAggregator.request(of: exchange, connection: connection)
        let endpoint = EndpointAggregator.endpoint(method: parts.method, host: parts.host, target: parts.target)
        let app = connection.owner?.label
        let timing = json["timing"]
        let start = exchange.timing.start ?? exchange.request?.firstOrigin.timestamp
            ?? exchange.response?.firstOrigin.timestamp ?? connection.firstTimestamp
        var values: [String: JSONValue?] = [
            "id": .integer(id), "conn": .integer(connection.id), "host": .string(parts.host),
            "method": parts.method.map(JSONValue.string), "target": parts.target.map(JSONValue.string),
            "endpoint": .string(ReportModel.endpointKey(endpoint, app: app)),
            "status": status.map(JSONValue.integer), "app": app.map(JSONValue.string),
            "up": .integer(up), "down": .integer(down), "flags": .array(flags.map(JSONValue.string)),
        ]
        for phase in ReportModel.phases + ["total"] { values[phase] = timing?[phase] }
        // typed first: assigned straight into the `JSONValue?` dictionary, `??` saw `.some(nil)` for a
        // request without a version and never fell back to the response's
        let version: JSONValue? = json["request"]?["version"] ?? json["response"]?["version"]
        values["version"] = version
        let http2 = json["http2"].flatMap { $0 == .null ? nil : $0 }
        if let http2 {
            values["stream"] = http2["stream_id"]
            values["pushed_by"] = http2["pushed_by"]
            values["share_up"] = http2["connection_share"]?["up"]
            values["share_down"] = http2["connection_share"]?["down"]
        }
        let http3 = json["http3"].flatMap { $0 == .null ? nil : $0 }
        if let http3 { values["stream"] = http3["stream_id"] }
        let multiplexed = http2 != nil || http3 != nil
        exchanges.append((start.nanoseconds, id, connection.id, multiplexed, Self.cells(ReportModel.exchangeColumns, values)))
    }

    /// A row's cells in the order of `columns` (null where there is no value; `start_ms` is filled in
    /// by the model).
    private static func cells(_ columns: [String], _ values: [String: JSONValue?]) -> [JSONValue] {
        columns.map { (values[$0] ?? nil) ?? .null }
    }

    /// The bytes of a message as the application sent it: its `bytes.total`, less the TLS record
    /// framing of an exchange estimated from encrypted records (that framing is wire overhead).
    private static func messageBytes(_ message: JSONValue?, estimated: Bool) -> Int {
        guard let message, message != .null else { return 0 }
        return message.integer("bytes", "total") - (estimated ? message.integer("bytes", "framing") : 0)
    }
}

/// Wire and message byte totals of a capture, for the report's summary.
package struct ReportTotals: Sendable {
    /// IP bytes of every connection and flow, client → server and back.
    package var upIPBytes = 0
    package var downIPBytes = 0
    /// IP bytes attributed to HTTP exchanges.
    package var httpUpIPBytes = 0
    package var httpDownIPBytes = 0
    /// HTTP messages as the application sent them (start lines, headers, bodies, chunk framing).
    package var messageBytes = 0
    /// HTTP exchanges, and those with an error status (≥ 400) or no response.
    package var requests = 0
    package var httpErrors = 0

    /// Wire bytes that are not HTTP message bytes: headers of IP and TCP, handshakes, ACKs,
    /// retransmissions, TLS, DNS, other traffic.
    package var overheadBytes: Int { upIPBytes + downIPBytes - messageBytes }

    /// `overheadBytes` as a share of all IP bytes (0 without traffic).
    package var overheadShare: Double {
        upIPBytes + downIPBytes > 0 ? Double(overheadBytes) / Double(upIPBytes + downIPBytes) : 0
    }
}

extension JSONValue {
    /// The integer at a path of object keys, 0 when absent or not an integer.
    func integer(_ keys: String...) -> Int {
        var value: JSONValue? = self
        for key in keys { value = value?[key] }
        if case let .integer(number)? = value { return number }
        return 0
    }
}

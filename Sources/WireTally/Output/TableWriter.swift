/// A table for people: one line per HTTP exchange (or per connection), then the summary with the top
/// endpoints by wire bytes. Byte columns are IP-level wire bytes. The exchange table gets an `APP`
/// column (`TrafficOwner.label`: the effective process, else the process or app name) from the first
/// exchange whose connection names an owner (PKTAP, Apple pcapng, PCAPdroid) on — its header is written
/// again if exchanges without one came before — and has none when no connection names one.
package final class TableWriter: OffThreadRecordWriter {
    private let output: TextOutput
    private let view: RecordView
    private var wroteHeader = false
    /// The exchange table has the `APP` column.
    private var showsApp = false
    private var endpoints: [String: EndpointTotals] = [:]
    /// The row being written, its memory kept from row to row.
    private var line: [UInt8] = []

    /// Wire totals of one method + host + path.
    struct EndpointTotals {
        var requests = 0
        var upBytes = 0
        var downBytes = 0
    }

    package init(output: TextOutput, view: RecordView = .exchanges) {
        self.output = output
        self.view = view
    }

    private typealias Column = TextTable.Column

    private static let exchangeTable = TextTable(columns: [
        .text("TIME", width: 15), .text("METHOD", width: 7), .text("URL", width: 48), Column("STATUS", width: 6),
        Column("UP BYTES", width: 10), Column("DOWN BYTES", width: 11), .text("FLAGS", width: 0),
    ])

    /// `exchangeTable` with the owner's name after the time (Apple's process names take 16 bytes at most).
    private static let appExchangeTable = TextTable(
        columns: [exchangeTable.columns[0], .text("APP", width: 16)] + exchangeTable.columns.dropFirst())

    private static let connectionTable = TextTable(columns: [
        Column("ID", width: 6), .text("CLIENT", width: 23), .text("SERVER", width: 23), Column("DURATION", width: 10),
        Column("UP PKTS", width: 8), Column("UP BYTES", width: 11), Column("DOWN PKTS", width: 9),
        Column("DOWN BYTES", width: 11), Column("EXCH", width: 5), Column("RETX", width: 5), Column("MISSING", width: 8),
        .text("FLAGS", width: 0),
    ])

    package func write(_ record: AnalysisRecord, timestampDigits: Int) {
        switch (record, view) {
        case let (.exchange(exchangeRecord), .exchanges):
            writeExchange(exchangeRecord.exchange, id: exchangeRecord.id, connection: exchangeRecord.connection, digits: timestampDigits)
        case let (.connection(connection), .connections):
            writeConnection(connection)
        case let (.quicConnection(connection), .connections):
            writeConnection(connection)
        default:
            return
        }
    }

    private func writeHeaderOnce(_ table: TextTable) {
        guard !wroteHeader else { return }
        output.write(table.header + "\n")
        wroteHeader = true
    }

    private func writeExchange(_ exchange: HTTPExchange, id: Int, connection: ExchangeConnection, digits: Int) {
        let app = connection.owner?.label
        if app != nil && !showsApp {
            showsApp = true
            wroteHeader = false
        }
        let table = showsApp ? Self.appExchangeTable : Self.exchangeTable
        writeHeaderOnce(table)
        let wire = connection.wire
        let up = wire.tally(.up).total.ipBytes, down = wire.tally(.down).total.ipBytes
        let first = exchange.request?.firstOrigin.timestamp ?? exchange.response?.firstOrigin.timestamp
        let method = exchange.request?.method ?? "-"
        let host = exchange.request.map {
            RecordEncoding.host(of: $0, fallback: ExchangeConnection.fallbackHost(serverName: exchange.serverName, server: connection.server))
        } ?? connection.serverEndpoint
        // Encrypted exchanges have no target: show the server they went to.
        let target = exchange.request?.target ?? ""
        let url = target.hasPrefix("/") ? host + target : target.isEmpty ? "https://" + host : target
        let status = exchange.response?.status.map(String.init) ?? "-"
        var cells = [
            first.map(Self.timeOfDay) ?? "-", method, url, status, String(up), String(down),
            RecordEncoding.flags(of: exchange, on: connection).joined(separator: ","),
        ]
        if showsApp { cells.insert(app ?? "-", at: 1) }
        writeRow(cells, of: table)
        let path = target.utf8.firstIndex(of: UInt8(ascii: "?")).map { String(target[..<$0]) } ?? target
        endpoints["\(method) \(target.hasPrefix("/") ? host + path : path.isEmpty ? url : path)", default: EndpointTotals()].add(up: up, down: down)
    }

    private func writeConnection(_ connection: TCPConnection) {
        writeHeaderOnce(Self.connectionTable)
        let up = connection.ledger.tally(.up), down = connection.ledger.tally(.down)
        let duration = connection.lastTimestamp.nanoseconds - connection.firstTimestamp.nanoseconds
        writeRow([
            String(connection.id), connection.clientEndpoint, connection.serverEndpoint,
            RecordEncoding.milliseconds(duration / 1000) + "s", String(up.total.packets), String(up.total.ipBytes),
            String(down.total.packets), String(down.total.ipBytes), String((connection.consumer as? ApplicationLayerAnalysis)?.exchangeCount ?? 0),
            String(up.retransmission.packets + down.retransmission.packets),
            String(up.missingBytes + down.missingBytes), connection.flags.names.joined(separator: ","),
        ], of: Self.connectionTable)
    }

    /// A QUIC connection's row: its datagrams, and `quic` first among the flags.
    private func writeConnection(_ connection: QUICConnection) {
        writeHeaderOnce(Self.connectionTable)
        let up = connection.ledger.totals.up, down = connection.ledger.totals.down
        let duration = connection.lastTimestamp.nanoseconds - connection.firstTimestamp.nanoseconds
        writeRow([
            String(connection.id), connection.clientEndpoint, connection.serverEndpoint,
            RecordEncoding.milliseconds(duration / 1000) + "s", String(up.total.packets), String(up.total.ipBytes),
            String(down.total.packets), String(down.total.ipBytes), String(connection.exchangeCount), "0", "0",
            (["quic"] + connection.flags.names).joined(separator: ","),
        ], of: Self.connectionTable)
    }

    /// Writes `cells` as a row of `table` and a newline, as bytes (no `String` made for the line).
    private func writeRow(_ cells: [String], of table: TextTable) {
        line.removeAll(keepingCapacity: true)
        table.appendRow(cells, to: &line)
        line.append(UInt8(ascii: "\n"))
        line.withUnsafeBytes { output.write(bytes: $0) }
    }

    package func flush() { output.flush() }

    package func finish(summary: CaptureSummary, files: [String]) {
        var lines: [String] = [""]
        lines.append("files        \(files.joined(separator: ", "))")
        if let first = summary.firstTimestamp, let last = summary.lastTimestamp {
            lines.append("duration     \(RecordEncoding.milliseconds((last.nanoseconds - first.nanoseconds) / 1000))s")
        }
        lines.append("packets      \(summary.read.packets) (\(summary.read.frameBytes) frame bytes, \(summary.accountedIPBytes) IP bytes)")
        lines.append("http         \(summary.exchanges) exchanges, \(summary.attributedIPBytes) IP bytes in them")
        lines.append("tcp          \(summary.connections) connections, \(summary.inConnections.packets) packets, \(summary.inConnections.ipBytes) IP bytes")
        if !summary.tlsDecryption.isEmpty {
            let counts = ["decrypted", "partial", "no_key", "failed", "unsupported_cipher"].compactMap { status in
                summary.tlsDecryption[status].map { "\($0) \(status.replacing("_", with: " "))" }
            }
            lines.append("tls keys     \(summary.tlsDecryption.values.reduce(0, +)) TLS connections: \(counts.joined(separator: ", "))")
        }
        if summary.quicConnections > 0 {
            lines.append("quic         \(summary.quicConnections) connections, \(summary.inQUICConnections.packets) packets, \(summary.inQUICConnections.ipBytes) IP bytes")
        }
        lines.append("other ip     \(summary.flows) flows, \(summary.inFlows.packets) packets, \(summary.inFlows.ipBytes) IP bytes")
        var notCounted: [String] = []
        if summary.filtered.packets > 0 { notCounted.append("\(summary.filtered.packets) filtered") }
        for failure in DecodeFailure.allCases {
            if let counters = summary.undecoded[failure], counters.packets > 0 {
                notCounted.append("\(counters.packets) \(failure.rawValue.split(separator: "_").joined(separator: " "))")
            }
        }
        if summary.incompleteFragments.packets > 0 {
            notCounted.append("\(summary.incompleteFragments.packets) incomplete fragments")
        }
        if !notCounted.isEmpty { lines.append("not in flows \(notCounted.joined(separator: ", "))") }
        if summary.missingBytes > 0 {
            lines.append("gaps         \(summary.missingBytes) bytes missing in \(summary.connectionsWithGaps) connections")
        }
        if summary.badIPChecksums + summary.badTransportChecksums > 0 {
            lines.append("checksums    \(summary.badIPChecksums) bad IP, \(summary.badTransportChecksums) bad TCP/UDP (normal when captured on the sending host: offload fills them later)")
        }
        if summary.connectionEvictions + summary.flowEvictions + summary.quicConnectionEvictions > 0 {
            lines.append("evicted      \(summary.connectionEvictions) connections, \(summary.quicConnectionEvictions) QUIC connections, \(summary.flowEvictions) flows (live-flow cap reached)")
        }
        if summary.bufferCapGaps > 0 {
            lines.append("buffer cap   \(summary.bufferCapGaps) holes declared missing (out-of-order bytes of all connections over --max-buffered-bytes-total)")
        }
        if summary.openRequestCapConnections > 0 {
            lines.append("request cap  \(summary.openRequestCapConnections) connections stopped parsing requests (over --max-open-requests unanswered, or --max-open-requests-total on all connections)")
        }
        for error in summary.errors { lines.append("error        \(error)") }
        let top = endpoints.sorted { ($0.value.upBytes + $0.value.downBytes, $1.key) > ($1.value.upBytes + $1.value.downBytes, $0.key) }.prefix(10)
        if !top.isEmpty {
            lines.append("")
            lines.append("top endpoints by wire bytes (up + down)")
            for (endpoint, totals) in top {
                lines.append("  \(String(totals.upBytes + totals.downBytes).leftPadded(10))  \(String(totals.requests).leftPadded(5)) req  up \(totals.upBytes)  down \(totals.downBytes)  \(endpoint)")
            }
        }
        output.write(lines.joined(separator: "\n") + "\n")
        output.flush()
    }

    /// `HH:MM:SS.mmm` UTC.
    /// `HH:MM:SS.mmm` of `timestamp` (UTC), the exchange table's time.
    static func timeOfDay(_ timestamp: Timestamp) -> String {
        var milliseconds = (timestamp.nanoseconds / 1_000_000) % 86_400_000
        if milliseconds < 0 { milliseconds += 86_400_000 }  // before 1970: the time of its day all the same
        let hours = milliseconds / 3_600_000, minutes = milliseconds / 60_000 % 60
        let seconds = milliseconds / 1000 % 60, fraction = milliseconds % 1000
        // `HH:MM:SS.mmm`, stored byte-wise (a small string: no allocation)
        return String(unsafeUninitializedCapacity: 12) { text in
            guard let start = text.baseAddress else { return 0 }
            for (index, part) in [hours, minutes, seconds].enumerated() {
                DecimalDigits.writePadded(UInt64(part), width: 2, endingAt: start + 3 * index + 2)
                start[3 * index + 2] = UInt8(ascii: index == 2 ? "." : ":")
            }
            DecimalDigits.writePadded(UInt64(fraction), width: 3, endingAt: start + 12)
            return 12
        }
    }
}

extension TableWriter.EndpointTotals {
    mutating func add(up: Int, down: Int) {
        requests += 1
        upBytes += up
        downBytes += down
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}

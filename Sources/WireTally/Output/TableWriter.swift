/// A table for people: one line per connection (IP-level bytes), then the summary.
public final class TableWriter: RecordWriter {
    private let output: TextOutput
    private var wroteHeader = false

    public init(output: TextOutput) { self.output = output }

    private static let columns: [(title: String, width: Int, leftAligned: Bool)] = [
        ("ID", 6, false), ("CLIENT", 23, true), ("SERVER", 23, true), ("DURATION", 10, false),
        ("UP PKTS", 8, false), ("UP BYTES", 11, false), ("DOWN PKTS", 9, false), ("DOWN BYTES", 11, false),
        ("RETX", 6, false), ("MISSING", 8, false), ("FLAGS", 0, true),
    ]

    public func write(_ record: AnalysisRecord, timestampDigits: Int) {
        guard case let .connection(connection) = record else { return }
        if !wroteHeader {
            output.write(Self.row(Self.columns.map(\.title)))
            wroteHeader = true
        }
        let up = connection.ledger.tally(.up), down = connection.ledger.tally(.down)
        let duration = connection.lastTimestamp.nanoseconds - connection.firstTimestamp.nanoseconds
        output.write(Self.row([
            String(connection.id), connection.clientEndpoint, connection.serverEndpoint,
            Self.seconds(duration), String(up.total.packets), String(up.total.ipBytes),
            String(down.total.packets), String(down.total.ipBytes),
            String(up.retransmission.packets + down.retransmission.packets),
            String(up.missingBytes + down.missingBytes), connection.flags.names.joined(separator: ","),
        ]))
    }

    public func finish(summary: CaptureSummary, files: [String]) {
        var lines: [String] = [""]
        lines.append("files        \(files.joined(separator: ", "))")
        if let first = summary.firstTimestamp, let last = summary.lastTimestamp {
            lines.append("duration     \(Self.seconds(last.nanoseconds - first.nanoseconds))")
        }
        lines.append("packets      \(summary.read.packets) (\(summary.read.frameBytes) frame bytes, \(summary.accountedIPBytes) IP bytes)")
        lines.append("tcp          \(summary.connections) connections, \(summary.inConnections.packets) packets, \(summary.inConnections.ipBytes) IP bytes")
        lines.append("other ip     \(summary.flows) flows, \(summary.inFlows.packets) packets, \(summary.inFlows.ipBytes) IP bytes")
        var notCounted: [String] = []
        if summary.filtered.packets > 0 { notCounted.append("\(summary.filtered.packets) filtered") }
        for failure in DecodeFailure.allCases {
            if let counters = summary.undecoded[failure], counters.packets > 0 {
                notCounted.append("\(counters.packets) \(failure.rawValue.replacingUnderscores)")
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
        if summary.connectionEvictions + summary.flowEvictions > 0 {
            lines.append("evicted      \(summary.connectionEvictions) connections, \(summary.flowEvictions) flows (live-flow cap reached)")
        }
        for error in summary.errors { lines.append("error        \(error)") }
        output.write(lines.joined(separator: "\n") + "\n")
        output.flush()
    }

    private static func row(_ cells: [String]) -> String {
        var line = ""
        for (cell, column) in zip(cells, columns) {
            let padding = String(repeating: " ", count: max(0, column.width - cell.count))
            line += column.leftAligned ? cell + padding : padding + cell
            line += " "
        }
        while line.last == " " { line.removeLast() }
        return line + "\n"
    }

    private static func seconds(_ nanoseconds: Int64) -> String {
        RecordEncoding.milliseconds(nanoseconds / 1000) + "s"
    }
}

private extension String {
    var replacingUnderscores: String { String(map { $0 == "_" ? " " : $0 }) }
}

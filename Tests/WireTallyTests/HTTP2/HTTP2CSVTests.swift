import Testing
@testable import WireTally

/// The CSV output has HTTP/2's columns (`request_stream_id`, `*_bytes_control`, `*_bytes_headers_decoded`,
/// `*_bytes_hpack_ratio`, `http2_*`), equal to the JSONL record's values; HTTP/1.x rows leave them empty.
@Suite struct HTTP2CSVTests {
    /// One CSV line's cells (RFC 4180 quoting).
    static func cells(_ line: Substring) -> [String] {
        var cells: [String] = [], cell = "", quoted = false, previous: Character = " "
        for character in line {
            if character == "\"" {
                if quoted && previous == "\"" { cell.append("\"") }
                quoted.toggle()
            } else if character == "," && !quoted {
                cells.append(cell)
                cell = ""
            } else {
                cell.append(character)
            }
            previous = character
        }
        return cells + [cell]
    }

    @Test(.requires(.wiretallyBinary), arguments: ["h2-python", "h2-nghttp"])
    func http2ColumnsEqualTheRecords(_ name: String) throws {
        let recording = try HTTP2Recordings.analysis(name)
        var arguments = ["analyze", TestPaths.capture(name + ".pcap"), "--format", "csv"]
        if name == "h2-python" { arguments += ["--keylog", TestPaths.capture(name + ".keys")] }
        let run = try CommandLineTests.run(arguments)
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n")
        let header = Self.cells(try #require(lines.first))
        let columns = ["request_stream_id", "request_bytes_control", "request_bytes_headers_decoded", "request_bytes_hpack_ratio",
                       "response_bytes_control", "response_bytes_hpack_ratio", "http2_stream_id", "http2_pushed_by",
                       "http2_reset_error_code", "http2_reset_by", "http2_reset_after_end", "http2_refused",
                       "http2_connection_share_up", "http2_connection_share_down"]
        for column in columns { #expect(header.contains(column), "\(name): column \(column)") }
        let rows = lines.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, Self.cells($0))) }
        let exchanges = recording.writer.exchanges
        #expect(rows.count == exchanges.count && rows.count > 0)
        var withHTTP2 = 0
        for (row, record) in zip(rows, exchanges) {
            let flat = Dictionary(record.flattened(), uniquingKeysWith: { first, _ in first })
            for column in columns where header.contains(column) {
                #expect(row[column] == (flat[column] ?? ""), "\(name) id \(row["id"] ?? "?") \(column): csv \(row[column] ?? "-") vs \(flat[column] ?? "-")")
            }
            if !(row["http2_stream_id"] ?? "").isEmpty { withHTTP2 += 1 }
        }
        #expect(withHTTP2 == exchanges.count { $0.isHTTP2Exchange })
    }
}

/// The connection records flattened to CSV columns (`up_ip_bytes`, `unattributed_down_packets`, …),
/// with a header line; flows and the summary are left to the JSON Lines output.
public final class CSVWriter: RecordWriter {
    private let output: TextOutput
    private var wroteHeader = false

    public init(output: TextOutput) { self.output = output }

    public func write(_ record: AnalysisRecord, timestampDigits: Int) {
        guard case let .connection(connection) = record else { return }
        let columns = RecordEncoding.connection(connection, timestampDigits: timestampDigits)
            .flattened().filter { $0.0 != "type" }
        if !wroteHeader {
            output.write(columns.map(\.0).joined(separator: ",") + "\n")
            wroteHeader = true
        }
        output.write(columns.map { Self.escape($0.1) }.joined(separator: ",") + "\n")
    }

    public func finish(summary: CaptureSummary, files: [String]) { output.flush() }

    /// RFC 4180 quoting where needed.
    static func escape(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.reduce(into: "") { $0 += $1 == "\"" ? "\"\"" : String($1) } + "\""
    }
}

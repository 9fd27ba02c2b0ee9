/// Records of one view flattened to CSV columns (`request_bytes_total`, `wire_up_ip_bytes`,
/// `up_ip_bytes`, `unattributed_down_packets`, …) under a header line. The columns are fixed per view,
/// so a record missing a part (an exchange without response) leaves those cells empty.
public final class CSVWriter: RecordWriter {
    private let output: TextOutput
    private let view: RecordView
    private var columns: [String]?

    public init(output: TextOutput, view: RecordView = .exchanges) {
        self.output = output
        self.view = view
    }

    public func write(_ record: AnalysisRecord, timestampDigits: Int) {
        switch (record, view) {
        case (.exchange, .exchanges), (.connection, .connections), (.quicConnection, .connections): break
        default: return
        }
        let cells = RecordEncoding.record(record, timestampDigits: timestampDigits).flattened()
        let columns = self.columns ?? Self.columns(for: view)
        if self.columns == nil {
            self.columns = columns
            output.write(columns.joined(separator: ",") + "\n")
        }
        let values = Dictionary(cells, uniquingKeysWith: { first, _ in first })
        output.write(columns.map { Self.escape(values[$0] ?? "") }.joined(separator: ",") + "\n")
    }

    public func flush() { output.flush() }

    public func finish(summary: CaptureSummary, files: [String]) { output.flush() }

    /// The columns of a view: the flattened keys of a record with every part present, then the owner's
    /// (`process_pid` … `app_name`).
    static func columns(for view: RecordView) -> [String] {
        let template: JSONValue
        switch view {
        case .connections: template = RecordEncoding.connectionTemplate
        case .exchanges: template = RecordEncoding.exchangeTemplate
        }
        return template.flattened().map(\.0).filter { $0 != "type" } + RecordEncoding.ownerColumns
    }

    /// RFC 4180 quoting where needed.
    static func escape(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.reduce(into: "") { $0 += $1 == "\"" ? "\"\"" : String($1) } + "\""
    }
}

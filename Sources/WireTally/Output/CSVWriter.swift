/// Records of one view flattened to CSV columns (`request_bytes_total`, `wire_up_ip_bytes`,
/// `up_ip_bytes`, `unattributed_down_packets`, …) under a header line. The columns are fixed per view,
/// so a record missing a part (an exchange without response) leaves those cells empty.
///
/// Each record is written straight into its line (`CSVRowEncoder`; through its cells when its leaves
/// come out of the columns' order), the lines into one reusable byte buffer handed to the output in
/// large writes.
package final class CSVWriter: OffThreadRecordWriter {
    private let output: TextOutput
    private let view: RecordView
    private let columns: [String]
    /// The row every record is written into (not optional: a call on an unwrapped optional copies it).
    private var row: CSVRowEncoder
    /// Whether the header line is written (before the first record: a run without records writes nothing).
    private var hasHeader = false
    private let buffer = ByteBuffer(capacity: flushThreshold + (64 << 10))
    /// Buffered bytes beyond which the buffer goes to the output.
    private static let flushThreshold = 256 << 10

    package init(output: TextOutput, view: RecordView = .exchanges) {
        self.output = output
        self.view = view
        columns = Self.columns(for: view)
        row = CSVRowEncoder(columns: columns)
    }

    package func write(_ record: AnalysisRecord, timestampDigits: Int) {
        switch (record, view) {
        case (.exchange, .exchanges), (.connection, .connections), (.quicConnection, .connections): break
        default: return
        }
        if !hasHeader {
            Self.append(columns.joined(separator: ","), to: buffer)
            buffer.append(UInt8(ascii: "\n"))
            hasHeader = true
        }
        row.beginLine(in: buffer)
        RecordEncoding.record(record, timestampDigits: timestampDigits, to: &row)
        if !row.endLine() {  // leaves out of the columns' order: the record again, as cells
            row.reset()
            RecordEncoding.record(record, timestampDigits: timestampDigits, to: &row)
            row.appendRow(to: buffer)
        }
        if buffer.count >= Self.flushThreshold { drain() }
    }

    package func flush() {
        drain()
        output.flush()
    }

    package func finish(summary: CaptureSummary, files: [String]) { flush() }

    private func drain() {
        output.write(bytes: buffer.bytes)
        buffer.removeAll()
    }

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

    private static func append(_ text: String, to buffer: ByteBuffer) {
        var text = text
        text.withUTF8 { buffer.freeSpace(atLeast: $0.count).storeBytes(of: $0); buffer.commit($0.count) }
    }
}

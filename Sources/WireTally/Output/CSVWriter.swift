/// Records of one view flattened to CSV columns (`request_bytes_total`, `wire_up_ip_bytes`,
/// `up_ip_bytes`, `unattributed_down_packets`, …) under a header line. The columns are fixed per view,
/// so a record missing a part (an exchange without response) leaves those cells empty.
///
/// Each record is written straight into its row's cells (`CSVRowEncoder`), the rows into one reusable
/// byte buffer handed to the output in large writes.
package final class CSVWriter: RecordWriter {
    private let output: TextOutput
    private let view: RecordView
    private var row: CSVRowEncoder?
    private let buffer = ByteBuffer(capacity: flushThreshold + (64 << 10))
    /// Buffered bytes beyond which the buffer goes to the output.
    private static let flushThreshold = 256 << 10

    package init(output: TextOutput, view: RecordView = .exchanges) {
        self.output = output
        self.view = view
    }

    package func write(_ record: AnalysisRecord, timestampDigits: Int) {
        switch (record, view) {
        case (.exchange, .exchanges), (.connection, .connections), (.quicConnection, .connections): break
        default: return
        }
        if row == nil {
            let columns = Self.columns(for: view)
            row = CSVRowEncoder(columns: columns)
            Self.append(columns.joined(separator: ","), to: buffer)
            buffer.append(UInt8(ascii: "\n"))
        }
        row!.reset()
        RecordEncoding.record(record, timestampDigits: timestampDigits, to: &row!)
        var first = true
        row!.forEachCell { cell in
            Self.appendEscaped(cell, afterComma: !first, to: buffer)
            first = false
        }
        buffer.append(UInt8(ascii: "\n"))
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

    /// A cell (after a comma when `afterComma`), in RFC 4180 quotes (its quotes doubled) when it holds
    /// a comma, a quote, CR or LF.
    @inline(__always)
    private static func appendEscaped(_ field: UnsafeRawBufferPointer, afterComma: Bool, to buffer: ByteBuffer) {
        let bytes = field.bindMemory(to: UInt8.self)
        let comma = afterComma ? 1 : 0
        var special = false
        // `,` `"` LF and CR are all below `-`: digits, letters and `.` are told apart in one comparison.
        for byte in bytes where byte < UInt8(ascii: "-") {
            if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                special = true
                break
            }
        }
        guard special else {
            let space = buffer.freeSpace(atLeast: 1 + bytes.count)
            space.pointee = UInt8(ascii: ",")
            (space + comma).storeBytes(of: bytes)
            return buffer.commit(comma + bytes.count)
        }
        if afterComma { buffer.append(UInt8(ascii: ",")) }
        buffer.append(UInt8(ascii: "\""))
        for byte in bytes {
            if byte == UInt8(ascii: "\"") { buffer.append(byte) }
            buffer.append(byte)
        }
        buffer.append(UInt8(ascii: "\""))
    }
}

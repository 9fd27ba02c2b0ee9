/// Records of one view flattened to CSV columns (`request_bytes_total`, `wire_up_ip_bytes`,
/// `up_ip_bytes`, `unattributed_down_packets`, …) under a header line. The columns are fixed per view,
/// so a record missing a part (an exchange without response) leaves those cells empty.
///
/// Each record is written straight into its row's cells (`CSVRowEncoder`), the rows into one reusable
/// byte buffer handed to the output in large writes.
package final class CSVWriter: OffThreadRecordWriter {
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
        // Room for the whole row at once: every cell quoted with every byte doubled, its comma, the LF.
        let rowStart = buffer.freeSpace(atLeast: 2 * row!.text.count + 3 * row!.columnCount + 1)
        let rowEnd = row!.withCells { cells, text in
            var destination = rowStart
            for (column, cell) in cells.enumerated() {
                destination.pointee = UInt8(ascii: ",")
                destination += column == 0 ? 0 : 1
                let bytes = UnsafeBufferPointer(start: text.baseAddress?.assumingMemoryBound(to: UInt8.self).advanced(by: cell.start),
                                                count: cell.end - cell.start)
                if cell.quoted {
                    destination = Self.storeQuoted(bytes, at: destination)
                } else {
                    destination.storeBytes(of: bytes)
                    destination += bytes.count
                }
            }
            destination.pointee = UInt8(ascii: "\n")
            return destination + 1
        }
        buffer.commit(rowEnd - rowStart)
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

    /// Stores `cell` in RFC 4180 quotes (its quotes doubled) at `destination`; returns the address
    /// after it.
    private static func storeQuoted(_ cell: UnsafeBufferPointer<UInt8>, at destination: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        var destination = destination
        destination.pointee = UInt8(ascii: "\"")
        destination += 1
        for byte in cell {
            if byte == UInt8(ascii: "\"") {
                destination.pointee = byte
                destination += 1
            }
            destination.pointee = byte
            destination += 1
        }
        destination.pointee = UInt8(ascii: "\"")
        return destination + 1
    }
}

import Foundation
import Testing
@testable import WireTally

/// `CSVRowEncoder` (the CSV output's rows, written straight from the record encoding) gives every
/// column the value `JSONValue.flattened` gives it: the definition of the CSV columns.
@Suite struct CSVRowEncoderTests {
    /// The cells of `value` encoded into a row of `columns`.
    static func cells(of value: JSONValue, columns: [String]) -> [String] {
        var row = CSVRowEncoder(columns: columns)
        row.reset()
        value.encode(to: &row)
        return (0..<row.columnCount).map { String(decoding: row.cell($0), as: UTF8.self) }
    }

    /// The flattened values of `value` by column (the first of leaves sharing a path), "" when absent.
    static func flattenedCells(of value: JSONValue, columns: [String]) -> [String] {
        let values = Dictionary(value.flattened(), uniquingKeysWith: { first, _ in first })
        return columns.map { values[$0] ?? "" }
    }

    @Test func cellsEqualTheFlattenedValues() {
        let value = JSONValue.object([
            ("type", .string("exchange")),
            ("id", .integer(-42)),
            ("text", .string("a, \"quoted\"\r\nline é")),
            ("up", .object([("ip_bytes", .integer(1500)), ("ratio", .number("0.25")), ("ok", .bool(true))])),
            ("missing", .null),
            ("up_ip_bytes", .integer(7)),  // the same path as up.ip_bytes: the first is kept
            ("flags", .array([.string("a;b"), .null, .integer(3), .object([("k", .string("v\"")), ("n", .array([.null, .bool(false)]))]),
                              .array([.string("x")]), .string("z")])),
            ("empty", .array([])),
            ("nested", .object([("deeper", .object([("leaf", .string(""))])), ("after", .integer(9))])),
            ("", .object([("top", .integer(1))])),
        ])
        var columns: [String] = []
        for (column, _) in value.flattened() where !columns.contains(column) { columns.append(column) }
        columns.insert("never_written", at: 3)
        columns.append("response_status")
        #expect(Self.cells(of: value, columns: columns) == Self.flattenedCells(of: value, columns: columns))
        // out of the columns' order (a record's leaves usually come in it; a search finds the others)
        columns.reverse()
        #expect(Self.cells(of: value, columns: columns) == Self.flattenedCells(of: value, columns: columns))
    }

    /// Every exchange, connection and QUIC connection record of the recorded captures: the row of the
    /// CSV writer's columns equals the flattened record.
    @Test func rowsEqualTheRecordsOfEveryCapture() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: TestPaths.captures.path).filter { $0.hasSuffix(".pcap") }
        #expect(names.count > 10)
        let exchangeColumns = CSVWriter.columns(for: .exchanges), connectionColumns = CSVWriter.columns(for: .connections)
        // each column once (a row has one cell per name)
        #expect(Set(exchangeColumns).count == exchangeColumns.count && Set(connectionColumns).count == connectionColumns.count)
        var rows = 0
        for name in names.sorted() {
            let (writer, _) = CollectingWriter.analyze([TestPaths.capture(name)])
            for (records, columns) in [(writer.exchanges, exchangeColumns), (writer.connections + writer.quicConnections, connectionColumns)] {
                for record in records {
                    let cells = Self.cells(of: record, columns: columns), expected = Self.flattenedCells(of: record, columns: columns)
                    #expect(cells == expected, "\(name): \(zip(columns, zip(cells, expected)).filter { $1.0 != $1.1 }.prefix(3))")
                    rows += 1
                }
            }
        }
        #expect(rows > 500)
    }

    /// A row's line, written both ways: as a line (`beginLine`/`endLine`) after text already in the
    /// buffer, and as cells (`reset`/`appendRow`). Nil for the line when it was taken back.
    static func lines(columns: [String], _ write: (inout CSVRowEncoder) -> Void) -> (line: String?, cells: String) {
        var row = CSVRowEncoder(columns: columns)
        let buffer = ByteBuffer(capacity: 16)
        buffer.append(UInt8(ascii: "x"))  // a line starts after what the buffer holds
        row.beginLine(in: buffer)
        write(&row)
        let wroteLine = row.endLine()
        let line = wroteLine ? String(buffer.text.dropFirst()) : nil
        #expect(wroteLine || buffer.text == "x", "a line taken back leaves the buffer as it was")
        row.reset()
        write(&row)
        let cells = ByteBuffer(capacity: 16)
        row.appendRow(to: cells)
        return (line, cells.text)
    }

    /// A row's line: cells of every length up to 80 (past the 32 bytes copied at once and the 64 of a
    /// cache line) with a comma, quote, CR, LF, space or `-` at any place (or none), ASCII or not, in the
    /// first, a middle and the last column, quoted exactly when RFC 4180 asks (a comma, quote, CR or
    /// LF; quotes doubled), beside an integer and the empty cells of a leaf without column, a null and
    /// a column never written, and an LF — the same written as a line or as cells; stale cells of the
    /// last row not repeated.
    @Test func rowLinesQuoteExactlyTheCellsThatNeedIt() {
        var row = CSVRowEncoder(columns: ["text", "number", "missing", "last"])
        func cellsLine(text: String) -> String {
            row.reset()
            row.object { row in
                row.key("text")
                row.string(text)
                row.key("number")
                row.integer(-1234)
                row.key("last")
                row.null()
            }
            let buffer = ByteBuffer(capacity: 16)
            row.appendRow(to: buffer)
            return buffer.text
        }
        for length in 0...80 {
            for special in [nil, ",", "\"", "\r", "\n", " ", "-"] as [Character?] {
                for place in 0..<max(length, 1) where special == nil ? place == 0 : place < length {
                    for letters in ["abcdefghijklmnopqrstuvwxyz", "äöüßé€"] {
                        let alphabet = Array(letters)
                        var text = String((0..<length).map { alphabet[$0 % alphabet.count] })
                        if let special, length > 0 {
                            text = String(text.prefix(place)) + String(special) + String(text.dropFirst(place + 1))
                        }
                        let needsQuotes = text.contains { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" }
                        let cell = needsQuotes ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
                        let context = "\(length) \(place) \(String(describing: special)) \(letters)"
                        #expect(cellsLine(text: text) == cell + ",-1234,,\n", "\(context)")
                        for position in 0..<3 {
                            let columns = ["first", "middle", "never", "last", "end"]
                            let lines = Self.lines(columns: columns) { row in
                                row.object { row in
                                    row.key("first")
                                    if position == 0 { row.string(text) } else { row.integer(-1234) }
                                    row.key("nothing")
                                    row.string("no column: dropped")
                                    row.key("middle")
                                    if position == 1 { row.string(text) } else { row.null() }
                                    row.key("last")
                                    if position == 2 { row.string(text) } else { row.integer(7) }
                                }
                            }
                            let expected = [position == 0 ? cell : "-1234", position == 1 ? cell : "", "", position == 2 ? cell : "7", ""]
                            #expect(lines.line == expected.joined(separator: ",") + "\n", "\(context) \(position)")
                            #expect(lines.cells == expected.joined(separator: ",") + "\n", "\(context) \(position)")
                        }
                    }
                }
            }
        }
    }

    /// Lines whose leaves skip any number of columns (past the 16 commas stored at once), first, last or
    /// none: the same as the cells' line (the number runs' skips: every capture's records, below).
    @Test func linesSkipAnyNumberOfColumns() {
        let columns = (0..<60).map { "c\($0)" }
        for first in [0, 1, 15, 16, 17, 40, 59] {
            for second in [first + 1, first + 16, first + 17, first + 18, 59] where second < 60 && second > first {
                let lines = Self.lines(columns: columns) { row in
                    row.object { row in
                        row.dynamicKey(columns[first])
                        row.integer(first)
                        row.dynamicKey(columns[second])
                        row.string("s\(second)")
                    }
                }
                var expected = [String](repeating: "", count: 60)
                expected[first] = "\(first)"
                expected[second] = "s\(second)"
                #expect(lines.line == expected.joined(separator: ",") + "\n", "\(first) \(second)")
                #expect(lines.cells == lines.line)
            }
        }
        let empty = Self.lines(columns: columns) { row in row.object { _ in } }
        #expect(empty.line == String(repeating: ",", count: 59) + "\n" && empty.cells == empty.line)
    }

    /// Leaves out of the columns' order, or a second leaf for a column, take the line back: the row is
    /// then written as cells, the first leaf of a column kept.
    @Test func leavesOutOfTheColumnsOrderTakeTheLineBack() {
        let backwards = Self.lines(columns: ["a", "b", "c"]) { row in
            row.object { row in
                row.key("c")
                row.integer(3)
                row.key("a")
                row.string("x,y")
            }
        }
        #expect(backwards.line == nil && backwards.cells == "\"x,y\",,3\n")
        let twice = Self.lines(columns: ["a", "b"]) { row in
            row.object { row in
                row.key("a")
                row.integer(1)
                row.key("a")
                row.integer(2)
            }
        }
        #expect(twice.line == nil && twice.cells == "1,\n")
        let inOrder = Self.lines(columns: ["a", "b", "c"]) { row in
            row.object { row in
                row.key("a")
                row.integer(1)
                row.key("c")
                row.integer(3)
            }
        }
        #expect(inOrder.line == "1,,3\n" && inOrder.cells == inOrder.line)
    }

    /// Strings given as bytes or as literals: their text, bytes that are not UTF-8 replaced as a `String`
    /// replaces them (what the cells were when these went through one).
    @Test func stringsFromBytesAndLiteralsAreTheirText() {
        var row = CSVRowEncoder(columns: ["ascii", "utf8", "invalid", "literal"])
        row.reset()
        row.object { row in
            for (name, bytes) in [("ascii", Array("example.com:8080".utf8)), ("utf8", Array("bücher.example".utf8)),
                                  ("invalid", [0x68, 0xFF, 0x6F, 0xC3])] as [(JSONKey, [UInt8])] {
                row.key(name)
                bytes.withUnsafeBytes { row.string(utf8: $0) }
            }
            row.field("literal", literal: "http")
        }
        let cells = (0..<row.columnCount).map { String(decoding: row.cell($0), as: UTF8.self) }
        #expect(cells == ["example.com:8080", "bücher.example", "h\u{FFFD}o\u{FFFD}", "http"])
        #expect(Array(row.cell(2)) == Array("h\u{FFFD}o\u{FFFD}".utf8))
    }

    /// The same records written as the CSV writer writes them: by `RecordEncoding` with its key
    /// literals (the resolver's remembered steps, not the names of `JSONValue`'s keys), into one row
    /// per view reused across every record of every capture, so records of every shape (HTTP/1.1,
    /// HTTP/2, HTTP/3, without response, TCP and QUIC connections) follow each other; written as a line,
    /// the same line as the cells give.
    @Test func reusedRowsOfRecordLiteralsEqualTheFlattenedRecords() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: TestPaths.captures.path).filter { $0.hasSuffix(".pcap") }
        let writer = RowComparingWriter()
        for name in names.sorted() {
            writer.capture = name
            _ = AnalysisRun(files: [TestPaths.capture(name)], options: .init()).run(writer: writer)
        }
        #expect(writer.rows > 500)
        #expect(writer.lines * 10 > writer.rows * 9, "most records come in the columns' order: \(writer.lines) of \(writer.rows)")
        #expect(writer.mismatches.isEmpty, "\(writer.mismatches.prefix(5))")
    }
}

/// Writes each exchange and connection record into a reused row of its view's columns and compares
/// the cells with the flattened record, and the record's line with the cells' line.
private final class RowComparingWriter: RecordWriter {
    var capture = ""
    private(set) var rows = 0
    /// Rows written as lines (the others were taken back and written as cells).
    private(set) var lines = 0
    private(set) var mismatches: [String] = []
    private let exchangeColumns = CSVWriter.columns(for: .exchanges), connectionColumns = CSVWriter.columns(for: .connections)
    private lazy var exchangeRow = CSVRowEncoder(columns: exchangeColumns)
    private lazy var connectionRow = CSVRowEncoder(columns: connectionColumns)

    func write(_ record: AnalysisRecord, timestampDigits: Int) {
        switch record {
        case .exchange: compare(record, timestampDigits: timestampDigits, row: &exchangeRow, columns: exchangeColumns)
        case .connection, .quicConnection:
            compare(record, timestampDigits: timestampDigits, row: &connectionRow, columns: connectionColumns)
        case .flow, .dns: return
        }
    }

    private func compare(_ record: AnalysisRecord, timestampDigits: Int, row: inout CSVRowEncoder, columns: [String]) {
        let line = ByteBuffer(capacity: 16)
        row.beginLine(in: line)
        RecordEncoding.record(record, timestampDigits: timestampDigits, to: &row)
        if row.endLine() { lines += 1 }
        row.reset()
        RecordEncoding.record(record, timestampDigits: timestampDigits, to: &row)
        let cells = (0..<row.columnCount).map { String(decoding: row.cell($0), as: UTF8.self) }
        let expected = CSVRowEncoderTests.flattenedCells(of: RecordEncoding.record(record, timestampDigits: timestampDigits), columns: columns)
        if cells != expected {
            mismatches.append("\(capture): \(zip(columns, zip(cells, expected)).filter { $1.0 != $1.1 }.prefix(3))")
        }
        let cellsLine = ByteBuffer(capacity: 16)
        row.appendRow(to: cellsLine)
        if line.count > 0, line.text != cellsLine.text {
            mismatches.append("\(capture): line \(line.text) against cells \(cellsLine.text)")
        }
        rows += 1
    }

    func finish(summary: CaptureSummary, files: [String]) {}
}

/// One record written straight into the cells of a CSV row, without a `JSONValue` in between: each
/// leaf's path (its keys joined with `_`, `up.ip_bytes` → `up_ip_bytes`, as `JSONValue.flattened`
/// names them) picks its column (`CSVColumnResolver`), and its text is stored once in a byte buffer.
/// Scalars are plain text (strings unquoted, null empty, the rest as in JSON); an array is one cell,
/// its elements' plain texts joined with `;`, objects and arrays inside it as compact JSON. Leaves
/// that are no column (a missing part's null, `type`) are dropped; when two leaves share a column,
/// the first is kept. A cell holding a comma, a quote, CR or LF is quoted.
///
/// A row is written one of two ways. As a *line* (`beginLine`, `endLine`): each cell straight into the
/// output after the commas of the columns before it, quoted in place where needed — one copy, as long
/// as the leaves come in the columns' order, which records write them in; a leaf out of that order
/// (or a second one for a column) makes `endLine` take the line back, and the record is written again
/// as *cells* (`reset`, `appendRow`): each cell's text kept apart, the line put together in column
/// order at the end.
struct CSVRowEncoder: JSONEncoding {
    /// Where leaves are written: the output's lines while writing a line, else `cellText`.
    private(set) var text: ByteBuffer
    /// The cells' text, one after the other (and that of dropped leaves).
    private let cellText: ByteBuffer
    /// Whether the row is being written as a line (else as cells).
    private var isLine = false
    /// Writing a line: how many columns have their cell and comma written, where the line starts, and
    /// whether a leaf came for a column already passed.
    private var passedColumns = 0
    private var lineStart = 0
    private var isOutOfOrder = false
    /// The column of the cell being written (-1: the leaf is no column, or not the first for it).
    private var cellColumn: Int32 = -1
    /// A cell to be quoted while it is moved into quotes (writing a line).
    private let unquotedCell = ByteBuffer(capacity: 256)
    private var columns: CSVColumnResolver
    /// Per column, its cell (of this row if stamped with `row`).
    private let cells: Cells
    /// The row being written: cells stamped with another are empty, so a new row clears none.
    private var row: UInt32 = 1
    /// The object being written (`CSVColumnResolver`'s node), and the key of the next member.
    private var node: Int32 = 0
    private var pendingKey = CSVColumnResolver.Key(bytes: UnsafeBufferPointer(start: nil, count: 0), isLiteral: false)
    private var hasKey = false
    /// A key computed at run time, while it is the pending one.
    private let dynamicKeyBytes = ByteBuffer(capacity: 64)
    /// Inside an array cell: how many elements were written into it.
    private var inArray = false
    private var arrayElements = 0
    /// Writing an object or array inside an array cell as JSON: how deep, and the encoder doing it.
    private var jsonDepth = 0
    private var json: JSONTextEncoder
    /// The timestamps' formatter, which keeps the text of the last one's second.
    private var timestamps = TimestampFormatter()
    /// The texts of IPv4 endpoints written lately (a connection's, again for each of its exchanges).
    private var endpoints = IPv4EndpointTexts()

    init(columns: [String]) {
        self.columns = CSVColumnResolver(columns: columns)
        let text = ByteBuffer(capacity: 4096)
        self.text = text
        cellText = text
        cells = Cells(count: columns.count)
        json = JSONTextEncoder(appendingTo: text)
    }

    /// Forgets the last row's cells and writes the next as cells.
    mutating func reset() {
        isLine = false
        text = cellText
        text.removeAll()
        row &+= 1
        if row == 0 {  // the stamps wrapped around: no stale cell may look current
            cells.buffer.update(repeating: .none)
            row = 1
        }
        node = 0
        hasKey = false
    }

    /// Starts writing the next row as a line at the end of `lines`.
    mutating func beginLine(in lines: ByteBuffer) {
        isLine = true
        text = lines
        lineStart = lines.count
        passedColumns = 0
        isOutOfOrder = false
        node = 0
        hasKey = false
    }

    /// Ends the line begun by `beginLine`: the empty cells of the columns after the last leaf, and an LF.
    /// False when a leaf came out of the columns' order: the line is taken back (the row is to be
    /// written as cells).
    mutating func endLine() -> Bool {
        guard !isOutOfOrder else {
            text.truncate(to: lineStart)
            return false
        }
        let commas = columnCount &- passedColumns
        storeCommas(commas)
        text.commit(commas)
        text.freeSpace(atLeast: 0)[-1] = UInt8(ascii: "\n")  // in place of the last comma
        return true
    }

    /// Stores `count` commas at the end of `text`, not committed.
    @inline(__always)
    private func storeCommas(_ count: Int) {
        Self.storeCommas(count, at: text.freeSpace(atLeast: count &+ 16))
    }

    /// Stores `count` commas at `destination` (room for `count + 16` there: 16 are stored whatever the
    /// count, most gaps between cells are that short).
    @inline(__always)
    private static func storeCommas(_ count: Int, at destination: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(destination).storeBytes(of: SIMD16<UInt8>(repeating: UInt8(ascii: ",")), as: SIMD16<UInt8>.self)
        if count > 16 { storeMoreCommas(count &- 16, at: destination + 16) }
    }

    @inline(never)
    private static func storeMoreCommas(_ count: Int, at destination: UnsafeMutablePointer<UInt8>) {
        destination.update(repeating: UInt8(ascii: ","), count: count)
    }

    /// A column's cell in the row it is stamped with: where its text starts and ends in `text`, and
    /// whether it must be quoted.
    struct Cell {
        var start: Int32
        var end: Int32
        var row: UInt32
        var quoted: Bool
        static let none = Cell(start: 0, end: 0, row: 0, quoted: false)
    }

    /// A row's cells, one per column, in memory of their own: a leaf's cell is stored without the
    /// copy-on-write check an array in the encoder would make for every leaf.
    private final class Cells {
        let buffer: UnsafeMutableBufferPointer<Cell>

        init(count: Int) {
            buffer = .allocate(capacity: count)
            buffer.initialize(repeating: .none)
        }

        deinit { buffer.deallocate() }
    }

    /// The text of `column`'s cell (empty without one), valid until the next write.
    func cell(_ column: Int) -> UnsafeRawBufferPointer {
        let cell = cells.buffer[column]
        guard cell.row == row else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(rebasing: text.bytes[Int(cell.start)..<Int(cell.end)])
    }

    var columnCount: Int { cells.buffer.count }

    /// Appends the row's line to `buffer`: the cells in column order, separated by commas, quoted where
    /// marked, and an LF. Mutating, so that it is called on the writer's row in place, not on a copy.
    mutating func appendRow(to buffer: ByteBuffer) {
        // Room for every cell quoted with every byte doubled, its comma or the LF, and the slack of the
        // last cell's copy.
        let start = buffer.freeSpace(atLeast: 2 &* text.count &+ 3 &* columnCount &+ 1 &+ PaddedText.slack)
        buffer.commit(storeRow(at: start) - start)
    }

    /// Stores the row's line at `destination` (room as `appendRow` makes); returns the address after it.
    private func storeRow(at destination: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        // Every cell is copied as `PaddedText` is, which reads `slack` bytes from its start.
        let text = UnsafePointer(self.text.freeSpace(atLeast: PaddedText.slack) - self.text.count)
        var destination = destination
        for cell in UnsafeBufferPointer(cells.buffer) {
            if cell.row == row {
                let start = text + Int(cell.start), count = Int(cell.end &- cell.start)
                if cell.quoted {
                    destination = Self.storeQuoted(UnsafeBufferPointer(start: start, count: count), at: destination)
                } else {
                    PaddedText.copy(start, count: count, to: destination)
                    destination += count
                }
            }
            destination.pointee = UInt8(ascii: ",")
            destination += 1
        }
        (destination - 1).pointee = UInt8(ascii: "\n")  // in place of the last comma
        return destination
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

    @inline(__always)  // ~47 calls a record
    mutating func key(_ key: JSONKey) {
        if jsonDepth > 0 { return jsonKey(key) }
        let name = key.name
        guard name.hasPointerRepresentation else {  // made from one Unicode scalar, held by value
            return name.withUTF8Buffer { setDynamicKey($0) }
        }
        pendingKey = CSVColumnResolver.Key(
            bytes: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount), isLiteral: true)
        hasKey = true
    }

    /// A key inside an array cell's JSON (out of line: `key` is inlined everywhere).
    @inline(never)
    private mutating func jsonKey(_ key: JSONKey) { json.key(key) }

    mutating func dynamicKey(_ name: String) {
        if jsonDepth > 0 { return json.dynamicKey(name) }
        var name = name
        name.withUTF8 { setDynamicKey($0) }
    }

    mutating func object(_ body: (inout CSVRowEncoder) -> Void) {
        if jsonDepth > 0 || inArray {
            openJSON(UInt8(ascii: "{"))
            body(&self)
            return closeJSON(UInt8(ascii: "}"))
        }
        let outer = enterObject()
        body(&self)
        node = outer
    }

    /// Makes the object written under the pending key the current node (the record's own object has no
    /// key: it is node 0); returns the node to go back to after it.
    @inline(__always)
    private mutating func enterObject() -> Int32 {
        let outer = node
        if hasKey { node = columns.node(of: pendingKey, in: node) }
        hasKey = false
        return outer
    }

    /// Inlined, and `body` with it: passed to a call, the closure of a record's flags was specialised
    /// into it with copies of the exchange and connection it reads.
    @inline(__always)
    mutating func array(_ body: (inout CSVRowEncoder) -> Void) {
        if jsonDepth > 0 || inArray {
            openJSON(UInt8(ascii: "["))
            body(&self)
            return closeJSON(UInt8(ascii: "]"))
        }
        let start = beginArrayCell()
        body(&self)
        endArrayCell(startingAt: start)
    }

    /// Starts an array's cell, its elements joined by `;`; returns where its text starts.
    @inline(never)
    private mutating func beginArrayCell() -> Int {
        let start = startCell()
        inArray = true
        arrayElements = 0
        return start
    }

    /// Ends the array cell begun at `start`.
    @inline(never)
    private mutating func endArrayCell(startingAt start: Int) {
        inArray = false
        endCell(startingAt: start, mayNeedQuotes: true)
    }

    mutating func string(_ value: String) {
        if jsonDepth > 0 { return json.string(value) }
        if let small = SmallASCIIString(value) { return storeString(small) }
        JSONTextEncoder.withUTF8(of: value) { storeString($0) }
    }

    /// A small ASCII string leaf's plain text: its two words stored, the cell scanned for bytes to quote
    /// only when its words hold one (`CSVQuoting.quoteBits`).
    @inline(__always)
    private mutating func storeString(_ small: SmallASCIIString) {
        let start = startLeaf()
        small.store(to: text.freeSpace(atLeast: 16))
        text.commit(small.count)
        let words = small.words(fillingWith: UInt8(ascii: "-"))
        endLeaf(startingAt: start, mayNeedQuotes: CSVQuoting.quoteBits(words.low) | CSVQuoting.quoteBits(words.high) != 0)
    }

    /// An IPv4 endpoint's text stored as it is made (`1.2.3.4:80`: nothing to quote), without a `String`.
    mutating func endpoint(_ address: IPAddress, port: UInt16) {
        guard jsonDepth == 0, !address.isIPv6 else { return string(address.endpoint(port: port)) }
        let start = startLeaf()
        let destination = text.freeSpace(atLeast: IPv4EndpointTexts.maximumCount)
        text.commit(endpoints.write(address, port: port, to: destination))
        endLeaf(startingAt: start, mayNeedQuotes: false)
    }

    mutating func string(utf8: UnsafeRawBufferPointer) {
        if jsonDepth > 0 { return json.string(utf8: utf8) }
        // Other bytes than ASCII go through a `String`, which replaces what is not UTF-8 (as `JSONValue` does).
        guard utf8.isASCII else { return string(String(decoding: utf8, as: UTF8.self)) }
        storeString(utf8.assumingMemoryBound(to: UInt8.self))
    }

    mutating func field(_ name: JSONKey, literal value: StaticString) {
        if jsonDepth > 0 { return json.field(name, literal: value) }
        key(name)
        value.withUTF8Buffer { storeString($0) }
    }

    /// A string leaf's plain text: its bytes.
    private mutating func storeString(_ utf8: UnsafeBufferPointer<UInt8>) {
        let start = startLeaf()
        text.freeSpace(atLeast: utf8.count).storeBytes(of: utf8)
        text.commit(utf8.count)
        endLeaf(startingAt: start, mayNeedQuotes: true)
    }

    mutating func integer(_ value: Int) {
        if jsonDepth > 0 { return json.integer(value) }
        plain(maximumCount: DecimalDigits.maximumIntegerCount) { DecimalDigits.write(value, to: $0) }
    }

    /// A run's members straight into their cells (as `object` and `integer` would), into the columns the
    /// resolver found for the run's leaves.
    mutating func integerMembers<let count: Int>(_ members: NumberMembers<count>, _ values: InlineArray<count, Int>) {
        guard jsonDepth == 0, !inArray else { return integerMembersOneByOne(members, values) }
        storeRun(members, values, as: IntegerText.self)
    }

    /// A run of durations straight into their cells (as `object` and `milliseconds` would; -1 for nil).
    mutating func durationMembers<let count: Int>(_ members: NumberMembers<count>, nanoseconds: InlineArray<count, Int64?>) {
        guard jsonDepth == 0, !inArray else { return durationMembersOneByOne(members, nanoseconds: nanoseconds) }
        storeRun(members, nanoseconds, as: DurationText.self)
    }

    /// Members all null: their columns found at once, as a run's, each an empty cell (as `key` and `null`
    /// would make it; most such members are objects, no column).
    @inline(__always)
    mutating func nullMembers(_ members: NullMembers) {
        guard jsonDepth == 0, !inArray else { return nullMembersOneByOne(members) }
        guard node != CSVColumnResolver.dead else { return }  // none is a column
        let runColumns = columns.columns(ofRun: members, in: node)
        if runColumns.hasColumns { storeEmptyCells(runColumns, count: members.keys.count) }
    }

    /// The empty cells of the `count` leaves of a run whose columns are `runColumns`: writing a line,
    /// the commas up to and after each.
    @inline(never)
    private mutating func storeEmptyCells(_ runColumns: CSVColumnResolver.RunColumns, count: Int) {
        if isLine {
            // Room for the commas of every column once (columns are passed in order) and the 16 bytes
            // their store may write past them.
            let textStart = text.freeSpace(atLeast: columnCount &+ 16) - text.count
            var end = text.count, passed = passedColumns, cameOutOfOrder = false
            columns.withRunColumns(from: runColumns.index, count: count) { runColumns in
                for column in runColumns where column >= 0 {
                    let skipped = Int(column) &- passed
                    guard skipped >= 0 else {
                        cameOutOfOrder = true
                        continue
                    }
                    Self.storeCommas(skipped &+ 1, at: textStart + end)  // the empty cell's comma too
                    end &+= skipped &+ 1
                    passed = Int(column) &+ 1
                }
            }
            text.commit(end &- text.count)
            passedColumns = passed
            if cameOutOfOrder { isOutOfOrder = true }
        } else {
            let cells = self.cells.buffer, row = self.row, at = Int32(truncatingIfNeeded: text.count)
            columns.withRunColumns(from: runColumns.index, count: count) { runColumns in
                for column in runColumns where column >= 0 && cells[Int(column)].row != row {
                    cells[Int(column)] = Cell(start: at, end: at, row: row, quoted: false)
                }
            }
        }
    }

    /// The cells of `members` with `values`, as `Text` writes them, into the columns the resolver found
    /// for the run's leaves; no quotes. Writing a line, each value after the commas of the columns
    /// skipped before it, and its comma; when the leaves' columns follow each other (most runs), without
    /// looking at each leaf's column.
    @inline(__always)
    private mutating func storeRun<let count: Int, Text: RunValueText>(
        _ members: NumberMembers<count>, _ values: InlineArray<count, Text.Value>, as _: Text.Type
    ) {
        if let memberName = members.memberName { key(JSONKey(memberName)) }
        let outer = members.isObject ? enterObject() : node
        defer { node = outer }
        guard node != CSVColumnResolver.dead else { return }  // none is a column
        let runColumns = columns.columns(ofRun: members, in: node)
        // Room for the whole run once, the values stored one after the other from `end`: every value
        // and, writing a line, its comma, the commas of the columns skipped (fewer than the columns)
        // and the 16 bytes their store may write past them.
        let textStart = text.freeSpace(atLeast: count &* (Text.maximumCount &+ 1) &+ columnCount &+ 16) - text.count
        var end = text.count
        if isLine, runColumns.consecutiveFrom >= passedColumns {  // the common case: one skip, then every value
            let firstColumn = Int(runColumns.consecutiveFrom), skipped = firstColumn &- passedColumns
            Self.storeCommas(skipped, at: textStart + end)
            end &+= skipped
            for index in 0..<count {
                end &+= Self.storeCellOfLine(values[index], as: Text.self, at: textStart + end)
            }
            passedColumns = firstColumn &+ count
        } else if isLine {
            var passed = passedColumns, cameOutOfOrder = false
            columns.withRunColumns(from: runColumns.index, count: count) { runColumns in
                for index in 0..<count {
                    let column = Int(runColumns[index])
                    guard column >= 0 else { continue }
                    let skipped = column &- passed
                    guard skipped >= 0 else {
                        cameOutOfOrder = true
                        continue
                    }
                    Self.storeCommas(skipped, at: textStart + end)
                    end &+= skipped
                    end &+= Self.storeCellOfLine(values[index], as: Text.self, at: textStart + end)
                    passed = column &+ 1
                }
            }
            passedColumns = passed
            if cameOutOfOrder { isOutOfOrder = true }
        } else {
            let cells = self.cells.buffer, row = self.row
            columns.withRunColumns(from: runColumns.index, count: count) { runColumns in
                for index in 0..<count {
                    let column = Int(runColumns[index])
                    guard column >= 0, cells[column].row != row else { continue }
                    let start = end
                    end &+= Text.write(values[index], to: textStart + start)
                    cells[column] = Cell(start: Int32(truncatingIfNeeded: start), end: Int32(truncatingIfNeeded: end), row: row, quoted: false)
                }
            }
        }
        text.commit(end &- text.count)
    }

    /// Stores a run value's text and its comma at `destination` (writing a line); returns their length.
    @inline(__always)
    private static func storeCellOfLine<Text: RunValueText>(
        _ value: Text.Value, as _: Text.Type, at destination: UnsafeMutablePointer<UInt8>
    ) -> Int {
        let length = Text.write(value, to: destination)
        destination[length] = UInt8(ascii: ",")
        return length &+ 1
    }

    mutating func number(_ literal: String) {
        if jsonDepth > 0 { return json.number(literal) }
        let start = startLeaf()
        var encoder = JSONTextEncoder(appendingTo: text)
        encoder.number(literal)
        endLeaf(startingAt: start, mayNeedQuotes: true)
    }

    mutating func timestamp(_ timestamp: Timestamp, digits: Int) {
        if jsonDepth > 0 { return json.timestamp(timestamp, digits: digits) }
        let start = startLeaf()
        text.commit(timestamps.write(timestamp, digits: digits, to: text.freeSpace(atLeast: Timestamp.maximumFormattedCount)))
        endLeaf(startingAt: start, mayNeedQuotes: false)
    }

    mutating func milliseconds(_ nanoseconds: Int64) {
        if jsonDepth > 0 { return json.milliseconds(nanoseconds) }
        plain(maximumCount: DecimalDigits.maximumMillisecondsCount) { DecimalDigits.writeMilliseconds(nanoseconds, to: $0) }
    }

    mutating func bool(_ value: Bool) {
        if jsonDepth > 0 { return json.bool(value) }
        let literal: StaticString = value ? "true" : "false"
        plain(maximumCount: 5) { destination in
            destination.storeBytes(of: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
            return literal.utf8CodeUnitCount
        }
    }

    mutating func null() {
        if jsonDepth > 0 { return json.null() }
        endLeaf(startingAt: startLeaf(), mayNeedQuotes: false)
    }

    /// A scalar whose plain text is its JSON text, which `write` stores at the address it is given in at
    /// most `maximumCount` bytes, returning how many; it holds nothing to quote (digits, a sign, a
    /// point, letters).
    @inline(__always)
    private mutating func plain(maximumCount: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        let start = startLeaf()
        text.commit(write(text.freeSpace(atLeast: maximumCount)))
        endLeaf(startingAt: start, mayNeedQuotes: false)
    }

    /// Makes `name` (not a literal) the pending key: its bytes are kept until the next dynamic key.
    private mutating func setDynamicKey(_ name: UnsafeBufferPointer<UInt8>) {
        dynamicKeyBytes.removeAll()
        dynamicKeyBytes.freeSpace(atLeast: name.count).storeBytes(of: name)
        dynamicKeyBytes.commit(name.count)
        pendingKey = CSVColumnResolver.Key(bytes: dynamicKeyBytes.bytes.bindMemory(to: UInt8.self), isLiteral: false)
        hasKey = true
    }

    /// Where a leaf's text starts: a cell's (`startCell`), or in an array cell, after the `;` that
    /// separates it from the last.
    @inline(__always)
    private mutating func startLeaf() -> Int {
        guard inArray else { return startCell() }
        if arrayElements > 0 { text.append(UInt8(ascii: ";")) }
        arrayElements += 1
        return text.count
    }

    /// Ends a leaf begun by `startLeaf` (an array's elements: only when the whole array is written, by
    /// `endCell`); `mayNeedQuotes`: whether to look for bytes to quote.
    @inline(__always)
    private mutating func endLeaf(startingAt start: Int, mayNeedQuotes: Bool) {
        guard !inArray else { return }
        endCell(startingAt: start, mayNeedQuotes: mayNeedQuotes)
    }

    /// Where a cell's text starts: the pending key's column is its column (`cellColumn`, -1 when it is
    /// none or, as cells, already has its cell); writing a line, after the commas of the columns
    /// skipped since the last cell (a column already passed: the line is out of order).
    @inline(__always)
    private mutating func startCell() -> Int {
        cellColumn = -1
        guard hasKey else { return text.count }
        hasKey = false
        let column = columns.column(of: pendingKey, in: node)
        guard column >= 0 else { return text.count }
        if isLine {
            let skipped = Int(column) &- passedColumns
            guard skipped >= 0 else {
                isOutOfOrder = true
                return text.count
            }
            storeCommas(skipped)
            text.commit(skipped)
        } else if cells.buffer[Int(column)].row == row {
            return text.count
        }
        cellColumn = column
        return text.count
    }

    /// Makes the text written since `start` the cell of its column (`startCell`), or drops it without
    /// one; writing a line, quoted in place when `mayNeedQuotes` and it holds bytes to quote, and
    /// followed by its comma.
    @inline(__always)
    private mutating func endCell(startingAt start: Int, mayNeedQuotes: Bool) {
        let column = Int(cellColumn)
        guard column >= 0 else { return text.truncate(to: start) }
        let needsQuotes = mayNeedQuotes && CSVQuoting.needsQuotes(UnsafeRawBufferPointer(rebasing: text.bytes[start...]))
        guard isLine else {
            cells.buffer[column] = Cell(
                start: Int32(truncatingIfNeeded: start), end: Int32(truncatingIfNeeded: text.count), row: row, quoted: needsQuotes)
            return
        }
        if needsQuotes { quoteCell(from: start) }
        text.append(UInt8(ascii: ","))
        passedColumns = column &+ 1
    }

    /// Puts the line's last cell, from `start` to the end, in quotes (`storeQuoted`).
    @inline(never)
    private func quoteCell(from start: Int) {
        let count = text.count &- start
        unquotedCell.removeAll()
        unquotedCell.freeSpace(atLeast: count).storeBytes(of: UnsafeRawBufferPointer(rebasing: text.bytes[start...]).assumingMemoryBound(to: UInt8.self))
        unquotedCell.commit(count)
        text.truncate(to: start)
        let destination = text.freeSpace(atLeast: 2 &* count &+ 2)
        text.commit(Self.storeQuoted(unquotedCell.bytes.assumingMemoryBound(to: UInt8.self), at: destination) - destination)
    }

    /// Opens an object or array (`opening`) inside an array cell, written as JSON by `json` until its
    /// `closeJSON` (the body is called by the encoder itself: a closure handed on to `json` made the
    /// records' closures copy the exchange and connection they read).
    @inline(never)
    private mutating func openJSON(_ opening: UInt8) {
        if jsonDepth == 0 {
            _ = startLeaf()
            json = JSONTextEncoder(appendingTo: text)
        }
        jsonDepth += 1
        json.open(opening)
    }

    /// Closes the object or array `openJSON` opened.
    @inline(never)
    private mutating func closeJSON(_ closing: UInt8) {
        json.close(closing)
        jsonDepth -= 1
    }
}

/// How the values of a number run are written into their cells (a type, not a closure: its `write` is
/// inlined at every call).
private protocol RunValueText {
    associatedtype Value
    /// The most bytes a value's text takes.
    static var maximumCount: Int { get }
    /// Stores `value`'s text at `destination`; returns its length.
    static func write(_ value: Value, to destination: UnsafeMutablePointer<UInt8>) -> Int
}

/// Integers in decimal.
private enum IntegerText: RunValueText {
    static var maximumCount: Int { DecimalDigits.maximumIntegerCount }

    @inline(__always)
    static func write(_ value: Int, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        DecimalDigits.write(value, to: destination)
    }
}

/// Durations in milliseconds, -1 for none.
private enum DurationText: RunValueText {
    static var maximumCount: Int { DecimalDigits.maximumMillisecondsCount }

    @inline(__always)
    static func write(_ nanoseconds: Int64?, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        DecimalDigits.writeDuration(nanoseconds, to: destination)
    }
}

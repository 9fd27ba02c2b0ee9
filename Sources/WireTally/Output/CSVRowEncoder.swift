#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One record written straight into the cells of a CSV row, without a `JSONValue` in between: each
/// leaf's path (its keys joined with `_`, `up.ip_bytes` → `up_ip_bytes`, as `JSONValue.flattened`
/// names them) picks its column, and its text is stored once in a byte buffer. Scalars are plain text
/// (strings unquoted, null empty, the rest as in JSON); an array is one cell, its elements' plain
/// texts joined with `;`, objects and arrays inside it as compact JSON. Leaves that are no column (a
/// missing part's null, `type`) are dropped; when two leaves share a column, the first is kept.
struct CSVRowEncoder: JSONEncoding {
    /// The cells' text, one after the other (and that of dropped leaves).
    let text: ByteBuffer
    /// The column names, one after the other, and where each starts (one more entry: the end).
    private let names: [UInt8]
    private let nameStarts: [Int]
    /// The columns by the length of their name: a path that is not the next column is compared only
    /// with the names of its length (a missing part's null is no column at all).
    private let columnsByLength: [[Int]]
    /// Per column, where its cell starts and ends in `text` (start below 0: no cell in this row).
    private var cellStarts: [Int]
    private var cellEnds: [Int]
    /// The path of the current leaf, and how much of it is the path of the object being written.
    private let path = ByteBuffer(capacity: 256)
    private var objectPathCount = 0
    /// The column after the last one written: records list their leaves in the columns' order.
    private var nextColumn = 0
    /// Inside an array cell: how many elements were written into it.
    private var inArray = false
    private var arrayElements = 0
    /// Writing an object or array inside an array cell as JSON: how deep, and the encoder doing it.
    private var jsonDepth = 0
    private var json: JSONTextEncoder

    init(columns: [String]) {
        var names: [UInt8] = [], starts: [Int] = []
        for column in columns {
            starts.append(names.count)
            names.append(contentsOf: column.utf8)
        }
        starts.append(names.count)
        var byLength = [[Int]](repeating: [], count: (columns.map(\.utf8.count).max() ?? 0) + 1)
        for (column, name) in columns.enumerated() { byLength[name.utf8.count].append(column) }
        columnsByLength = byLength
        let text = ByteBuffer(capacity: 4096)
        self.text = text
        self.names = names
        nameStarts = starts
        cellStarts = Array(repeating: -1, count: columns.count)
        cellEnds = Array(repeating: 0, count: columns.count)
        json = JSONTextEncoder(appendingTo: text)
    }

    /// Forgets the last row's cells.
    mutating func reset() {
        text.removeAll()
        for column in cellStarts.indices { cellStarts[column] = -1 }
        path.removeAll()
        objectPathCount = 0
        nextColumn = 0
    }

    /// The text of `column`'s cell (empty without one), valid until the next write.
    func cell(_ column: Int) -> UnsafeRawBufferPointer {
        let start = cellStarts[column]
        guard start >= 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(rebasing: text.bytes[start..<cellEnds[column]])
    }

    var columnCount: Int { cellStarts.count }

    /// Calls `body` with every column's cell text in column order (empty without a cell), valid until
    /// the next write.
    func forEachCell(_ body: (UnsafeRawBufferPointer) -> Void) {
        let text = text.bytes
        cellStarts.withUnsafeBufferPointer { starts in
            cellEnds.withUnsafeBufferPointer { ends in
                for column in 0..<starts.count {
                    let start = starts[column]
                    body(start < 0 ? UnsafeRawBufferPointer(start: nil, count: 0)
                        : UnsafeRawBufferPointer(rebasing: text[start..<ends[column]]))
                }
            }
        }
    }

    mutating func key(_ name: StaticString) {
        if jsonDepth > 0 { return json.key(name) }
        appendKey(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    }

    mutating func dynamicKey(_ name: String) {
        if jsonDepth > 0 { return json.dynamicKey(name) }
        var name = name
        name.withUTF8 { appendKey($0) }
    }

    mutating func object(_ body: (inout CSVRowEncoder) -> Void) {
        if jsonDepth > 0 || inArray {
            return writeJSON { json, encoder in json.object { inner in encoder.nested(in: &inner, body) } }
        }
        let outer = objectPathCount
        objectPathCount = path.count
        body(&self)
        objectPathCount = outer
    }

    mutating func array(_ body: (inout CSVRowEncoder) -> Void) {
        if jsonDepth > 0 || inArray {
            return writeJSON { json, encoder in json.array { inner in encoder.nested(in: &inner, body) } }
        }
        let start = text.count
        inArray = true
        arrayElements = 0
        body(&self)
        inArray = false
        endLeaf(startingAt: start)
    }

    mutating func string(_ value: String) {
        if jsonDepth > 0 { return json.string(value) }
        let start = startLeaf()
        var value = value
        value.withUTF8 { utf8 in text.freeSpace(atLeast: utf8.count).storeBytes(of: utf8); text.commit(utf8.count) }
        endLeaf(startingAt: start)
    }

    mutating func integer(_ value: Int) { plain { $0.integer(value) } }

    mutating func number(_ literal: String) { plain { $0.number(literal) } }

    mutating func timestamp(_ timestamp: Timestamp, digits: Int) { plain { $0.timestamp(timestamp, digits: digits) } }

    mutating func milliseconds(_ nanoseconds: Int64) { plain { $0.milliseconds(nanoseconds) } }

    mutating func bool(_ value: Bool) { plain { $0.bool(value) } }

    mutating func null() {
        if jsonDepth > 0 { return json.null() }
        endLeaf(startingAt: startLeaf())
    }

    /// A scalar whose plain text is its JSON text, which `write` stores (a new encoder: no comma).
    @inline(__always)
    private mutating func plain(_ write: (inout JSONTextEncoder) -> Void) {
        if jsonDepth > 0 { return write(&json) }
        let start = startLeaf()
        var encoder = JSONTextEncoder(appendingTo: text)
        write(&encoder)
        endLeaf(startingAt: start)
    }

    /// The path of the object being written, then `_` when it is not the record itself, then `name`.
    private mutating func appendKey(_ name: UnsafeBufferPointer<UInt8>) {
        path.truncate(to: objectPathCount)
        if objectPathCount > 0 { path.append(UInt8(ascii: "_")) }
        path.freeSpace(atLeast: name.count).storeBytes(of: name)
        path.commit(name.count)
    }

    /// Where a leaf's text starts; in an array cell, after the `;` that separates it from the last.
    private mutating func startLeaf() -> Int {
        if inArray {
            if arrayElements > 0 { text.append(UInt8(ascii: ";")) }
            arrayElements += 1
        }
        return text.count
    }

    /// Makes the text written since `start` the cell of the current path (an array's elements: only
    /// when the whole array is written).
    private mutating func endLeaf(startingAt start: Int) {
        guard !inArray, let column = column(of: path.bytes), cellStarts[column] < 0 else { return }
        cellStarts[column] = start
        cellEnds[column] = text.count
    }

    /// An object or array inside an array cell, as JSON: `write` runs the encoder on it.
    private mutating func writeJSON(_ write: (inout JSONTextEncoder, inout CSVRowEncoder) -> Void) {
        if jsonDepth == 0 {
            _ = startLeaf()
            json = JSONTextEncoder(appendingTo: text)
        }
        jsonDepth += 1
        var encoder = json
        write(&encoder, &self)
        json = encoder
        jsonDepth -= 1
    }

    /// Runs `body` with `inner` (the JSON encoder inside a container) as the encoder's JSON encoder.
    private mutating func nested(in inner: inout JSONTextEncoder, _ body: (inout CSVRowEncoder) -> Void) {
        json = inner
        body(&self)
        inner = json
    }

    /// The column named `path`: the next one in the common case, else found among the names of its
    /// length.
    private mutating func column(of path: UnsafeRawBufferPointer) -> Int? {
        if nextColumn < columnCount, name(nextColumn, equals: path) {
            nextColumn += 1
            return nextColumn - 1
        }
        guard path.count < columnsByLength.count else { return nil }
        for column in columnsByLength[path.count] where name(column, equals: path) {
            nextColumn = column + 1
            return column
        }
        return nil
    }

    private func name(_ column: Int, equals path: UnsafeRawBufferPointer) -> Bool {
        let start = nameStarts[column], count = nameStarts[column + 1] - start
        guard count == path.count else { return false }
        return names.withUnsafeBytes { names in
            count == 0 || memcmp(names.baseAddress! + start, path.baseAddress!, count) == 0
        }
    }
}

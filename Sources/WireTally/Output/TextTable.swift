/// The one layout rule of every terminal table (`analyze`'s exchange and connection tables, the
/// endpoint summary, `compare`): fixed columns separated by a space, each at least as wide as its
/// title, so a title is never cut. A text cell (URL, host, path, flags) longer than its column is cut
/// with `…`. A number cell is never cut: one that does not fit its column is written with a unit —
/// thousands `k`, millions `M`, then `G`, `T`, `P`, one decimal when it fits (`18557.3%` in 7
/// columns: `18.6 k%`) — and one that does not fit even so widens its row. The exact values are in
/// the JSONL/CSV output.
struct TextTable {
    struct Column {
        var title: String
        /// 0: as wide as its cells (the last column).
        var width: Int
        var leftAligned: Bool
        /// A number: abbreviated with a unit, never cut.
        var isNumber: Bool

        init(_ title: String, width: Int, leftAligned: Bool = false, isNumber: Bool = true) {
            self.title = title
            self.width = width == 0 ? 0 : max(width, title.count)
            self.leftAligned = leftAligned
            self.isNumber = isNumber
        }

        /// A left-aligned text column.
        static func text(_ title: String, width: Int) -> Column { Column(title, width: width, leftAligned: true, isNumber: false) }
    }

    let columns: [Column]

    /// The title row.
    var header: String { row(columns.map(\.title)) }

    /// One row (without a newline), trailing spaces removed.
    func row(_ cells: [String]) -> String {
        var line: [UInt8] = []
        line.reserveCapacity(Self.typicalRowBytes)
        appendRow(cells, to: &line)
        return String(decoding: line, as: UTF8.self)
    }

    /// Appends one row's UTF-8 (without a newline), trailing spaces removed, to `line`.
    func appendRow(_ cells: [String], to line: inout [UInt8]) {
        let rowStart = line.count
        for (cell, column) in zip(cells, columns) {
            var text = cell
            let isPlainASCII = Self.isPlainASCII(text)
            var count = isPlainASCII ? text.utf8.count : text.count
            if column.width > 0 && count > column.width {
                if column.isNumber {
                    text = Self.abbreviated(text, width: column.width)
                } else if isPlainASCII {
                    text = String(decoding: text.utf8.prefix(column.width - 1), as: UTF8.self) + "…"
                } else {
                    text = String(text.prefix(column.width - 1)) + "…"
                }
                count = text.count
            }
            let padding = max(0, column.width - count)
            if !column.leftAligned { Self.appendSpaces(padding, to: &line) }
            line.append(contentsOf: text.utf8)
            Self.appendSpaces((column.leftAligned ? padding : 0) + 1, to: &line)
        }
        while line.count > rowStart && line.last == UInt8(ascii: " ") { line.removeLast() }
    }

    /// Spaces copied as a slice of prepared ones (appending a repeated element went byte by byte).
    private static let spaces = [UInt8](repeating: UInt8(ascii: " "), count: 64)

    private static func appendSpaces(_ count: Int, to line: inout [UInt8]) {
        var remaining = count
        while remaining > 0 {
            let piece = min(remaining, spaces.count)
            line.append(contentsOf: spaces[..<piece])
            remaining -= piece
        }
    }

    /// Whether every byte of `text` is ASCII other than CR: each byte is then one character (CR LF is
    /// one), so a cell is measured and cut byte-wise (cells are mostly that: URLs, numbers).
    static func isPlainASCII(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.allSatisfy { $0 < 0x80 && $0 != UInt8(ascii: "\r") }
        } ?? false
    }

    /// Room reserved for a row's bytes: wider than most terminals.
    private static let typicalRowBytes = 256

    /// `number` (digits with an optional sign, decimals and a suffix such as `%` or `s`) in at most
    /// `width` characters with a unit: `18.6 k%`, `-4 M`; unchanged when it is not a number or no
    /// unit makes it fit.
    static func abbreviated(_ number: String, width: Int) -> String {
        let numeric = number.prefix { $0.isNumber || $0 == "-" || $0 == "." }
        guard let value = Double(numeric) else { return number }
        let suffix = number.dropFirst(numeric.count)
        var scaled = value
        for unit in ["k", "M", "G", "T", "P"] {
            scaled /= 1000
            for decimals in [1, 0] {
                let text = RunawayDetector.format(scaled, digits: decimals) + " " + unit + suffix
                if text.count <= width { return text }
            }
        }
        return number
    }
}

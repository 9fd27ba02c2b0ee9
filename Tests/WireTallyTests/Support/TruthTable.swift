import Foundation

/// A tab-separated truth file with a header row, as `scripts/record-captures` writes them with
/// `tshark -T fields -E header=y` (`NAME.http.tsv`, `NAME.tls-records.tsv`, `NAME.tls-decrypted.tsv` …).
/// Values are strings; empty means tshark had no such field in that frame.
struct TruthTable {
    /// One row, read by column name.
    struct Row {
        fileprivate var values: [String: String]
        /// The value of a column (empty when absent).
        subscript(_ column: String) -> String { values[column] ?? "" }
        /// The value as an integer, or nil when empty or not a number.
        func int(_ column: String) -> Int? { Int(self[column]) }
        /// A comma-joined multi-value column (`-E aggregator=,`), without empty parts.
        func list(_ column: String) -> [String] { self[column].split(separator: ",").map(String.init) }
    }

    var columns: [String]
    var rows: [Row]

    /// Reads `captures/NAME.KIND` (e.g. `load("tls13-http1", "tls-records.tsv")`).
    static func load(_ name: String, _ kind: String) throws -> TruthTable {
        try read(TestPaths.capture("\(name).\(kind)"))
    }

    /// Reads a truth table at a path; a missing column in a row reads as empty, `#` lines are comments.
    static func read(_ path: String) throws -> TruthTable {
        let lines = try String(contentsOfFile: path, encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: true)
            .filter { !$0.hasPrefix("#") }  // comment lines (the public captures' oracles have some)
            .map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        guard let header = lines.first else { return TruthTable(columns: [], rows: []) }
        let rows = lines.dropFirst().map { fields in
            Row(values: Dictionary(zip(header, fields), uniquingKeysWith: { first, _ in first }))
        }
        return TruthTable(columns: header, rows: Array(rows))
    }
}

/// Reads a JSON-lines log (`NAME.pyhttp11.jsonl`, `NAME.client.jsonl` …) into one dictionary per line.
enum JSONLines {
    static func load(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw NotAnObject(line: String(line))
            }
            return object
        }
    }

    struct NotAnObject: Error { var line: String }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds the CSV column of each leaf a record writes from the key it is written under and the object
/// it is in, without joining the path for every leaf.
///
/// A column is named by its leaf's path, the keys joined with `_` (`up.ip_bytes` → `up_ip_bytes`).
/// Objects are *nodes*, numbered by their path (0: the record itself); an object no column lies under
/// is `dead`, and so is everything in it. What a key literal (a `StaticString`, known by its address)
/// leads to in a node — a column or none for a leaf, a node for an object — is worked out once by
/// comparing names, then kept as a *step*. Steps are kept in the order records write them, so the
/// next leaf is almost always the step after the last one: one comparison of the node and the key's
/// address. A record of another shape (a missing part) moves the cursor to where it goes on. Keys
/// computed at run time (QUIC's packet spaces) are resolved by name each time. Steps and nodes are
/// bounded by the template's columns and the records' key literals.
struct CSVColumnResolver {
    /// The object no column lies under: its leaves are no columns, its objects dead too.
    static let dead: Int32 = -1

    /// A key being resolved: its bytes, and whether they are a literal's (valid for the program's life,
    /// so their address names them).
    struct Key {
        var bytes: UnsafeBufferPointer<UInt8>
        var isLiteral: Bool
    }

    /// What a literal key leads to in a node: a column (a leaf; -1: none) or a node (an object).
    private struct Step {
        let node: Int32
        let isObject: Bool
        let target: Int32
        let key: UnsafeBufferPointer<UInt8>

        /// Whether this is the step of `key` (the same literal: address and length) in `node`.
        @inline(__always)
        func matches(_ key: Key, in node: Int32, isObject: Bool) -> Bool {
            self.key.baseAddress == key.bytes.baseAddress && self.key.count == key.bytes.count && self.node == node
                && self.isObject == isObject
        }
    }

    /// The column names, one after the other, and where each starts (one more entry: the end).
    private let names: [UInt8]
    private let nameStarts: [Int]
    /// The columns by the length of their name.
    private let columnsByLength: [[Int]]
    /// The nodes' paths, one after the other, and where each starts (one more entry: the end).
    private var nodePaths: [UInt8] = []
    private var nodeStarts: [Int] = [0, 0]
    private var steps: [Step] = []
    /// The step expected next.
    private var cursor = 0
    /// The column after the last one found by name: records list their leaves in the columns' order.
    private var nextColumn = 0
    /// A path being resolved by name.
    private let path = ByteBuffer(capacity: 256)
    /// Where each run of leaves (`NumberMembers`) seen in a node lands, in the order records write them
    /// (like the steps: the next run is almost always the one after the last); forgotten when a step is
    /// added (the steps after it move).
    private var runPlacements: [RunPlacement] = []
    /// The run placement expected next.
    private var runCursor = 0
    /// The columns of the placed runs' leaves (-1: none), each run's one after the other.
    private var runColumns: [Int32] = []
    /// A run's leaf columns while they are looked up.
    private var newRunColumns: [Int32] = []

    /// Where a run lands in a node: its leaves' columns, and the step cursor after its leaves.
    private struct RunPlacement {
        let run: UnsafeRawPointer
        let node: Int32
        let columns: RunColumns
        let cursorAfter: Int
    }

    /// The columns of a run's leaves: from `index` in the resolver's run columns (-1: none), one per
    /// leaf in order (`withRunColumns`); when each leaf has a column and they follow each other, the
    /// first leaf's (else -1).
    struct RunColumns {
        let index: Int
        let consecutiveFrom: Int32
        /// Whether any leaf has a column.
        let hasColumns: Bool
    }

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
        self.names = names
        nameStarts = starts
    }

    /// The column of the leaf written under `key` in `node`, or -1.
    @inline(__always)
    mutating func column(of key: Key, in node: Int32) -> Int32 {
        lookUp(key, in: node, isObject: false)
    }

    /// The node of the object written under `key` in `node` (`dead` when no column lies under it).
    @inline(__always)
    mutating func node(of key: Key, in node: Int32) -> Int32 {
        lookUp(key, in: node, isObject: true)
    }

    /// The columns of the leaves of `run` written next in `node` — its `steps`, under the run's own
    /// copies of their names. Worked out by looking up each leaf (and object) the first time, then kept:
    /// the cursor moves past the run's steps as if each had been looked up.
    @inline(__always)
    mutating func columns<let count: Int>(ofRun run: NumberMembers<count>, in node: Int32) -> RunColumns {
        placedRun(run.identity, in: node) ?? placeRun(run.identity, steps: run.steps, in: node)
    }

    /// The columns of null members (`NullMembers`) written next in `node`, as those of a number run.
    @inline(__always)
    mutating func columns(ofRun members: NullMembers, in node: Int32) -> RunColumns {
        placedRun(members.identity, in: node) ?? placeRun(members.identity, steps: members.steps, in: node)
    }

    /// The columns of the run told by `identity` in `node` when it is placed: the cursor moved past it.
    @inline(__always)
    private mutating func placedRun(_ identity: UnsafeRawPointer, in node: Int32) -> RunColumns? {
        guard let index = runPlacementIndex(of: identity, in: node) else { return nil }
        let placement = runPlacements[index]
        runCursor = index + 1
        cursor = placement.cursorAfter
        return placement.columns
    }

    /// Places the run told by `identity` in `node`: looks up each of its `steps`.
    @inline(never)
    private mutating func placeRun(_ identity: UnsafeRawPointer, steps: [NumberRunStep], in node: Int32) -> RunColumns {
        newRunColumns.removeAll(keepingCapacity: true)
        var current = node
        var outerNodes = NumberRunStep.PerOpenObject<Int32>(repeating: 0)
        var depth = 0
        for step in steps {
            switch step {
            case let .open(_, name):
                outerNodes[depth] = current
                depth += 1
                current = self.node(of: Key(bytes: name, isLiteral: true), in: current)
            case let .number(_, _, name):
                newRunColumns.append(column(of: Key(bytes: name, isLiteral: true), in: current))
            case .close:
                depth -= 1
                current = outerNodes[depth]
            }
        }
        if runPlacements.isEmpty { runColumns.removeAll(keepingCapacity: true) }  // the steps moved: start again
        let first = newRunColumns.first ?? -1
        let isConsecutive = first >= 0 && newRunColumns.indices.allSatisfy { newRunColumns[$0] == first + Int32($0) }
        let columns = RunColumns(
            index: runColumns.count, consecutiveFrom: isConsecutive ? first : -1, hasColumns: newRunColumns.contains { $0 >= 0 })
        runColumns += newRunColumns
        runCursor = min(runCursor, runPlacements.count)
        runPlacements.insert(RunPlacement(run: identity, node: node, columns: columns, cursorAfter: cursor), at: runCursor)
        runCursor += 1
        return columns
    }

    /// `body` run on the columns of a placed run's `count` leaves (-1: none), from the index of its
    /// `RunColumns`.
    @inline(__always)
    func withRunColumns<Result>(from firstColumn: Int, count: Int, _ body: (UnsafeBufferPointer<Int32>) -> Result) -> Result {
        runColumns.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[firstColumn..<(firstColumn + count)])) }
    }

    /// Where the placement of `run` in `node` is kept: the expected one, else found among all.
    @inline(__always)
    private func runPlacementIndex(of run: UnsafeRawPointer, in node: Int32) -> Int? {
        if runCursor < runPlacements.count, runPlacements[runCursor].run == run, runPlacements[runCursor].node == node {
            return runCursor
        }
        return runPlacements.firstIndex { $0.run == run && $0.node == node }
    }

    @inline(__always)
    private mutating func lookUp(_ key: Key, in node: Int32, isObject: Bool) -> Int32 {
        guard node != Self.dead else { return isObject ? Self.dead : -1 }
        guard key.isLiteral else { return resolve(key, in: node, isObject: isObject) }
        if cursor < steps.count {
            let step = steps[cursor]
            if step.matches(key, in: node, isObject: isObject) {
                cursor &+= 1
                return step.target
            }
        }
        return search(key, in: node, isObject: isObject)
    }

    /// The step of `key` in `node` anywhere (from the cursor on, then from the start), or a new one
    /// at the cursor.
    @inline(never)
    private mutating func search(_ key: Key, in node: Int32, isObject: Bool) -> Int32 {
        let count = steps.count
        var index = cursor
        for _ in 0..<count {
            if index >= count { index = 0 }
            if steps[index].matches(key, in: node, isObject: isObject) {
                cursor = index + 1
                return steps[index].target
            }
            index += 1
        }
        let target = resolve(key, in: node, isObject: isObject)
        cursor = min(cursor, count)
        steps.insert(Step(node: node, isObject: isObject, target: target, key: key.bytes), at: cursor)
        runPlacements.removeAll()  // the steps after this one moved
        runCursor = 0
        cursor += 1
        return target
    }

    /// `key` in `node` resolved by name: its path, then the column or node of that name.
    private mutating func resolve(_ key: Key, in node: Int32, isObject: Bool) -> Int32 {
        path.removeAll()
        let start = nodeStarts[Int(node)], end = nodeStarts[Int(node) + 1]
        if end > start {
            nodePaths.withUnsafeBufferPointer { paths in
                path.freeSpace(atLeast: end - start).storeBytes(of: UnsafeBufferPointer(rebasing: paths[start..<end]))
            }
            path.commit(end - start)
            path.append(UInt8(ascii: "_"))
        }
        path.freeSpace(atLeast: key.bytes.count).storeBytes(of: key.bytes)
        path.commit(key.bytes.count)
        return isObject ? nodeNamed(path.bytes) : columnNamed(path.bytes)
    }

    /// The node of path `path`, made on first sight; `dead` when no column name starts with `path_`.
    /// An empty path (an object under an empty key) is the record's: its members' paths have no `_`.
    private mutating func nodeNamed(_ path: UnsafeRawBufferPointer) -> Int32 {
        if path.isEmpty { return 0 }
        for node in 1..<(nodeStarts.count - 1) where Self.equal(nodePaths, nodeStarts[node], nodeStarts[node + 1], path) {
            return Int32(node)
        }
        let isPrefix = (0..<(nameStarts.count - 1)).contains { column in
            let start = nameStarts[column], end = nameStarts[column + 1]
            return end - start > path.count && names[start + path.count] == UInt8(ascii: "_")
                && Self.equal(names, start, start + path.count, path)
        }
        guard isPrefix else { return Self.dead }
        nodePaths.append(contentsOf: path)
        nodeStarts.append(nodePaths.count)
        return Int32(nodeStarts.count - 2)
    }

    /// The column named `path`: the next one in the common case, else found among the names of its
    /// length; -1 without one.
    private mutating func columnNamed(_ path: UnsafeRawBufferPointer) -> Int32 {
        if nextColumn < nameStarts.count - 1, Self.equal(names, nameStarts[nextColumn], nameStarts[nextColumn + 1], path) {
            nextColumn += 1
            return Int32(nextColumn - 1)
        }
        guard path.count < columnsByLength.count else { return -1 }
        for column in columnsByLength[path.count]
        where Self.equal(names, nameStarts[column], nameStarts[column + 1], path) {
            nextColumn = column + 1
            return Int32(column)
        }
        return -1
    }

    /// Whether `bytes[start..<end]` is `path`.
    private static func equal(_ bytes: [UInt8], _ start: Int, _ end: Int, _ path: UnsafeRawBufferPointer) -> Bool {
        guard end - start == path.count else { return false }
        return bytes.withUnsafeBytes { bytes in
            path.count == 0 || memcmp(bytes.baseAddress! + start, path.baseAddress!, path.count) == 0
        }
    }
}

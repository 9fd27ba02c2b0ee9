/// Builds the `JSONValue` an encoding writes, for outputs that read records as values (CSV columns,
/// the report, HAR, tests).
struct JSONTreeBuilder: JSONEncoding {
    /// The members of the object being built.
    private var members: [(String, JSONValue)] = []
    /// The elements of the array being built (at the top level: the value written).
    fileprivate var elements: [JSONValue] = []
    /// The key of the next member, when building an object.
    private var pendingKey: String?

    mutating func key(_ name: JSONKey) { pendingKey = name.name.description }

    mutating func dynamicKey(_ name: String) { pendingKey = name }

    mutating func object(_ body: (inout JSONTreeBuilder) -> Void) {
        var inner = JSONTreeBuilder()
        body(&inner)
        add(.object(inner.members))
    }

    mutating func array(_ body: (inout JSONTreeBuilder) -> Void) {
        var inner = JSONTreeBuilder()
        body(&inner)
        add(.array(inner.elements))
    }

    mutating func string(_ value: String) { add(.string(value)) }

    mutating func integer(_ value: Int) { add(.integer(value)) }

    mutating func number(_ literal: String) { add(.number(literal)) }

    mutating func timestamp(_ timestamp: Timestamp, digits: Int) { add(.number(timestamp.formatted(digits: digits))) }

    mutating func milliseconds(_ nanoseconds: Int64) { add(.number(RecordEncoding.milliseconds(nanoseconds))) }

    mutating func bool(_ value: Bool) { add(.bool(value)) }

    mutating func null() { add(.null) }

    private mutating func add(_ value: JSONValue) {
        if let key = pendingKey {
            members.append((key, value))
            pendingKey = nil
        } else {
            elements.append(value)
        }
    }
}

extension JSONValue {
    /// The value `body` writes.
    init(encoding body: (inout JSONTreeBuilder) -> Void) {
        var builder = JSONTreeBuilder()
        body(&builder)
        self = builder.elements.first ?? .null
    }
}

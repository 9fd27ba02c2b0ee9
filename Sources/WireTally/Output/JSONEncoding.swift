/// Something a JSON document is written into piece by piece, in document order: the records are
/// described once against this protocol (`RecordEncoding`), then either appended as text straight to a
/// byte buffer (`JSONTextEncoder`, the JSON Lines path) or built as a `JSONValue` (`JSONTreeBuilder`,
/// for outputs that read records as values).
///
/// Inside an object every value is preceded by its `key`; inside an array values follow each other.
/// Code written against it is generic over the encoder, so each use is specialised (no dynamic dispatch
/// per field).
protocol JSONEncoding {
    /// The name of the next member of the current object: a literal with nothing JSON would escape.
    mutating func key(_ name: JSONKey)
    /// The name of the next member of the current object, computed at run time (escaped as needed).
    mutating func dynamicKey(_ name: String)
    /// An object whose members `body` writes.
    mutating func object(_ body: (inout Self) -> Void)
    /// An array whose elements `body` writes.
    mutating func array(_ body: (inout Self) -> Void)
    mutating func string(_ value: String)
    /// A string given as its UTF-8.
    mutating func string(utf8: UnsafeRawBufferPointer)
    /// A member whose value is the string `value`, a literal with nothing JSON would escape (`"type":"http"`).
    mutating func field(_ name: JSONKey, literal value: StaticString)
    mutating func integer(_ value: Int)
    /// A number already formatted.
    mutating func number(_ literal: String)
    /// A timestamp as seconds with `digits` decimals (`Timestamp.formatted(digits:)`).
    mutating func timestamp(_ timestamp: Timestamp, digits: Int)
    /// Nanoseconds as milliseconds with microsecond resolution, e.g. `12.345`.
    mutating func milliseconds(_ nanoseconds: Int64)
    /// An endpoint as a string: `ip:port`, `[ip]:port` for IPv6 (`IPAddress.endpoint(port:)`).
    mutating func endpoint(_ address: IPAddress, port: UInt16)
    mutating func bool(_ value: Bool)
    mutating func null()
    /// A member with an integer value: `key(name)` then `integer(value)`, in one call (records have
    /// a hundred or more; the text encoder makes room for both at once).
    mutating func integerField(_ name: JSONKey, _ value: Int)
    /// The run of members `members` with the integers `values`, in order (members of the current
    /// object, an object value or a member that is an object, as `members` says): the text encoder
    /// writes it at once.
    mutating func integerMembers<let count: Int>(_ members: NumberMembers<count>, _ values: InlineArray<count, Int>)
    /// The run of members `members` with durations in milliseconds (`milliseconds(_:)` of
    /// `nanoseconds`), -1 for a nil duration (HAR's "does not apply").
    mutating func durationMembers<let count: Int>(_ members: NumberMembers<count>, nanoseconds: InlineArray<count, Int64?>)
    /// The members `members`, each null: the text encoder copies them at once.
    mutating func nullMembers(_ members: NullMembers)
}

extension JSONEncoding {
    mutating func field(_ name: JSONKey, literal value: StaticString) {
        key(name)
        string(value.description)
    }

    mutating func integerField(_ name: JSONKey, _ value: Int) {
        key(name)
        integer(value)
    }

    mutating func endpoint(_ address: IPAddress, port: UInt16) {
        string(address.endpoint(port: port))
    }

    mutating func string(utf8: UnsafeRawBufferPointer) {
        string(String(decoding: utf8, as: UTF8.self))
    }

    mutating func integerMembers<let count: Int>(_ members: NumberMembers<count>, _ values: InlineArray<count, Int>) {
        integerMembersOneByOne(members, values)
    }

    mutating func nullMembers(_ members: NullMembers) {
        nullMembersOneByOne(members)
    }

    /// `nullMembers` written a key and a null at a time.
    mutating func nullMembersOneByOne(_ members: NullMembers) {
        for name in members.keys {
            key(name)
            null()
        }
    }

    mutating func durationMembers<let count: Int>(_ members: NumberMembers<count>, nanoseconds: InlineArray<count, Int64?>) {
        durationMembersOneByOne(members, nanoseconds: nanoseconds)
    }

    /// `integerMembers` written a key and a value at a time.
    mutating func integerMembersOneByOne<let count: Int>(_ members: NumberMembers<count>, _ values: InlineArray<count, Int>) {
        members.encode(to: &self) { $1.integer(values[$0]) }
    }

    /// `durationMembers` written a key and a value at a time.
    mutating func durationMembersOneByOne<let count: Int>(
        _ members: NumberMembers<count>, nanoseconds: InlineArray<count, Int64?>
    ) {
        members.encode(to: &self) { index, encoder in
            if let duration = nanoseconds[index] { encoder.milliseconds(duration) } else { encoder.integer(-1) }
        }
    }
}

/// Members written in one call: a key and its value (null for a missing optional).
extension JSONEncoding {
    mutating func field(_ name: JSONKey, _ value: Int?) {
        guard let value else {
            key(name)
            return null()
        }
        integerField(name, value)
    }

    mutating func field(_ name: JSONKey, _ value: String?) {
        key(name)
        if let value { string(value) } else { null() }
    }

    mutating func field(_ name: JSONKey, _ value: Bool) {
        key(name)
        bool(value)
    }

    mutating func field(_ name: JSONKey, timestamp value: Timestamp?, digits: Int) {
        key(name)
        if let value { timestamp(value, digits: digits) } else { null() }
    }

    mutating func field(_ name: JSONKey, milliseconds value: Int64?) {
        key(name)
        if let value { milliseconds(value) } else { null() }
    }

    /// An array of strings.
    mutating func field(_ name: JSONKey, strings: [String]) {
        key(name)
        array { encoder in
            for string in strings { encoder.string(string) }
        }
    }

    /// A member whose value `body` writes.
    mutating func field(_ name: JSONKey, _ body: (inout Self) -> Void) {
        key(name)
        body(&self)
    }

    /// A member that is an object `body` writes.
    mutating func object(_ name: JSONKey, _ body: (inout Self) -> Void) {
        key(name)
        object(body)
    }

    /// A member that is an object `body` writes from `value`, or null without one.
    mutating func object<Value>(_ name: JSONKey, _ value: Value?, _ body: (inout Self, Value) -> Void) {
        key(name)
        guard let value else { return null() }
        object { body(&$0, value) }
    }
}

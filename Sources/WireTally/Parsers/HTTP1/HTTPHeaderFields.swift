import Glibc

/// The header fields of one message as raw bytes: every field's name and value (the value without the
/// whitespace around it) back to back in one buffer, and where each ends.
///
/// Parsing an HTTP/1.x header block copies each line's name and value bytes here and makes no
/// `String`: a field becomes `HTTPHeader` strings only when it is read as one (iterating, subscript,
/// `value(named:)`), which the per-exchange records do for `Host` alone. Names are compared ASCII
/// case-insensitively on the bytes.
package struct HTTPHeaderFields: Sendable, RandomAccessCollection, ExpressibleByArrayLiteral {
    /// Names and values, in field order.
    private var bytes: [UInt8] = []
    /// Per field, two offsets into `bytes`: the end of its name (where its value starts) and the end
    /// of its value (where the next field starts).
    private var ends: [Int] = []

    /// No fields.
    package init() {}

    /// The fields given, in order (HTTP/2 and HTTP/3 header lists, tests).
    package init(_ headers: some Sequence<HTTPHeader>) {
        for header in headers {
            var name = header.name, value = header.value
            name.withUTF8 { name in value.withUTF8 { append(name: UnsafeRawBufferPointer(name), value: UnsafeRawBufferPointer($0)) } }
        }
    }

    package init(arrayLiteral elements: HTTPHeader...) { self.init(elements) }

    package var startIndex: Int { 0 }
    package var endIndex: Int { ends.count / 2 }

    /// The field at `position` as strings (invalid UTF-8 repaired as `String(decoding:as:)` does).
    package subscript(position: Int) -> HTTPHeader {
        HTTPHeader(name: withName(at: position) { String(decoding: $0, as: UTF8.self) },
                   value: withValue(at: position) { String(decoding: $0, as: UTF8.self) })
    }

    /// Bytes of all names and values together (what the fields hold; no separators).
    package var byteCount: Int { bytes.count }

    /// Makes room for `fields` fields of `byteCount` name and value bytes in all.
    package mutating func reserveCapacity(fields: Int, byteCount: Int) {
        ends.reserveCapacity(fields * 2)
        bytes.reserveCapacity(byteCount)
    }

    /// Adds a field `name: value`.
    package mutating func append(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: Self.typed(name))
        let nameEnd = bytes.count
        bytes.append(contentsOf: Self.typed(value))
        ends.append(nameEnd)
        ends.append(bytes.count)
    }

    /// Continues the last field's value with a space and `more` (obsolete line folding); nothing
    /// without a field.
    package mutating func continueLastValue(_ more: UnsafeRawBufferPointer) {
        guard !ends.isEmpty else { return }
        bytes.append(HTTP1Syntax.space)
        bytes.append(contentsOf: Self.typed(more))
        ends[ends.count - 1] = bytes.count
    }

    /// The bytes as `UInt8`s: an array appends those with one copy (raw bytes go one by one).
    private static func typed(_ raw: UnsafeRawBufferPointer) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: raw.count)
    }

    /// Drops every field, keeping the storage.
    package mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
    }

    /// Calls `body` with the name bytes of the field at `position`.
    package func withName<R>(at position: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let start = position == 0 ? 0 : ends[2 * position - 1]
        return try withBytes(start..<ends[2 * position], body)
    }

    /// Calls `body` with the value bytes of the field at `position`.
    package func withValue<R>(at position: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withBytes(ends[2 * position]..<ends[2 * position + 1], body)
    }

    /// Whether the field at `position` is named `lowercased` (ASCII case-insensitive).
    package func nameEquals(at position: Int, _ lowercased: StaticString) -> Bool {
        withName(at: position) { HTTP1Syntax.bytesEqual($0, lowercased) }
    }

    /// The value of the first field named `name` (ASCII case-insensitive), nil when there is none.
    package func value(named name: String) -> String? {
        var name = name
        return name.withUTF8 { wanted in
            let wanted = UnsafeRawBufferPointer(wanted)
            for position in indices where withName(at: position, { HTTP1Syntax.asciiCaseInsensitiveEqual($0, wanted) }) {
                return withValue(at: position) { String(decoding: $0, as: UTF8.self) }
            }
            return nil
        }
    }

    private func withBytes<R>(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }
}

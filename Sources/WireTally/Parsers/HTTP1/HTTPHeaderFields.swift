/// The header fields of one message as raw bytes: every field's name and value (the value without the
/// whitespace around it) back to back in one buffer, and where each ends.
///
/// Parsing an HTTP/1.x header block copies each line's name and value bytes here and makes no
/// `String`: a field becomes `HTTPHeader` strings only when it is read as one (iterating, subscript,
/// `value(named:)`), which the per-exchange records do for `Host` alone. Names are compared ASCII
/// case-insensitively on the bytes.
///
/// A value: the bytes live in a `ByteBuffer` (a line's name and value are stored with a few word
/// moves, where an array appended them byte by byte) that a change copies first when another copy
/// shares it, so a shared buffer is never written (hence `@unchecked Sendable`).
package struct HTTPHeaderFields: @unchecked Sendable, RandomAccessCollection, ExpressibleByArrayLiteral {
    /// Names and values, in field order; nil until the first field or a reservation.
    private var storage: ByteBuffer?
    /// Per field, two offsets into `storage`: the end of its name (where its value starts) and the
    /// end of its value (where the next field starts).
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
    package var byteCount: Int { storage?.count ?? 0 }

    /// Makes room for `fields` fields of `byteCount` name and value bytes in all.
    package mutating func reserveCapacity(fields: Int, byteCount: Int) {
        ends.reserveCapacity(fields * 2)
        if storage == nil && byteCount > 0 { storage = ByteBuffer(capacity: byteCount) }
    }

    /// Adds a field `name: value`.
    package mutating func append(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        let storage = uniqueStorage()
        let start = storage.count
        let space = storage.freeSpace(atLeast: name.count + value.count)
        space.storeBytes(of: Self.typed(name))
        (space + name.count).storeBytes(of: Self.typed(value))
        storage.commit(name.count + value.count)
        ends.append(start + name.count)
        ends.append(storage.count)
    }

    /// Continues the last field's value with a space and `more` (obsolete line folding); nothing
    /// without a field.
    package mutating func continueLastValue(_ more: UnsafeRawBufferPointer) {
        guard !ends.isEmpty else { return }
        let storage = uniqueStorage()
        storage.append(HTTP1Syntax.space)
        storage.freeSpace(atLeast: more.count).storeBytes(of: Self.typed(more))
        storage.commit(more.count)
        ends[ends.count - 1] = storage.count
    }

    /// Drops every field, keeping the storage when no other copy shares it.
    package mutating func removeAll() {
        if isKnownUniquelyReferenced(&storage) { storage?.removeAll() } else { storage = nil }
        ends.removeAll(keepingCapacity: true)
    }

    /// The storage to write: a copy of it first when another copy of the fields shares it.
    private mutating func uniqueStorage() -> ByteBuffer {
        if isKnownUniquelyReferenced(&storage), let storage { return storage }
        let copy = ByteBuffer(capacity: Swift.max(64, 2 * byteCount))
        if let storage {
            copy.freeSpace(atLeast: storage.count).storeBytes(of: storage.bytes.bindMemory(to: UInt8.self))
            copy.commit(storage.count)
        }
        storage = copy
        return copy
    }

    private static func typed(_ raw: UnsafeRawBufferPointer) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: raw.count)
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
        guard let storage else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try withExtendedLifetime(storage) { try body(UnsafeRawBufferPointer(rebasing: storage.bytes[range])) }
    }
}

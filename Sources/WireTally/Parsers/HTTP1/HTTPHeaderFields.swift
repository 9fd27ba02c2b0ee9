/// The header fields of one message as raw bytes: every field's name and value (the value without the
/// whitespace around it) back to back in one buffer, and where each ends.
///
/// Parsing an HTTP/1.x header block copies each line's name and value bytes here and makes no
/// `String`: a field becomes `HTTPHeader` strings only when it is read as one (iterating, subscript,
/// `value(named:)`), which the per-exchange records do for `Host` alone. Names are compared ASCII
/// case-insensitively on the bytes.
///
/// A value: one allocation holds everything (`Storage`: the bytes grow from its start, the ends of
/// each field from its end down), so a message's fields cost one allocation and one free; a change
/// copies the storage first when another copy shares it, so a shared storage is never written (hence
/// `@unchecked Sendable`).
package struct HTTPHeaderFields: @unchecked Sendable, RandomAccessCollection, ExpressibleByArrayLiteral {
    /// What the storage holds besides its bytes.
    private struct Counts {
        /// Bytes usable in all (names and values from the start, the ends table from the end).
        var capacity: Int
        /// Name and value bytes stored, from the start.
        var byteCount = 0
        /// Fields stored; the ends table, `endsSize` bytes per field, lies at the end of the storage.
        var fieldCount = 0
    }

    /// Names and values back to back from the start; per field, from the storage's end down, the end
    /// of its name (where its value starts) and the end of its value (where the next field starts).
    private typealias Storage = ManagedBuffer<Counts, UInt8>

    /// Bytes of the ends table per field: two `Int`s.
    private static var endsSize: Int { 2 * MemoryLayout<Int>.stride }

    /// Nil until the first field or a reservation.
    private var storage: Storage?

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
    package var endIndex: Int { storage?.header.fieldCount ?? 0 }

    /// The field at `position` as strings (invalid UTF-8 repaired as `String(decoding:as:)` does).
    package subscript(position: Int) -> HTTPHeader {
        HTTPHeader(name: withName(at: position) { String(decoding: $0, as: UTF8.self) },
                   value: withValue(at: position) { String(decoding: $0, as: UTF8.self) })
    }

    /// Bytes of all names and values together (what the fields hold; no separators).
    package var byteCount: Int { storage?.header.byteCount ?? 0 }

    /// Makes room for `fields` fields of `byteCount` name and value bytes in all.
    package mutating func reserveCapacity(fields: Int, byteCount: Int) {
        let wanted = byteCount + fields * Self.endsSize
        guard wanted > 0 else { return }
        if storage == nil {
            storage = Self.makeStorage(capacity: wanted)
        } else {
            makeRoom(Swift.max(0, wanted - self.byteCount - count * Self.endsSize))
        }
    }

    /// Adds a field `name: value`.
    package mutating func append(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        makeRoom(name.count + value.count + Self.endsSize)
        // Reached unretained: this value holds the storage for the whole call (a field stored is
        // otherwise a retain and a release of it).
        Unmanaged.passUnretained(storage.unsafelyUnwrapped)._withUnsafeGuaranteedRef { $0.withUnsafeMutablePointers { counts, base in
            let start = counts.pointee.byteCount
            (base + start).storeBytes(of: Self.typed(name))
            (base + start + name.count).storeBytes(of: Self.typed(value))
            counts.pointee.byteCount = start + name.count + value.count
            counts.pointee.fieldCount += 1
            let ends = Self.ends(of: counts.pointee.fieldCount - 1, base, counts.pointee.capacity)
            ends.storeBytes(of: start + name.count, as: Int.self)
            ends.storeBytes(of: counts.pointee.byteCount, toByteOffset: MemoryLayout<Int>.stride, as: Int.self)
        } }
    }

    /// Continues the last field's value with a space and `more` (obsolete line folding); nothing
    /// without a field.
    package mutating func continueLastValue(_ more: UnsafeRawBufferPointer) {
        guard !isEmpty else { return }
        makeRoom(1 + more.count)
        storage.unsafelyUnwrapped.withUnsafeMutablePointers { counts, base in
            let end = counts.pointee.byteCount
            base[end] = HTTP1Syntax.space
            (base + end + 1).storeBytes(of: Self.typed(more))
            counts.pointee.byteCount = end + 1 + more.count
            Self.ends(of: counts.pointee.fieldCount - 1, base, counts.pointee.capacity)
                .storeBytes(of: counts.pointee.byteCount, toByteOffset: MemoryLayout<Int>.stride, as: Int.self)
        }
    }

    /// Drops every field, keeping the storage when no other copy shares it.
    package mutating func removeAll() {
        if isKnownUniquelyReferenced(&storage), let storage {
            storage.header.byteCount = 0
            storage.header.fieldCount = 0
        } else {
            storage = nil
        }
    }

    private static func makeStorage(capacity: Int) -> Storage {
        // Rounded to whole `Int`s: the ends table is aligned from the storage's end.
        let capacity = (capacity + MemoryLayout<Int>.stride - 1) & ~(MemoryLayout<Int>.stride - 1)
        return Storage.create(minimumCapacity: capacity) { _ in Counts(capacity: capacity) }
    }

    /// Where the ends of field `position` (its name's, then its value's, as `Int`s) lie in a storage of
    /// `capacity` bytes at `base`.
    @inline(__always)
    private static func ends(of position: Int, _ base: UnsafeMutablePointer<UInt8>, _ capacity: Int) -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(base + capacity - (position + 1) * endsSize)
    }

    /// Makes the storage this value's own with at least `room` bytes free (then `storage` is set): a
    /// copy of it first when another copy of the fields shares it or it is too small. Inlined and
    /// returning nothing, so the common case (own storage with room) costs a uniqueness check and a
    /// comparison, no retain.
    @inline(__always)
    private mutating func makeRoom(_ room: Int) {
        if isKnownUniquelyReferenced(&storage) {
            let counts = storage.unsafelyUnwrapped.header
            if counts.capacity - counts.byteCount - counts.fieldCount * Self.endsSize >= room { return }
        }
        replaceStorage(room: room)
    }

    /// `makeRoom`'s copy: into a new storage twice as large as what is used (at least), with `room`
    /// bytes free.
    private mutating func replaceStorage(room: Int) {
        let used = byteCount + count * Self.endsSize
        let copy = Self.makeStorage(capacity: Swift.max(128, 2 * used, used + room))
        if let storage {
            storage.withUnsafeMutablePointers { counts, base in
                copy.withUnsafeMutablePointers { newCounts, newBase in
                    let old = counts.pointee, table = old.fieldCount * Self.endsSize
                    UnsafeMutableRawPointer(newBase).copyMemory(from: base, byteCount: old.byteCount)
                    UnsafeMutableRawPointer(newBase + newCounts.pointee.capacity - table)
                        .copyMemory(from: base + old.capacity - table, byteCount: table)
                    newCounts.pointee.byteCount = old.byteCount
                    newCounts.pointee.fieldCount = old.fieldCount
                }
            }
        }
        storage = copy
    }

    private static func typed(_ raw: UnsafeRawBufferPointer) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: raw.count)
    }

    /// Calls `body` with the name bytes of the field at `position`.
    package func withName<R>(at position: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withField(at: position) { base, start, nameEnd, _ in try body(UnsafeRawBufferPointer(start: base + start, count: nameEnd - start)) }
    }

    /// Calls `body` with the value bytes of the field at `position`.
    package func withValue<R>(at position: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withField(at: position) { base, _, nameEnd, valueEnd in try body(UnsafeRawBufferPointer(start: base + nameEnd, count: valueEnd - nameEnd)) }
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

    /// Calls `body` with the storage's bytes and where field `position`'s name starts, ends, and its
    /// value ends (a field in `indices`).
    private func withField<R>(
        at position: Int, _ body: (UnsafePointer<UInt8>, Int, Int, Int) throws -> R
    ) rethrows -> R {
        guard let storage else { preconditionFailure("header field \(position) of none") }
        precondition(position >= 0 && position < storage.header.fieldCount, "header field \(position) out of range")
        return try storage.withUnsafeMutablePointers { counts, base in
            let capacity = counts.pointee.capacity
            let ends = Self.ends(of: position, base, capacity), stride = MemoryLayout<Int>.stride
            let start = position == 0 ? 0 : Self.ends(of: position - 1, base, capacity).load(fromByteOffset: stride, as: Int.self)
            return try body(base, start, ends.load(as: Int.self), ends.load(fromByteOffset: stride, as: Int.self))
        }
    }
}

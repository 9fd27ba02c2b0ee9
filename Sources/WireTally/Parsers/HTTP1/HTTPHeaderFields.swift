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
/// `@unchecked Sendable`). The storage is read and written through a pointer to its elements kept
/// beside it (`base`).
package struct HTTPHeaderFields: @unchecked Sendable, RandomAccessCollection, ExpressibleByArrayLiteral {
    /// The fields' memory: `Layout` describes what lies in its elements.
    private typealias Storage = ManagedBuffer<Void, UInt8>

    /// Where things lie from `base`: three counts (capacity, name and value bytes stored, fields
    /// stored), then the names and values back to back, and at the end of the capacity, from there
    /// down, per field the end of its name (where its value starts) and the end of its value (where the
    /// next field starts), two `Int`s.
    private enum Layout {
        static var capacity: Int { 0 }
        static var byteCount: Int { MemoryLayout<Int>.stride }
        static var fieldCount: Int { 2 * MemoryLayout<Int>.stride }
        /// Where the names and values start.
        static var bytes: Int { 3 * MemoryLayout<Int>.stride }
        /// Bytes of the ends table per field.
        static var endsSize: Int { 2 * MemoryLayout<Int>.stride }
    }

    /// Nil until the first field or a reservation; then it keeps `base` alive and tells whether other
    /// copies share it: a `Storage` of its own, or the object whose memory holds a message's fields
    /// (`init(sharing:base:)`).
    private var storage: AnyObject?
    /// The start of the fields' memory (nil with `storage`): read and written directly, without a
    /// closure or a retain of the storage per field. The elements of a `ManagedBuffer` stay where they
    /// are for its lifetime, and `storage` holds it for as long as this value has the pointer.
    private var base: UnsafeMutableRawPointer?

    /// No fields.
    package init() {}

    /// The fields laid out at `base` by `copyCompacted(to:)`, in memory `owner` keeps alive (an
    /// `HTTPMessage`'s own allocation). A change copies them into a storage of their own first unless
    /// this value is the only one left holding `owner`.
    init(sharing owner: AnyObject, base: UnsafeMutableRawPointer) {
        storage = owner
        self.base = base
    }

    /// Bytes `copyCompacted(to:)` writes: the counts, the names and values, the ends table.
    var compactedSize: Int {
        Layout.bytes + Self.rounded(byteCount) + count * Layout.endsSize
    }

    /// Writes the fields at `base` (`compactedSize` bytes there) with no room to spare, for
    /// `init(sharing:base:)`.
    func copyCompacted(to target: UnsafeMutableRawPointer) {
        let byteCount = byteCount, fieldCount = count, table = fieldCount * Layout.endsSize
        target.storeBytes(of: Self.rounded(byteCount) + table, toByteOffset: Layout.capacity, as: Int.self)
        target.storeBytes(of: byteCount, toByteOffset: Layout.byteCount, as: Int.self)
        target.storeBytes(of: fieldCount, toByteOffset: Layout.fieldCount, as: Int.self)
        guard let base else { return }
        withExtendedLifetime(storage) {
            (target + Layout.bytes).copyMemory(from: base + Layout.bytes, byteCount: byteCount)
            Self.ends(of: fieldCount - 1, target).copyMemory(from: Self.ends(of: fieldCount - 1, base), byteCount: table)
        }
    }

    /// The same fields in a storage shared with no other value.
    func ownCopy() -> HTTPHeaderFields {
        var copy = self
        copy.replaceStorage(room: 0)
        return copy
    }

    /// Bytes of names, values and ends this value can hold without growing (0 without storage).
    var capacity: Int { base?.load(fromByteOffset: Layout.capacity, as: Int.self) ?? 0 }

    /// The fields given, in order (HTTP/2 and HTTP/3 header lists, tests).
    package init(_ headers: some Sequence<HTTPHeader>) {
        for header in headers {
            var name = header.name, value = header.value
            name.withUTF8 { name in value.withUTF8 { append(name: UnsafeRawBufferPointer(name), value: UnsafeRawBufferPointer($0)) } }
        }
    }

    package init(arrayLiteral elements: HTTPHeader...) { self.init(elements) }

    package var startIndex: Int { 0 }
    package var endIndex: Int { base?.load(fromByteOffset: Layout.fieldCount, as: Int.self) ?? 0 }

    /// The field at `position` as strings (invalid UTF-8 repaired as `String(decoding:as:)` does).
    package subscript(position: Int) -> HTTPHeader {
        HTTPHeader(name: withName(at: position) { String(decoding: $0, as: UTF8.self) },
                   value: withValue(at: position) { String(decoding: $0, as: UTF8.self) })
    }

    /// Bytes of all names and values together (what the fields hold; no separators).
    package var byteCount: Int { base?.load(fromByteOffset: Layout.byteCount, as: Int.self) ?? 0 }

    /// Adds a field `name: value`.
    package mutating func append(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        makeRoom(name.count &+ value.count &+ Layout.endsSize)
        store(name: name, value: value)
    }

    /// Makes the storage this value's own (a copy of it first when another copy shares it), for the
    /// `appendToOwnStorage` calls of a header block: its uniqueness checked once for all of them.
    mutating func makeStorageOwn() {
        if !isKnownUniquelyReferenced(&storage), storage != nil { replaceStorage(room: 0) }
    }

    /// `append(name:value:)` where the storage is this value's own or there is none
    /// (`makeStorageOwn()`, and no copy of this value made since): only the room is checked.
    mutating func appendToOwnStorage(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        assert(storage == nil || isKnownUniquelyReferenced(&storage), "HTTPHeaderFields: appending to a shared storage")
        let room = name.count &+ value.count &+ Layout.endsSize
        if base == nil || Self.freeBytes(base.unsafelyUnwrapped) < room { replaceStorage(room: room) }
        store(name: name, value: value)
    }

    /// Copies a field's name and value after the stored ones (the room checked by the caller).
    @inline(__always)
    private func store(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        let base = base.unsafelyUnwrapped
        let start = base.load(fromByteOffset: Layout.byteCount, as: Int.self)
        let bytes = (base + Layout.bytes).assumingMemoryBound(to: UInt8.self)
        let nameEnd = start &+ name.count, valueEnd = nameEnd &+ value.count
        (bytes + start).storeBytes(of: Self.typed(name))
        (bytes + nameEnd).storeBytes(of: Self.typed(value))
        let position = base.load(fromByteOffset: Layout.fieldCount, as: Int.self)
        base.storeBytes(of: valueEnd, toByteOffset: Layout.byteCount, as: Int.self)
        base.storeBytes(of: position &+ 1, toByteOffset: Layout.fieldCount, as: Int.self)
        let ends = Self.ends(of: position, base)
        ends.storeBytes(of: nameEnd, as: Int.self)
        ends.storeBytes(of: valueEnd, toByteOffset: MemoryLayout<Int>.stride, as: Int.self)
    }

    /// Continues the last field's value with a space and `more` (obsolete line folding); nothing
    /// without a field.
    package mutating func continueLastValue(_ more: UnsafeRawBufferPointer) {
        guard !isEmpty else { return }
        makeRoom(1 + more.count)
        let base = base.unsafelyUnwrapped
        let end = base.load(fromByteOffset: Layout.byteCount, as: Int.self)
        let bytes = (base + Layout.bytes).assumingMemoryBound(to: UInt8.self)
        bytes[end] = HTTP1Syntax.space
        (bytes + end + 1).storeBytes(of: Self.typed(more))
        let newEnd = end + 1 + more.count
        base.storeBytes(of: newEnd, toByteOffset: Layout.byteCount, as: Int.self)
        Self.ends(of: base.load(fromByteOffset: Layout.fieldCount, as: Int.self) - 1, base)
            .storeBytes(of: newEnd, toByteOffset: MemoryLayout<Int>.stride, as: Int.self)
    }

    /// Drops every field, keeping the storage when no other copy shares it.
    package mutating func removeAll() {
        if isKnownUniquelyReferenced(&storage), let base {
            base.storeBytes(of: 0, toByteOffset: Layout.byteCount, as: Int.self)
            base.storeBytes(of: 0, toByteOffset: Layout.fieldCount, as: Int.self)
        } else {
            storage = nil
            base = nil
        }
    }

    /// A storage for `capacity` bytes of names, values and ends, holding no field, and its base.
    private static func makeStorage(capacity: Int) -> (Storage, UnsafeMutableRawPointer) {
        let capacity = rounded(capacity)
        let storage = Storage.create(minimumCapacity: Layout.bytes + capacity) { _ in }
        let base = storage.withUnsafeMutablePointerToElements { UnsafeMutableRawPointer($0) }
        base.storeBytes(of: capacity, toByteOffset: Layout.capacity, as: Int.self)
        base.storeBytes(of: 0, toByteOffset: Layout.byteCount, as: Int.self)
        base.storeBytes(of: 0, toByteOffset: Layout.fieldCount, as: Int.self)
        return (storage, base)
    }

    /// `count` rounded up to whole `Int`s: the ends table is aligned from the capacity's end.
    private static func rounded(_ count: Int) -> Int {
        (count + MemoryLayout<Int>.stride - 1) & ~(MemoryLayout<Int>.stride - 1)
    }

    /// Where the ends of field `position` (its name's, then its value's, as `Int`s) lie from `base`.
    @inline(__always)
    private static func ends(of position: Int, _ base: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        base + (Layout.bytes &+ base.load(fromByteOffset: Layout.capacity, as: Int.self) &- (position &+ 1) &* Layout.endsSize)
    }

    /// Makes the storage this value's own with at least `room` bytes free (then `storage` and `base`
    /// are set): a copy of it first when another copy of the fields shares it or it is too small.
    /// Inlined and returning nothing, so the common case (own storage with room) costs a uniqueness
    /// check and a comparison, no retain.
    @inline(__always)
    private mutating func makeRoom(_ room: Int) {
        if isKnownUniquelyReferenced(&storage), let base, Self.freeBytes(base) >= room { return }
        replaceStorage(room: room)
    }

    /// Bytes free between the names and values and the ends table of the storage at `base`.
    @inline(__always)
    private static func freeBytes(_ base: UnsafeMutableRawPointer) -> Int {
        base.load(fromByteOffset: Layout.capacity, as: Int.self)
            &- base.load(fromByteOffset: Layout.byteCount, as: Int.self)
            &- base.load(fromByteOffset: Layout.fieldCount, as: Int.self) &* Layout.endsSize
    }

    /// `makeRoom`'s copy: into a new storage twice as large as what is used (at least), with `room`
    /// bytes free.
    private mutating func replaceStorage(room: Int) {
        let used = byteCount + count * Layout.endsSize
        let (copy, newBase) = Self.makeStorage(capacity: Swift.max(128, 2 * used, used + room))
        if let base {
            let byteCount = base.load(fromByteOffset: Layout.byteCount, as: Int.self)
            let fieldCount = base.load(fromByteOffset: Layout.fieldCount, as: Int.self), table = fieldCount * Layout.endsSize
            (newBase + Layout.bytes).copyMemory(from: base + Layout.bytes, byteCount: byteCount)
            Self.ends(of: fieldCount - 1, newBase).copyMemory(from: Self.ends(of: fieldCount - 1, base), byteCount: table)
            newBase.storeBytes(of: byteCount, toByteOffset: Layout.byteCount, as: Int.self)
            newBase.storeBytes(of: fieldCount, toByteOffset: Layout.fieldCount, as: Int.self)
        }
        storage = copy
        base = newBase
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

    /// Calls `body` with the names' and values' bytes and where field `position`'s name starts, ends,
    /// and its value ends (a field in `indices`).
    private func withField<R>(
        at position: Int, _ body: (UnsafePointer<UInt8>, Int, Int, Int) throws -> R
    ) rethrows -> R {
        guard let base else { preconditionFailure("header field \(position) of none") }
        precondition(position >= 0 && position < count, "header field \(position) out of range")
        // `storage` holds the memory for the call (this value is not changed during it).
        return try withExtendedLifetime(storage) {
            let ends = Self.ends(of: position, base), stride = MemoryLayout<Int>.stride
            let start = position == 0 ? 0 : Self.ends(of: position - 1, base).load(fromByteOffset: stride, as: Int.self)
            return try body(UnsafePointer((base + Layout.bytes).assumingMemoryBound(to: UInt8.self)), start,
                            ends.load(as: Int.self), ends.load(fromByteOffset: stride, as: Int.self))
        }
    }
}

import Glibc

/// The header fields of a direction's previous message, offered for reuse: the messages of one
/// connection mostly repeat their header names, and many values, in the same order. A field whose
/// bytes equal the previous message's field at the same position takes that field's strings instead
/// of decoding (and, past 15 bytes, allocating) new ones.
struct RepeatedHeaders {
    private var previous: [HTTPHeader] = []

    /// How many fields the previous message had.
    var count: Int { previous.count }

    /// Keeps `headers` (a complete header block) as the previous message's.
    mutating func remember(_ headers: [HTTPHeader]) {
        previous = headers
    }

    /// The header field at `position` of a message with the name and value bytes given.
    func header(at position: Int, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> HTTPHeader {
        guard position < previous.count else { return HTTP1Syntax.header((name, value)) }
        return HTTPHeader(
            name: Self.string(name, reusing: previous[position].name),
            value: Self.string(value, reusing: previous[position].value))
    }

    /// `candidate` when it holds exactly `bytes` (which then decode to it), else the decoded bytes.
    private static func string(_ bytes: UnsafeRawBufferPointer, reusing candidate: String) -> String {
        let same = candidate.utf8.count == bytes.count
            && candidate.utf8.withContiguousStorageIfAvailable { held in
                bytes.isEmpty || memcmp(held.baseAddress!, bytes.baseAddress!, bytes.count) == 0
            } == true
        return same ? candidate : String(decoding: bytes, as: UTF8.self)
    }
}

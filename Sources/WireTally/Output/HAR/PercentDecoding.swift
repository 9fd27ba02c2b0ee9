/// Percent-decoding (RFC 3986) and `application/x-www-form-urlencoded` pairs, as HAR's `queryString`
/// and `postData.params` need them.
package enum PercentDecoding {
    /// `text` with every `%XX` replaced by its byte; the bytes are read as UTF-8 (invalid sequences
    /// become U+FFFD). A `%` not followed by two hex digits is kept as is. With `plusAsSpace` (form
    /// encoding) `+` decodes to a space.
    package static func decode<S: StringProtocol>(_ text: S, plusAsSpace: Bool = false) -> String {
        let utf8 = Array(text.utf8)
        guard utf8.contains(UInt8(ascii: "%")) || (plusAsSpace && utf8.contains(UInt8(ascii: "+"))) else {
            return String(text)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), index + 2 < utf8.count,
               let high = HexDigit.value(utf8[index + 1]), let low = HexDigit.value(utf8[index + 2])
            {
                bytes.append(high << 4 | low)
                index += 3
                continue
            }
            bytes.append(plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index += 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The `name=value` pairs of a query string or form body, split on `&` (empty pieces skipped), each
    /// split at its first `=` (a piece without one has an empty value) and decoded with `+` as space.
    package static func formPairs<S: StringProtocol>(_ text: S) -> [(name: String, value: String)] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { piece in
            if let equals = piece.firstIndex(of: "=") {
                return (decode(piece[..<equals], plusAsSpace: true),
                        decode(piece[piece.index(after: equals)...], plusAsSpace: true))
            }
            return (decode(piece, plusAsSpace: true), "")
        }
    }

    /// The query of a request target (after the first `?`, without any `#fragment`), or nil.
    package static func query(ofTarget target: String) -> Substring? {
        guard let mark = target.firstIndex(of: "?") else { return nil }
        let rest = target[target.index(after: mark)...]
        return rest.prefix { $0 != "#" }
    }
}

/// The path template of a request target: the path with the query (and fragment) dropped and the
/// segments that look like identifiers folded into placeholders, so that `/users/123` and
/// `/users/456` are one endpoint, `/users/{id}`.
///
/// Rules, per `/`-separated segment (raw, not percent-decoded), first match wins:
///
/// | segment | becomes | example |
/// | --- | --- | --- |
/// | decimal digits (optionally a leading `-`) | `{id}` | `123` |
/// | UUID `8-4-4-4-12` hex digits (any case) | `{uuid}` | `4f0c…-…-…-…-…` |
/// | a date `YYYY-MM-DD` | `{date}` | `2026-11-22` |
/// | 16 or more hex digits with at least one digit and one letter a–f (md5, sha1, object ids…) | `{hash}` | `5f2b9c0e1d3a4b6c` |
/// | 20 or more characters of `A–Z a–z 0–9 - _ = . ~`, with at least one letter and one digit (base64url ids, JWTs, tokens) | `{token}` | `dGhpcyBpcyBhIHRva2VuMTIz` |
///
/// A segment with a short alphabetic extension (`.json`, `.jpg`, 1–5 letters) is matched on its stem
/// and keeps the extension: `/img/12345.jpg` → `/img/{id}.jpg`. Anything else is kept as is (words,
/// versions such as `v2`, short mixed ids such as `a1b2`). An absolute-form target
/// (`http://host/path`) is reduced to its path; an empty path is `/`; `*` (OPTIONS) stays `*`.
package enum PathTemplate {
    /// The template of `target` (a request target as sent: origin form, absolute form or `*`).
    package static func template(of target: String) -> String {
        var path = Substring(target)
        if let schemeEnd = path.firstRange(of: "://") {
            let afterAuthority = path[schemeEnd.upperBound...].drop { $0 != "/" && $0 != "?" && $0 != "#" }
            path = afterAuthority
        }
        path = path.prefix { $0 != "?" && $0 != "#" }
        if path == "*" { return "*" }
        if path.isEmpty { return "/" }
        return path.split(separator: "/", omittingEmptySubsequences: false).map(fold).joined(separator: "/")
    }

    /// The placeholder for one segment, or the segment itself.
    static func fold(_ segment: Substring) -> String {
        if segment.isEmpty { return "" }
        if let placeholder = placeholder(for: segment) { return placeholder }
        // `name.ext`: fold the stem, keep a short alphabetic extension.
        if let dot = segment.lastIndex(of: "."), dot != segment.startIndex {
            let stem = segment[..<dot], ext = segment[segment.index(after: dot)...]
            if (1...5).contains(ext.count), ext.utf8.allSatisfy(isLetter), let placeholder = placeholder(for: stem) {
                return placeholder + "." + ext
            }
        }
        return String(segment)
    }

    private static func placeholder(for segment: Substring) -> String? {
        let bytes = Array(segment.utf8)
        if isInteger(bytes) { return "{id}" }
        if isUUID(bytes) { return "{uuid}" }
        if isDate(bytes) { return "{date}" }
        let hasDigit = bytes.contains(where: isDigit)
        if bytes.count >= 16, hasDigit, bytes.allSatisfy(isHex), bytes.contains(where: { isHex($0) && !isDigit($0) }) {
            return "{hash}"
        }
        if bytes.count >= 20, hasDigit, bytes.contains(where: isLetter), bytes.allSatisfy(isTokenCharacter) {
            return "{token}"
        }
        return nil
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
    private static func isHex(_ byte: UInt8) -> Bool { isDigit(byte) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x66) }
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        isDigit(byte) || isLetter(byte) || byte == 0x2D || byte == 0x5F || byte == 0x3D || byte == 0x2E || byte == 0x7E
    }

    private static func isInteger(_ bytes: [UInt8]) -> Bool {
        let digits = bytes.first == 0x2D ? bytes.dropFirst() : bytes[...]
        return !digits.isEmpty && digits.allSatisfy(isDigit)
    }

    private static func isUUID(_ bytes: [UInt8]) -> Bool {
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) { if byte != 0x2D { return false } } else if !isHex(byte) { return false }
        }
        return true
    }

    private static func isDate(_ bytes: [UInt8]) -> Bool {
        guard bytes.count == 10, bytes[4] == 0x2D, bytes[7] == 0x2D else { return false }
        return bytes.enumerated().allSatisfy { $0.offset == 4 || $0.offset == 7 || isDigit($0.element) }
    }
}

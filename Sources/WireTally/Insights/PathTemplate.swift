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
///
/// It reads the target's UTF-8 bytes (`/`, `?`, `#`, `.` and `://` are ASCII: a cut never splits a
/// character; a combining mark after one of them does not hide it): no `Character` or `Substring` per
/// segment, as `--summary` computes it for every request.
package enum PathTemplate {
    /// The template of `target` (a request target as sent: origin form, absolute form or `*`).
    package static func template(of target: String) -> String {
        var target = target
        return target.withUTF8(template(ofUTF8:))
    }

    private static func template(ofUTF8 target: UnsafeBufferPointer<UInt8>) -> String {
        var start = 0, end = target.count
        if let schemeEnd = indexAfter(schemeSeparatorIn: target) {
            start = schemeEnd
            while start < end, target[start] != slash, target[start] != question, target[start] != hash { start += 1 }
        }
        var pathEnd = start
        while pathEnd < end, target[pathEnd] != question, target[pathEnd] != hash { pathEnd += 1 }
        end = pathEnd
        if end - start == 1, target[start] == UInt8(ascii: "*") { return "*" }
        if end == start { return "/" }
        var output: [UInt8] = []
        output.reserveCapacity(end - start + 16)
        var segmentStart = start
        for index in start...end where index == end || target[index] == slash {
            if segmentStart > start { output.append(slash) }
            fold(UnsafeBufferPointer(rebasing: target[segmentStart..<index]), into: &output)
            segmentStart = index + 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Where the first `://` of `target` ends, if it has one.
    private static func indexAfter(schemeSeparatorIn target: UnsafeBufferPointer<UInt8>) -> Int? {
        guard target.count >= 3 else { return nil }
        for index in 0...(target.count - 3)
        where target[index] == UInt8(ascii: ":") && target[index + 1] == slash && target[index + 2] == slash {
            return index + 3
        }
        return nil
    }

    /// Appends the placeholder for one segment, or the segment itself.
    private static func fold(_ segment: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) {
        if segment.isEmpty { return }
        if let placeholder = placeholder(for: segment) { return append(placeholder, to: &output) }
        // `name.ext`: fold the stem, keep a short alphabetic extension.
        if let dot = segment.lastIndex(of: UInt8(ascii: ".")), dot != 0 {
            let stem = UnsafeBufferPointer(rebasing: segment[..<dot]), ext = segment[(dot + 1)...]
            if (1...5).contains(ext.count), ext.allSatisfy(isLetter), let placeholder = placeholder(for: stem) {
                append(placeholder, to: &output)
                output.append(UInt8(ascii: "."))
                output.append(contentsOf: ext)
                return
            }
        }
        output.append(contentsOf: segment)
    }

    private static func append(_ text: StaticString, to output: inout [UInt8]) {
        output.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private static let slash = UInt8(ascii: "/"), question = UInt8(ascii: "?"), hash = UInt8(ascii: "#")

    private static func placeholder(for bytes: UnsafeBufferPointer<UInt8>) -> StaticString? {
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

    private static func isInteger(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let digits = bytes.first == 0x2D ? bytes.dropFirst() : bytes[...]
        return !digits.isEmpty && digits.allSatisfy(isDigit)
    }

    private static func isUUID(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 { if byte != 0x2D { return false } } else if !isHex(byte) { return false }
        }
        return true
    }

    private static func isDate(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == 10, bytes[4] == 0x2D, bytes[7] == 0x2D else { return false }
        return bytes.enumerated().allSatisfy { $0.offset == 4 || $0.offset == 7 || isDigit($0.element) }
    }
}

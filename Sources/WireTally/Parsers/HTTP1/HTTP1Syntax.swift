import Glibc

/// Byte-level syntax of HTTP/1.x start lines, header lines and chunk-size lines.
enum HTTP1Syntax {
    static let cr: UInt8 = 0x0d
    static let lf: UInt8 = 0x0a
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    /// The longest method a start line may have: a longer run of method bytes is not a request line.
    static let maxMethodLength = 32

    /// `tchar` of RFC 9110 §5.6.2.
    static func isTokenChar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// Method characters accepted when looking for a message start in unknown data: upper-case
    /// letters, `-` and `_` (every registered method), so binary data is rejected within a few bytes.
    static func isStrictMethodChar(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: "_")
    }

    /// Chunk sizes above this are treated as malformed (no overflow on `ffffffffffffffffffff`).
    static let maxChunkSize: Int64 = 1 << 62

    /// The size of a chunk-size line (`hex [BWS] [; extensions] CRLF`), nil when malformed.
    static func chunkSize(_ line: UnsafeRawBufferPointer) -> Int64? {
        var index = 0
        var value: Int64 = 0
        var digits = 0
        while index < line.count, let digit = HexDigit.value(line[index]) {
            if value > maxChunkSize >> 4 { return nil }
            value = value << 4 | Int64(digit)
            digits += 1
            index += 1
        }
        guard digits > 0, value <= maxChunkSize else { return nil }
        while index < line.count && (line[index] == space || line[index] == tab) { index += 1 }
        guard index < line.count else { return nil }
        switch line[index] {
        case UInt8(ascii: ";"): return value
        case cr: return index + 2 == line.count ? value : nil
        case lf: return value
        default: return nil
        }
    }

    /// The line without its CRLF or LF.
    static func content(_ line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        guard let start = line.baseAddress else { return line }
        var end = line.count
        if end > 0 && start.load(fromByteOffset: end &- 1, as: UInt8.self) == lf { end &-= 1 }
        if end > 0 && start.load(fromByteOffset: end &- 1, as: UInt8.self) == cr { end &-= 1 }
        return UnsafeRawBufferPointer(start: start, count: end)
    }

    /// The text of a message's start-line token (method, target, version, reason phrase) or its
    /// `Content-Encoding` (`HTTPMessageTexts`): the common ones are the string literals they equal (no
    /// UTF-8 check or copy: every request and response has two or three of them), any other is
    /// `String(decoding:as:)`'s.
    static func token(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> String {
        let token = UnsafeRawBufferPointer(rebasing: bytes[range])
        switch token.count {
        case 2:
            if same(token, "OK") { return "OK" }
            if same(token, "br") { return "br" }
        case 3:
            if same(token, "GET") { return "GET" }
            if same(token, "PUT") { return "PUT" }
        case 4:
            if same(token, "POST") { return "POST" }
            if same(token, "HEAD") { return "HEAD" }
            if same(token, "gzip") { return "gzip" }
            if same(token, "zstd") { return "zstd" }
        case 5:
            if same(token, "PATCH") { return "PATCH" }
            if same(token, "Found") { return "Found" }
        case 6: if same(token, "DELETE") { return "DELETE" }
        case 7:
            if same(token, "OPTIONS") { return "OPTIONS" }
            if same(token, "Created") { return "Created" }
            if same(token, "deflate") { return "deflate" }
        case 8:
            if same(token, "HTTP/1.1") { return "HTTP/1.1" }
            if same(token, "HTTP/1.0") { return "HTTP/1.0" }
            if same(token, "identity") { return "identity" }
        case 9: if same(token, "Not Found") { return "Not Found" }
        case 10: if same(token, "No Content") { return "No Content" }
        case 12: if same(token, "Not Modified") { return "Not Modified" }
        default: break
        }
        return String(decoding: token, as: UTF8.self)
    }

    /// Byte-for-byte equality with a literal (case-sensitive, lengths compared first).
    static func equals(_ bytes: UnsafeRawBufferPointer, _ literal: StaticString) -> Bool {
        bytes.count == literal.utf8CodeUnitCount && same(bytes, literal)
    }

    /// Byte-for-byte equality with a literal of the same length.
    private static func same(_ bytes: UnsafeRawBufferPointer, _ literal: StaticString) -> Bool {
        memcmp(bytes.baseAddress!, literal.utf8Start, bytes.count) == 0
    }

    /// The name and the value (without surrounding whitespace) of a header line `name: value`; nil
    /// without a colon.
    static func headerFields(_ line: UnsafeRawBufferPointer) -> (name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
        headerFields(content: content(line))
    }

    /// `headerFields(_:)` of a line's `content` (without its line end).
    static func headerFields(content text: UnsafeRawBufferPointer) -> (name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)? {
        guard let start = text.baseAddress, let found = memchr(start, Int32(UInt8(ascii: ":")), text.count) else { return nil }
        // On the raw bytes (every index stays within the line): one header line per call, the hot loop
        // of header blocks.
        let bytes = start.assumingMemoryBound(to: UInt8.self)
        let colon = UnsafeRawPointer(found) - start
        guard colon > 0 else { return nil }
        func isBlank(_ byte: UInt8) -> Bool { byte == space || byte == tab }
        var nameEnd = colon
        while nameEnd > 0 && isBlank(bytes[nameEnd &- 1]) { nameEnd &-= 1 }
        var valueStart = colon &+ 1
        var valueEnd = text.count
        while valueStart < valueEnd && isBlank(bytes[valueStart]) { valueStart &+= 1 }
        while valueEnd > valueStart && isBlank(bytes[valueEnd &- 1]) { valueEnd &-= 1 }
        return (UnsafeRawBufferPointer(start: start, count: nameEnd),
                UnsafeRawBufferPointer(start: start + valueStart, count: valueEnd &- valueStart))
    }

    /// The header of the fields found by `headerFields`.
    static func header(_ fields: (name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)) -> HTTPHeader {
        HTTPHeader(name: String(decoding: fields.name, as: UTF8.self), value: String(decoding: fields.value, as: UTF8.self))
    }

    /// A header line `name: value` (value without surrounding whitespace); nil without a colon.
    static func header(_ line: UnsafeRawBufferPointer) -> HTTPHeader? {
        headerFields(line).map(header)
    }

    /// ASCII case-insensitive comparison of raw bytes with a lower-case literal.
    static func bytesEqual(_ bytes: UnsafeRawBufferPointer, _ lowercased: StaticString) -> Bool {
        guard bytes.count == lowercased.utf8CodeUnitCount else { return false }
        let literal = lowercased.utf8Start
        for index in 0..<bytes.count {
            let x = bytes[index]
            let folded = x >= UInt8(ascii: "A") && x <= UInt8(ascii: "Z") ? x + 32 : x
            if folded != literal[index] { return false }
        }
        return true
    }

    /// Reads a `Content-Length` value, a comma-separated list of decimal lengths (whitespace around
    /// each allowed), into `length`; sets `invalid` for an item that is not a length (empty, not only
    /// digits, more than 19 digits, above `maxChunkSize`) or a length other than one seen before.
    static func readContentLength(_ value: UnsafeRawBufferPointer, into length: inout Int64?, invalid: inout Bool) {
        forEachListItem(value, omittingEmpty: false) { item in
            if let parsed = decimalLength(item) {
                if let length, length != parsed { invalid = true }
                length = parsed
            } else {
                invalid = true
            }
        }
    }

    /// The last transfer coding a `Transfer-Encoding` value names (comma-separated, whitespace around
    /// each, empty items skipped): nil when it names none, else whether that coding is `chunked`
    /// (ASCII case-insensitive).
    static func lastCodingIsChunked(_ value: UnsafeRawBufferPointer) -> Bool? {
        var last: Bool?
        forEachListItem(value, omittingEmpty: true) { last = bytesEqual($0, "chunked") }
        return last
    }

    /// Calls `body` with each item of a comma-separated list, without the spaces and tabs around it.
    private static func forEachListItem(
        _ list: UnsafeRawBufferPointer, omittingEmpty: Bool, _ body: (UnsafeRawBufferPointer) -> Void
    ) {
        var itemStart = 0
        while itemStart <= list.count {
            var itemEnd = itemStart
            while itemEnd < list.count && list[itemEnd] != UInt8(ascii: ",") { itemEnd += 1 }
            var first = itemStart
            var last = itemEnd
            while first < last && (list[first] == space || list[first] == tab) { first += 1 }
            while last > first && (list[last - 1] == space || list[last - 1] == tab) { last -= 1 }
            if !omittingEmpty || first < last { body(UnsafeRawBufferPointer(rebasing: list[first..<last])) }
            itemStart = itemEnd + 1
        }
    }

    /// 1 to 19 decimal digits up to `maxChunkSize`, else nil.
    private static func decimalLength(_ digits: UnsafeRawBufferPointer) -> Int64? {
        guard !digits.isEmpty && digits.count <= 19 else { return nil }
        var value: UInt64 = 0
        for digit in digits {
            guard digit >= UInt8(ascii: "0") && digit <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + UInt64(digit - UInt8(ascii: "0"))
        }
        return value <= UInt64(maxChunkSize) ? Int64(value) : nil
    }

    /// ASCII case-insensitive comparison of two header names (or tokens), byte by byte: only letters
    /// fold (`[` is not `{`).
    static func asciiCaseInsensitiveEqual(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        for index in 0..<a.count {
            let x = a[index], y = b[index]
            guard x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= UInt8(ascii: "a") && (x | 0x20) <= UInt8(ascii: "z")) else {
                return false
            }
        }
        return true
    }
}

/// Where the tokens of a start line lie: the spaces after a request's method and target (a response's
/// tokens lie at fixed places); `length` is the whole line's, its line end included.
struct StartLineTokens {
    var length: Int
    var methodEnd: Int
    var targetEnd: Int
}

extension HTTP1Syntax {
    /// The start line at the start of `p[0..<n]` when it lies there whole in its usual shape —
    /// `method SP target SP HTTP/1.d` or `HTTP/1.d SP 3DIGIT [SP reason]`, then CRLF or LF, within
    /// `maxLength` bytes — read straight to its tokens; nil for anything else (a line cut short, an
    /// empty line before it, `HTTP/1.` without its digit, or a line `StartLineSniffer` rejects), which
    /// the sniffer then checks byte by byte. A line taken here is one the sniffer accepts with the same
    /// length, from its reset state (`StartLineSnifferTests` checks every single-byte change of such
    /// lines): the same byte classes, the same method cap (`maxMethodLength`), the same length cap.
    static func wholeStartLine(_ p: UnsafePointer<UInt8>, _ n: Int, isResponse: Bool, strict: Bool, maxLength: Int) -> StartLineTokens? {
        let n = min(n, maxLength)
        var i = 0
        var methodEnd = 0, targetEnd = 0
        if isResponse {
            guard n >= 13, isVersion(p), p[8] == space, isDigit(p[9]), isDigit(p[10]), isDigit(p[11]) else { return nil }
            i = 12
            if p[i] == space {
                i += 1
                while i < n, p[i] >= 0x20 || p[i] == tab { i += 1 }
            }
        } else {
            while i < n, i < maxMethodLength, strict ? isStrictMethodChar(p[i]) : isTokenChar(p[i]) { i += 1 }
            guard i > 0, i < n, p[i] == space else { return nil }
            methodEnd = i
            i += 1
            let targetStart = i
            while i < n, p[i] > 0x20, p[i] != 0x7f { i += 1 }
            guard i > targetStart, n - i >= 10, p[i] == space, isVersion(p + i + 1) else { return nil }
            targetEnd = i
            i += 9
        }
        guard i < n else { return nil }
        if p[i] == lf { return StartLineTokens(length: i + 1, methodEnd: methodEnd, targetEnd: targetEnd) }
        guard p[i] == cr, i + 1 < n, p[i + 1] == lf else { return nil }
        return StartLineTokens(length: i + 2, methodEnd: methodEnd, targetEnd: targetEnd)
    }

    /// `HTTP/1.d` at `p` (8 bytes there).
    private static func isVersion(_ p: UnsafePointer<UInt8>) -> Bool {
        UnsafeRawPointer(p).loadUnaligned(as: UInt64.self) & 0x00ff_ffff_ffff_ffff == 0x002e_312f_5054_5448 && isDigit(p[7])
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}

/// Checks a start line byte by byte, so a split line and a line in one piece give the same verdict and
/// garbage is rejected as soon as a byte cannot belong to a start line.
///
/// Requests: `method SP target SP HTTP/1.d CRLF`; responses: `HTTP/1.d SP 3DIGIT [SP reason] CRLF`
/// (bare LF accepted). Empty lines before the start line are accepted (and counted with it).
struct StartLineSniffer {
    enum Verdict { case needMore, accepted, rejected }
    private enum Phase { case begin, leadingCR, method, target, version, lineEnd, responseVersion, space, status, afterStatus, reason }

    let isResponse: Bool
    /// Method characters limited to `A-Z - _` (looking for a start in unknown data).
    var strict: Bool
    let maxLength: Int
    private var phase = Phase.begin
    private var count = 0
    private var sawCR = false
    /// Bytes fed since the last reset.
    private(set) var total = 0
    /// Bytes of empty lines before the start line.
    private(set) var leading = 0

    init(isResponse: Bool, strict: Bool, maxLength: Int) {
        self.isResponse = isResponse
        self.strict = strict
        self.maxLength = maxLength
    }

    /// The line ran past `maxLength` (rejected for its length, not its content).
    var isOverLength: Bool { total > maxLength }

    /// Nothing fed since the last reset.
    var isFresh: Bool { total == 0 }
    /// Only empty lines (or nothing) fed so far.
    var atLineStart: Bool { phase == .begin }

    mutating func reset(strict: Bool) {
        self.strict = strict
        phase = .begin
        count = 0
        sawCR = false
        total = 0
        leading = 0
    }

    /// Computed: a stored static would be checked for its one-time initialisation on every byte.
    private static var versionPattern: StaticString { "HTTP/0.0" }

    private static func versionByteMatches(_ byte: UInt8, at index: Int) -> Bool {
        // HTTP/1.x only: `PRI * HTTP/2.0` (the HTTP/2 preface) is not an HTTP/1 start line.
        if index == 5 { return byte == UInt8(ascii: "1") }
        if index == 7 { return isDigit(byte) }
        return index < 8 && byte == versionPattern.utf8Start[index]
    }

    /// Feeds `bytes` one by one until one gives a verdict: how many were fed (that one included) and
    /// the verdict, or all of them and `.needMore`.
    mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) -> (fed: Int, verdict: Verdict) {
        var index = 0
        while index < bytes.count {
            // The version of a request line with its CRLF, and a response's version and status code:
            // when all their bytes are there and well-formed, taken at once (the byte-wise check would
            // reach the same phase); anything else goes byte by byte.
            if phase == .version && count == 0, let taken = requestVersionRun(bytes, from: index) {
                return (index + taken, .accepted)
            }
            if phase == .responseVersion && count == 1, let taken = responseVersionRun(bytes, from: index) {
                index += taken
                continue
            }
            // The target and the reason phrase are most of a start line: their plain bytes (those the
            // byte-wise check takes without a change of phase) are taken in one run, up to the length
            // cap; the byte that ends the run goes through `feed(_:)`.
            if phase == .target || phase == .reason {
                let end = min(bytes.count, index + max(0, maxLength - total))
                var run = index
                if phase == .target {
                    while run < end, bytes[run] > 0x20, bytes[run] != 0x7f { run += 1 }
                    count += run - index
                } else {
                    while run < end, bytes[run] >= 0x20 || bytes[run] == HTTP1Syntax.tab { run += 1 }
                }
                total += run - index
                index = run
                if index == bytes.count { break }
            }
            let verdict = feed(bytes[index])
            index += 1
            if verdict != .needMore { return (index, verdict) }
        }
        return (bytes.count, .needMore)
    }

    /// `HTTP/1.d CRLF` at `index` within the length cap: the bytes taken (the line is accepted), else nil.
    private mutating func requestVersionRun(_ bytes: UnsafeBufferPointer<UInt8>, from index: Int) -> Int? {
        let length = 10
        guard bytes.count - index >= length, total + length <= maxLength, Self.isVersion(bytes, at: index),
              bytes[index + 8] == HTTP1Syntax.cr, bytes[index + 9] == HTTP1Syntax.lf
        else { return nil }
        total += length
        phase = .lineEnd
        sawCR = true
        return length
    }

    /// `TTP/1.d SP 3DIGIT` at `index` (after a response's `H`) within the length cap: the bytes taken
    /// (the status code is read), else nil.
    private mutating func responseVersionRun(_ bytes: UnsafeBufferPointer<UInt8>, from index: Int) -> Int? {
        let length = 11
        guard bytes.count - index >= length, total + length <= maxLength, Self.isVersion(bytes, at: index - 1, skippingFirst: true),
              bytes[index + 7] == HTTP1Syntax.space, Self.isDigit(bytes[index + 8]), Self.isDigit(bytes[index + 9]),
              Self.isDigit(bytes[index + 10])
        else { return nil }
        total += length
        phase = .afterStatus
        count = 3
        return length
    }

    /// Whether the 8 bytes at `index` are `HTTP/1.d`, byte by byte as `versionByteMatches` decides (the
    /// first one not looked at when skipped).
    private static func isVersion(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, skippingFirst: Bool = false) -> Bool {
        var position = skippingFirst ? 1 : 0
        while position < 8 {
            guard versionByteMatches(bytes[index + position], at: position) else { return false }
            position += 1
        }
        return true
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    mutating func feed(_ byte: UInt8) -> Verdict {
        total += 1
        if total > maxLength { return .rejected }
        switch phase {
        case .begin:
            if byte == HTTP1Syntax.cr {
                phase = .leadingCR
                return .needMore
            }
            if byte == HTTP1Syntax.lf {
                leading = total
                return .needMore
            }
            if isResponse {
                guard byte == UInt8(ascii: "H") else { return .rejected }
                phase = .responseVersion
            } else {
                guard strict ? HTTP1Syntax.isStrictMethodChar(byte) : HTTP1Syntax.isTokenChar(byte) else {
                    return .rejected
                }
                phase = .method
            }
            count = 1
        case .leadingCR:
            guard byte == HTTP1Syntax.lf else { return .rejected }
            leading = total
            phase = .begin
        case .method:
            if byte == HTTP1Syntax.space {
                phase = .target
                count = 0
            } else if count < HTTP1Syntax.maxMethodLength, strict ? HTTP1Syntax.isStrictMethodChar(byte) : HTTP1Syntax.isTokenChar(byte) {
                count += 1
            } else {
                return .rejected
            }
        case .target:
            if byte == HTTP1Syntax.space && count > 0 {
                phase = .version
                count = 0
            } else if byte > 0x20 && byte != 0x7f {
                count += 1
            } else {
                return .rejected
            }
        case .version, .responseVersion:
            if phase == .version && count == 7 && (byte == HTTP1Syntax.cr || byte == HTTP1Syntax.lf) {
                // `GET / HTTP/1.` (no minor digit): servers answer it and Zeek logs it as a request.
                return lineEnd(byte)
            }
            guard Self.versionByteMatches(byte, at: count) else { return .rejected }
            count += 1
            if count == 8 {
                phase = phase == .version ? .lineEnd : .space
                count = 0
            }
        case .space:
            guard byte == HTTP1Syntax.space else { return .rejected }
            phase = .status
        case .status:
            guard Self.isDigit(byte) else { return .rejected }
            count += 1
            if count == 3 { phase = .afterStatus }
        case .afterStatus:
            if byte == HTTP1Syntax.space { phase = .reason } else { return lineEnd(byte) }
        case .reason:
            if byte == HTTP1Syntax.cr || byte == HTTP1Syntax.lf { return lineEnd(byte) }
            guard byte >= 0x20 || byte == HTTP1Syntax.tab else { return .rejected }
        case .lineEnd:
            return lineEnd(byte)
        }
        return .needMore
    }

    private mutating func lineEnd(_ byte: UInt8) -> Verdict {
        phase = .lineEnd
        if byte == HTTP1Syntax.lf { return .accepted }
        if byte == HTTP1Syntax.cr && !sawCR {
            sawCR = true
            return .needMore
        }
        return .rejected
    }
}

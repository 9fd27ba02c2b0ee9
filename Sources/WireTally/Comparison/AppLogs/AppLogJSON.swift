#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small JSON reader for app logs (not on the per-packet path): RFC 8259 text into `JSONValue`.
/// Integers that fit `Int` become `.integer`; every other number `.number` with its text.
enum AppLogJSON {
    struct SyntaxError: Error, Equatable {
        var offset: Int
        var reason: String
    }

    /// Parses one JSON text (surrounding whitespace allowed).
    static func parse(_ bytes: ArraySlice<UInt8>) throws -> JSONValue {
        var parser = Parser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.endIndex else { throw SyntaxError(offset: parser.index, reason: "trailing characters") }
        return value
    }

    static func parse(_ text: String) throws -> JSONValue { try parse(ArraySlice(Array(text.utf8))) }

    private struct Parser {
        let bytes: ArraySlice<UInt8>
        var index: Int
        init(bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            index = bytes.startIndex
        }

        static let maxDepth = 256

        mutating func skipWhitespace() {
            while index < bytes.endIndex, [0x20, 0x09, 0x0a, 0x0d].contains(bytes[index]) { index += 1 }
        }

        func fail(_ reason: String) -> SyntaxError { SyntaxError(offset: index, reason: reason) }

        mutating func value(depth: Int) throws -> JSONValue {
            guard depth < Self.maxDepth else { throw fail("nested too deeply") }
            guard index < bytes.endIndex else { throw fail("unexpected end") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var members: [(String, JSONValue)] = []
                skipWhitespace()
                if index < bytes.endIndex, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                while true {
                    skipWhitespace()
                    guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a key") }
                    let key = try string()
                    skipWhitespace()
                    try expect(UInt8(ascii: ":"))
                    skipWhitespace()
                    members.append((key, try value(depth: depth + 1)))
                    skipWhitespace()
                    guard index < bytes.endIndex else { throw fail("unexpected end") }
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    try expect(UInt8(ascii: "}"))
                    return .object(members)
                }
            case UInt8(ascii: "["):
                index += 1
                var values: [JSONValue] = []
                skipWhitespace()
                if index < bytes.endIndex, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(values) }
                while true {
                    skipWhitespace()
                    values.append(try value(depth: depth + 1))
                    skipWhitespace()
                    guard index < bytes.endIndex else { throw fail("unexpected end") }
                    if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    try expect(UInt8(ascii: "]"))
                    return .array(values)
                }
            case UInt8(ascii: "\""):
                return .string(try string())
            case UInt8(ascii: "t"):
                try literal("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try literal("null")
                return .null
            default:
                return try number()
            }
        }

        mutating func expect(_ byte: UInt8) throws {
            guard index < bytes.endIndex, bytes[index] == byte else { throw fail("expected '\(Character(UnicodeScalar(byte)))'") }
            index += 1
        }

        mutating func literal(_ word: String) throws {
            for byte in word.utf8 { try expect(byte) }
        }

        mutating func number() throws -> JSONValue {
            let start = index
            var integral = true
            if index < bytes.endIndex, bytes[index] == UInt8(ascii: "-") { index += 1 }
            let digitsStart = index
            while index < bytes.endIndex, (0x30...0x39).contains(bytes[index]) { index += 1 }
            guard index > digitsStart else { throw fail("invalid value") }
            if index < bytes.endIndex, bytes[index] == UInt8(ascii: ".") {
                integral = false
                index += 1
                let fraction = index
                while index < bytes.endIndex, (0x30...0x39).contains(bytes[index]) { index += 1 }
                guard index > fraction else { throw fail("invalid number") }
            }
            if index < bytes.endIndex, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                integral = false
                index += 1
                if index < bytes.endIndex, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                let exponent = index
                while index < bytes.endIndex, (0x30...0x39).contains(bytes[index]) { index += 1 }
                guard index > exponent else { throw fail("invalid number") }
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            if integral, let value = Int(text) { return .integer(value) }
            return .number(text)
        }

        mutating func string() throws -> String {
            index += 1  // opening quote
            var scalars = String.UnicodeScalarView()
            var runStart = index
            func flushRun(_ end: Int) {
                if end > runStart { scalars.append(contentsOf: String(decoding: bytes[runStart..<end], as: UTF8.self).unicodeScalars) }
            }
            while true {
                guard index < bytes.endIndex else { throw fail("unterminated string") }
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    flushRun(index)
                    index += 1
                    return String(scalars)
                }
                if byte == UInt8(ascii: "\\") {
                    flushRun(index)
                    index += 1
                    guard index < bytes.endIndex else { throw fail("unterminated string") }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""): scalars.append("\"")
                    case UInt8(ascii: "\\"): scalars.append("\\")
                    case UInt8(ascii: "/"): scalars.append("/")
                    case UInt8(ascii: "b"): scalars.append("\u{08}")
                    case UInt8(ascii: "f"): scalars.append("\u{0C}")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "u"):
                        var code = try hex4()
                        if (0xD800..<0xDC00).contains(code), index + 1 < bytes.endIndex,
                           bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                            let save = index
                            index += 2
                            let low = try hex4()
                            if (0xDC00..<0xE000).contains(low) {
                                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                            } else {
                                index = save
                            }
                        }
                        scalars.append(UnicodeScalar(code) ?? "\u{FFFD}")
                    default: throw fail("invalid escape")
                    }
                    runStart = index
                    continue
                }
                index += 1
            }
        }

        mutating func hex4() throws -> UInt32 {
            guard index + 4 <= bytes.endIndex else { throw fail("invalid \\u escape") }
            var code: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt32
                switch byte {
                case 0x30...0x39: digit = UInt32(byte - 0x30)
                case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
                case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
                default: throw fail("invalid \\u escape")
                }
                code = code << 4 | digit
                index += 1
            }
            return code
        }
    }
}

extension JSONValue {
    /// A member of an object (nil for other values or a missing key).
    func appMember(_ key: String) -> JSONValue? {
        if case let .object(members) = self { return members.first { $0.0 == key }?.1 }
        return nil
    }

    /// The member at a dotted path.
    func appPath(_ path: String) -> JSONValue? {
        var value: JSONValue? = self
        for key in path.split(separator: ".") { value = value?.appMember(String(key)) }
        return value
    }

    /// A number (also a numeric string) as a Double.
    var appDouble: Double? {
        switch self {
        case let .integer(value): return Double(value)
        case let .number(text): return Double(text)
        case let .string(text): return Double(text)
        default: return nil
        }
    }

    /// A number as an Int (a fractional number is rounded).
    var appInt: Int? {
        if case let .integer(value) = self { return value }
        return appDouble.flatMap { $0.isFinite && abs($0) < 9e18 ? Int($0.rounded()) : nil }
    }

    var appString: String? {
        if case let .string(text) = self { return text }
        return nil
    }

    var appArray: [JSONValue]? {
        if case let .array(values) = self { return values }
        return nil
    }

    var appIsObject: Bool {
        if case .object = self { return true }
        return false
    }
}

/// Reads a whole file into bytes (app logs are small next to captures).
enum AppLogFile {
    static func read(_ path: String) throws -> [UInt8] {
        guard let file = fopen(path, "rb") else {
            throw AppLogError.cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if count > 0 { bytes.append(contentsOf: buffer[0..<count]) }
            if count < buffer.count {
                if ferror(file) != 0 { throw AppLogError.cannotOpen(path: path, reason: "read error") }
                break
            }
        }
        return bytes
    }

    /// The non-empty lines with their 1-based line numbers (CRLF or LF).
    static func lines(_ bytes: [UInt8]) -> [(number: Int, bytes: ArraySlice<UInt8>)] {
        var result: [(Int, ArraySlice<UInt8>)] = []
        var number = 0
        for line in bytes.split(separator: 0x0a, omittingEmptySubsequences: false) {
            number += 1
            var slice = line
            while let last = slice.last, last == 0x0d || last == 0x20 || last == 0x09 { slice = slice.dropLast() }
            while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
            if !slice.isEmpty { result.append((number, slice)) }
        }
        return result
    }

    /// The non-empty lines parsed as JSON objects with their line numbers (JSON Lines); a line that is
    /// not a JSON object is an error naming the file, line and column.
    static func jsonObjects(_ bytes: [UInt8], path: String) throws -> [(number: Int, line: ArraySlice<UInt8>, object: JSONValue)] {
        try lines(bytes).map { number, line in
            let object: JSONValue
            do {
                object = try AppLogJSON.parse(line)
            } catch let error as AppLogJSON.SyntaxError {
                throw AppLogError.malformed(
                    path: path, line: number, reason: "JSON error at column \(error.offset - line.startIndex + 1): \(error.reason)")
            }
            guard object.appIsObject else { throw AppLogError.malformed(path: path, line: number, reason: "not a JSON object") }
            return (number, line, object)
        }
    }
}

/// Why an app log could not be read.
package enum AppLogError: Error, Equatable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    /// The content is none of the formats `AppLogFormat` knows.
    case unknownFormat(path: String)
    /// The file is in a known format but broken at `line` (1-based line, or HAR entry index).
    case malformed(path: String, line: Int, reason: String)

    package var description: String {
        switch self {
        case let .cannotOpen(path, reason): return "\(path): cannot open: \(reason)"
        case let .unknownFormat(path): return "\(path): not a HAR, curl --write-out '%{json}' or wiretally app log"
        case let .malformed(path, line, reason): return "\(path):\(line): \(reason)"
        }
    }
}

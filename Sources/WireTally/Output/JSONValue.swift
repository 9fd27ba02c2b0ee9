/// A JSON value with ordered object keys: records are built as a tree once, then written as JSON or
/// flattened into CSV columns, so each field name is spelled in one place.
public enum JSONValue: Equatable, Sendable {
    case object([(String, JSONValue)])
    case array([JSONValue])
    case string(String)
    case integer(Int)
    /// A number already formatted (e.g. a timestamp with the capture's precision).
    case number(String)
    case bool(Bool)
    case null

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        lhs.serialized == rhs.serialized
    }

    /// Compact JSON text.
    public var serialized: String {
        var bytes: [UInt8] = []
        write(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends compact JSON text as UTF-8 bytes (numbers formatted and strings escaped byte-wise,
    /// without building `String`s).
    public func write(to bytes: inout [UInt8]) {
        switch self {
        case let .object(members):
            bytes.append(UInt8(ascii: "{"))
            for index in members.indices {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONValue.writeString(members[index].0, to: &bytes)
                bytes.append(UInt8(ascii: ":"))
                members[index].1.write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "}"))
        case let .array(values):
            bytes.append(UInt8(ascii: "["))
            for index in values.indices {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                values[index].write(to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        case let .string(string): JSONValue.writeString(string, to: &bytes)
        case let .integer(value): JSONValue.writeInteger(value, to: &bytes)
        case let .number(literal): bytes.append(contentsOf: literal.utf8)
        case let .bool(value): bytes.append(contentsOf: value ? JSONValue.trueBytes : JSONValue.falseBytes)
        case .null: bytes.append(contentsOf: JSONValue.nullBytes)
        }
    }

    /// Member `key` of an object.
    public subscript(key: String) -> JSONValue? {
        guard case let .object(members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// Leaf values keyed by their path joined with `_` (`up.ip_bytes` → `up_ip_bytes`); arrays of
    /// scalars become one `;`-joined value.
    public func flattened(prefix: String = "") -> [(String, String)] {
        switch self {
        case let .object(members):
            return members.flatMap { key, value in
                value.flattened(prefix: prefix.isEmpty ? key : "\(prefix)_\(key)")
            }
        case let .array(values):
            return [(prefix, values.map(\.plainText).joined(separator: ";"))]
        default:
            return [(prefix, plainText)]
        }
    }

    /// The value as plain text (strings unquoted, null empty).
    public var plainText: String {
        switch self {
        case let .string(string): return string
        case .null: return ""
        default: return serialized
        }
    }

    private static let trueBytes: [UInt8] = Array("true".utf8)
    private static let falseBytes: [UInt8] = Array("false".utf8)
    private static let nullBytes: [UInt8] = Array("null".utf8)
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// A JSON string: `"`, `\`, LF, CR and tab get their short escapes, other control characters
    /// `\u00XX`; every other byte (UTF-8 included) is copied as is.
    private static func writeString(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            var plainStart = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainStart..<index]))
                plainStart = index + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
                case UInt8(ascii: "\n"): bytes.append(UInt8(ascii: "n"))
                case UInt8(ascii: "\r"): bytes.append(UInt8(ascii: "r"))
                case UInt8(ascii: "\t"): bytes.append(UInt8(ascii: "t"))
                default:
                    bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                    bytes.append(hexDigits[Int(byte >> 4)])
                    bytes.append(hexDigits[Int(byte & 0x0f)])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// A decimal integer, formatted without a `String`.
    static func writeInteger(_ value: Int, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        if magnitude < 10 { return bytes.append(UInt8(ascii: "0") + UInt8(magnitude)) }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // up to 20 digits, written backwards
        let count = withUnsafeMutableBytes(of: &digits) { buffer -> Int in
            var end = buffer.count
            while magnitude > 0 {
                end -= 1
                buffer[end] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            return end
        }
        withUnsafeBytes(of: &digits) { bytes.append(contentsOf: $0[count...]) }
    }
}

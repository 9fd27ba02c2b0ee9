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
        var text = ""
        write(to: &text)
        return text
    }

    /// Appends compact JSON text.
    public func write(to text: inout String) {
        switch self {
        case let .object(members):
            text += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { text += "," }
                JSONValue.writeString(key, to: &text)
                text += ":"
                value.write(to: &text)
            }
            text += "}"
        case let .array(values):
            text += "["
            for (index, value) in values.enumerated() {
                if index > 0 { text += "," }
                value.write(to: &text)
            }
            text += "]"
        case let .string(string): JSONValue.writeString(string, to: &text)
        case let .integer(value): text += String(value)
        case let .number(literal): text += literal
        case let .bool(value): text += value ? "true" : "false"
        case .null: text += "null"
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

    private static func writeString(_ string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}

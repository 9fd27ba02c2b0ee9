/// A JSON value with ordered object keys, for JSON read or compared as values: records as the CSV,
/// report and HAR outputs read them (`JSONTreeBuilder`), reports, app logs.
package enum JSONValue: Equatable, Sendable {
    case object([(String, JSONValue)])
    case array([JSONValue])
    case string(String)
    case integer(Int)
    /// A number already formatted (e.g. a timestamp with the capture's precision).
    case number(String)
    case bool(Bool)
    case null

    package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        lhs.serialized == rhs.serialized
    }

    /// Compact JSON text.
    package var serialized: String {
        var encoder = JSONTextEncoder()
        encode(to: &encoder)
        return encoder.buffer.text
    }

    /// Writes this value into `encoder`.
    func encode<Encoder: JSONEncoding>(to encoder: inout Encoder) {
        switch self {
        case let .object(members):
            encoder.object { encoder in
                for (key, value) in members {
                    encoder.dynamicKey(key)
                    value.encode(to: &encoder)
                }
            }
        case let .array(values):
            encoder.array { encoder in
                for value in values { value.encode(to: &encoder) }
            }
        case let .string(string): encoder.string(string)
        case let .integer(value): encoder.integer(value)
        case let .number(literal): encoder.number(literal)
        case let .bool(value): encoder.bool(value)
        case .null: encoder.null()
        }
    }

    /// Member `key` of an object.
    package subscript(key: String) -> JSONValue? {
        guard case let .object(members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    /// Leaf values keyed by their path joined with `_` (`up.ip_bytes` → `up_ip_bytes`); arrays of
    /// scalars become one `;`-joined value.
    package func flattened(prefix: String = "") -> [(String, String)] {
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
    package var plainText: String {
        switch self {
        case let .string(string): return string
        case .null: return ""
        default: return serialized
        }
    }
}

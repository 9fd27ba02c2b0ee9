/// Compact JSON text appended straight to a byte buffer: numbers formatted and strings escaped
/// byte-wise, without building `String`s.
struct JSONTextEncoder: JSONEncoding {
    /// The text written so far (UTF-8).
    var bytes: [UInt8] = []
    /// Whether the next member or element follows another in its container, so needs a comma.
    private var followsValue = false

    /// Ends a JSON Lines line: the next value starts a new document.
    mutating func endLine() {
        bytes.append(UInt8(ascii: "\n"))
        followsValue = false
    }

    mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        followsValue = false
    }

    mutating func dynamicKey(_ name: String) {
        separate()
        appendString(name)
        bytes.append(UInt8(ascii: ":"))
        followsValue = false
    }

    mutating func object(_ body: (inout JSONTextEncoder) -> Void) {
        container(opening: UInt8(ascii: "{"), closing: UInt8(ascii: "}"), body)
    }

    mutating func array(_ body: (inout JSONTextEncoder) -> Void) {
        container(opening: UInt8(ascii: "["), closing: UInt8(ascii: "]"), body)
    }

    mutating func string(_ value: String) {
        separate()
        appendString(value)
        followsValue = true
    }

    mutating func integer(_ value: Int) {
        separate()
        bytes.appendDecimal(value)
        followsValue = true
    }

    mutating func number(_ literal: String) {
        separate()
        bytes.append(contentsOf: literal.utf8)
        followsValue = true
    }

    mutating func timestamp(_ timestamp: Timestamp, digits: Int) {
        separate()
        timestamp.append(digits: digits, to: &bytes)
        followsValue = true
    }

    mutating func milliseconds(_ nanoseconds: Int64) {
        separate()
        let microseconds = nanoseconds / 1000
        if microseconds < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = microseconds.magnitude
        bytes.appendDecimal(Int(magnitude / 1000))
        let fraction = magnitude % 1000
        bytes.append(UInt8(ascii: "."))
        bytes.append(UInt8(ascii: "0") + UInt8(fraction / 100))
        bytes.append(UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
        bytes.append(UInt8(ascii: "0") + UInt8(fraction % 10))
        followsValue = true
    }

    mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: value ? Self.trueBytes : Self.falseBytes)
        followsValue = true
    }

    mutating func null() {
        separate()
        bytes.append(contentsOf: Self.nullBytes)
        followsValue = true
    }

    private mutating func container(opening: UInt8, closing: UInt8, _ body: (inout JSONTextEncoder) -> Void) {
        separate()
        bytes.append(opening)
        followsValue = false
        body(&self)
        bytes.append(closing)
        followsValue = true
    }

    private mutating func separate() {
        if followsValue { bytes.append(UInt8(ascii: ",")) }
    }

    private static let trueBytes: [UInt8] = Array("true".utf8)
    private static let falseBytes: [UInt8] = Array("false".utf8)
    private static let nullBytes: [UInt8] = Array("null".utf8)
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// A JSON string: `"`, `\`, LF, CR and tab get their short escapes, other control characters
    /// `\u00XX`; every other byte (UTF-8 included) is copied as is.
    private mutating func appendString(_ string: String) {
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
                    bytes.append(Self.hexDigits[Int(byte >> 4)])
                    bytes.append(Self.hexDigits[Int(byte & 0x0f)])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

import Foundation
import Testing
@testable import WireTally

/// JSON written byte-wise (`JSONTextEncoder`, through `JSONValue.serialized`): numbers as the standard library prints them,
/// strings that Foundation's JSON parser reads back unchanged, with the escapes the records always had.
@Suite struct JSONBytesTests {
    @Test func integersAsTheStandardLibraryPrintsThem() {
        var generator = SeededGenerator(state: 7)
        var values = [0, 1, -1, 9, 10, -10, 99, 100, 12_345, Int.max, Int.min, Int.max - 1, Int.min + 1]
        for _ in 0..<2000 { values.append(Int.random(in: Int.min...Int.max, using: &generator) >> Int.random(in: 0..<63, using: &generator)) }
        for value in values {
            #expect(JSONValue.integer(value).serialized == String(value))
        }
    }

    @Test func stringsRoundTripThroughFoundation() throws {
        let controls = String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) })
        let strings = ["", "plain", "quote \" backslash \\ slash /", controls, "é ü 日本 🎉 \u{7f}", "\r\n\t", "a\u{0}b"]
        for string in strings {
            let text = JSONValue.array([.string(string)]).serialized
            let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String]
            #expect(parsed == [string], "\(text)")
        }
        #expect(JSONValue.string("\u{1}\u{1f}\"\\\n\r\t").serialized == #""\u0001\u001f\"\\\n\r\t""#)
    }

    @Test func documentsKeepTheirShape() {
        let value = JSONValue.object([
            ("a", .integer(-5)), ("b", .array([.bool(true), .bool(false), .null])), ("c", .number("1.50")),
            ("d", .object([])), ("e", .array([])),
        ])
        #expect(value.serialized == #"{"a":-5,"b":[true,false,null],"c":1.50,"d":{},"e":[]}"#)
    }
}

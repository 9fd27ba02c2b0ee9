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

    /// Integers of five to eight digits (up to four leading digits, then four by one store each) and the
    /// edges around them: every power of ten and its neighbours, each count of nines, random values of each
    /// length; alone and followed by more text, which overwrites what the stores left after the number.
    @Test func fiveToEightDigitIntegersAsTheStandardLibraryPrintsThem() {
        var values: [Int] = []
        var power = 1
        for _ in 0...18 {
            values += [power - 1, power, power + 1, -power, -(power - 1)]
            power = power &* 10
        }
        values += [10_000, 10_009, 10_010, 10_099, 10_100, 19_999, 20_000, 99_999_999, 100_000_000, Int.max, Int.min]
        var generator = SeededGenerator(state: 23)
        for digits in 5...8 {
            let low = Int(pow(10, Double(digits - 1))), high = Int(pow(10, Double(digits))) - 1
            for _ in 0..<500 { values.append(Int.random(in: low...high, using: &generator)) }
        }
        for value in values {
            #expect(JSONValue.integer(value).serialized == String(value))
            #expect(JSONValue.array([.integer(value), .null]).serialized == "[\(value),null]")
            #expect(JSONValue.array([.integer(value), .integer(7)]).serialized == "[\(value),7]")
        }
    }

    /// Every integer of up to four digits (written with one 4-byte store whatever its length), alone and
    /// followed by more text, which overwrites what the store left after a shorter number.
    @Test func shortIntegersAsTheStandardLibraryPrintsThem() {
        for value in -10_001...10_001 {
            #expect(JSONValue.integer(value).serialized == String(value))
            #expect(JSONValue.array([.integer(value), .null]).serialized == "[\(value),null]")
        }
    }

    /// A prebuilt key (`JSONKey(prebuilt:)`) writes what its literal writes: first in an object or after a
    /// member, before every kind of value, a name longer than the 32 bytes copied at once included; the
    /// tree builder reads it as its name.
    @Test func prebuiltKeysWriteWhatTheirLiteralsWrite() {
        let short = JSONKey(prebuilt: "ts_first")
        let long = JSONKey(prebuilt: "a_member_name_longer_than_thirty_two_bytes")
        func members<Encoder: JSONEncoding>(_ first: JSONKey, _ second: JSONKey, to encoder: inout Encoder) {
            encoder.object { encoder in
                encoder.field(first, 7)
                encoder.field(second, "text")
                encoder.key(first)
                encoder.null()
                encoder.object(second) { $0.field(first, true) }
                encoder.field(second, literal: "literal")
            }
        }
        var literal = JSONTextEncoder()
        members("ts_first", "a_member_name_longer_than_thirty_two_bytes", to: &literal)
        var prebuilt = JSONTextEncoder()
        members(short, long, to: &prebuilt)
        let tree = JSONValue { members(short, long, to: &$0) }
        let name = "a_member_name_longer_than_thirty_two_bytes"
        #expect(literal.buffer.text
            == #"{"ts_first":7,"\#(name)":"text","ts_first":null,"\#(name)":{"ts_first":true},"\#(name)":"literal"}"#)
        #expect(prebuilt.buffer.text == literal.buffer.text)
        #expect(tree.serialized == literal.buffer.text)
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

    /// A member with a literal string value (`"type":"http"`) reads as the key and the string written apart,
    /// first or after a member, a one-scalar literal (held by value, not by address) included.
    @Test func literalFieldsReadAsKeyAndString() {
        var text = JSONTextEncoder()
        text.object { encoder in
            encoder.field("type", literal: "http")
            encoder.field("by", literal: "client")
            encoder.field("x", literal: "y")
            encoder.field("e", literal: "")
        }
        let tree = JSONValue { encoder in
            encoder.object { encoder in
                encoder.field("type", literal: "http")
                encoder.field("by", literal: "client")
                encoder.field("x", literal: "y")
                encoder.field("e", literal: "")
            }
        }
        #expect(text.buffer.text == #"{"type":"http","by":"client","x":"y","e":""}"#)
        #expect(tree.serialized == text.buffer.text)
    }

    @Test func documentsKeepTheirShape() {
        let value = JSONValue.object([
            ("a", .integer(-5)), ("b", .array([.bool(true), .bool(false), .null])), ("c", .number("1.50")),
            ("d", .object([])), ("e", .array([])),
        ])
        #expect(value.serialized == #"{"a":-5,"b":[true,false,null],"c":1.50,"d":{},"e":[]}"#)
    }

    /// Strings escaped eight bytes at a time: a character to escape at every position of every
    /// length around the word size, and long strings, against a plain reference escaper.
    @Test func escapesAtEveryPositionAndLength() {
        let specials: [UInt8] = [0x00, 0x01, 0x09, 0x0a, 0x0d, 0x1f, UInt8(ascii: "\""), UInt8(ascii: "\\")]
        let harmless: [UInt8] = [0x20, 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0xc3, 0xa9]  // around the special values
        for length in 0...40 {
            let plain = (0..<length).map { harmless[$0 % harmless.count] }
            #expect(serializedString(plain) == referenceJSON(plain), "\(length)")
            for position in 0..<length {
                for special in specials {
                    var bytes = plain
                    bytes[position] = special
                    #expect(serializedString(bytes) == referenceJSON(bytes), "\(length) \(position) \(special)")
                }
            }
        }
        var long = (0..<100_000).map { UInt8(ascii: "a") + UInt8($0 % 26) }
        #expect(serializedString(long) == referenceJSON(long))
        for position in stride(from: 3, to: long.count, by: 997) { long[position] = position % 2 == 0 ? 0x0a : 0x22 }
        #expect(serializedString(long) == referenceJSON(long))
    }

    /// A small encoder grows while it writes; the text is the same as written into a large one.
    @Test func documentsWrittenAcrossBufferGrowth() {
        let value = JSONValue.array((0..<500).map { index in
            .object([
                ("index", .integer(index * 7919 - 1_000_000)), ("name", .string(String(repeating: "n\"", count: index % 40))),
                ("list", .array([.integer(Int.min), .integer(Int.max), .null, .bool(index % 2 == 0)])),
                ("ts", .number(Timestamp(nanoseconds: Int64(index) * 123_456_789).formatted(digits: 6))),
            ])
        })
        var small = JSONTextEncoder(capacity: 16)
        value.encode(to: &small)
        var large = JSONTextEncoder(capacity: 1 << 20)
        value.encode(to: &large)
        #expect(small.buffer.text == large.buffer.text)
        #expect(small.buffer.text == value.serialized)
        #expect(small.buffer.text.hasPrefix(#"[{"index":-1000000,"name":"","list":[-9223372036854775808,9223372036854775807,null,true],"#))
    }

    private func serializedString(_ bytes: [UInt8]) -> String {
        JSONValue.string(String(decoding: bytes, as: UTF8.self)).serialized
    }

    /// JSON for a string as the records always wrote it, one character at a time.
    private func referenceJSON(_ bytes: [UInt8]) -> String {
        var text = "\""
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
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
        return text + "\""
    }
}

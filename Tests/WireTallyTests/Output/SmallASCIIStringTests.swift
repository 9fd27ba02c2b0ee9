import Foundation
import Testing
@testable import WireTally

/// Strings read as the standard library's small ASCII strings (`SmallASCIIString`): every ASCII string of
/// up to 15 bytes, however it was made, reads as its bytes (a change of the string ABI fails here first);
/// longer or non-ASCII ones are not read that way; and the text encoders write what the general path
/// writes, escapes and CSV quotes at every position included.
@Suite struct SmallASCIIStringTests {
    /// The ways records' strings are made: literals, the parser's `String(decoding:as:)`, appending,
    /// interpolation, a substring copied.
    private static func variants(of text: String) -> [String] {
        let bytes = Array(text.utf8)
        var appended = ""
        for character in text { appended.append(character) }
        return [text, String(decoding: bytes, as: UTF8.self), appended, "\(text)", String(("<" + text + ">").dropFirst().dropLast())]
    }

    @Test func asciiStringsOfUpTo15BytesReadAsTheirBytes() {
        #expect(SmallASCIIString("GET")?.count == 3)
        #expect(SmallASCIIString("Not Modified")?.count == 12)
        for length in 0...15 {
            for text in Self.variants(of: String((0..<length).map { Character(UnicodeScalar(UInt8(0x21 + ($0 * 7) % 94))) })) {
                guard let small = SmallASCIIString(text) else {
                    Issue.record("\(length): \(text) not read as a small ASCII string")
                    continue
                }
                #expect(small.count == length)
                var stored = [UInt8](repeating: 0xAA, count: 16)
                stored.withUnsafeMutableBufferPointer { small.store(to: $0.baseAddress!) }
                #expect(Array(stored.prefix(length)) == Array(text.utf8), "\(length)")
                #expect(stored.dropFirst(length).allSatisfy { $0 == 0 }, "\(length)")
                let filled = small.words(fillingWith: UInt8(ascii: "z"))
                let wordBytes = withUnsafeBytes(of: filled.low.littleEndian) { Array($0) } + withUnsafeBytes(of: filled.high.littleEndian) { Array($0) }
                #expect(wordBytes == Array(text.utf8) + [UInt8](repeating: UInt8(ascii: "z"), count: 16 - length), "\(length)")
            }
        }
    }

    @Test func longerAndNonASCIIStringsAreNotRead() {
        for text in ["0123456789abcdef", String(repeating: "x", count: 100), "é", "bücher", "€", String(repeating: "ü", count: 7)] {
            for variant in Self.variants(of: text) { #expect(SmallASCIIString(variant) == nil, "\(variant)") }
        }
    }

    /// `body` run on every ASCII string of 0–17 bytes of letters from `first` on with one of `specials` at
    /// each position (nil: none), as a `String` made from its bytes, the bytes, the length and the position.
    private static func forEachString(
        of first: UInt8, with specials: [UInt8?], _ body: (String, [UInt8], Int, Int) throws -> Void
    ) rethrows {
        for length in 0...17 {
            for special in specials {
                for position in 0..<max(length, 1) where special == nil ? position == 0 : position < length {
                    var bytes = (0..<length).map { first + UInt8($0 % 26) }
                    if let special { bytes[position] = special }
                    try body(String(decoding: bytes, as: UTF8.self), bytes, length, position)
                }
            }
        }
    }

    /// Every ASCII string of 0–17 bytes with a character JSON escapes (or none) at each position, alone, as
    /// the second element of an array and as a member: the escapes the records always had.
    @Test func jsonStringsAsTheGeneralPathWritesThem() throws {
        let specials: [UInt8?] = [nil, 0x00, 0x01, 0x09, 0x0a, 0x0d, 0x1f, 0x7f, UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: " ")]
        try Self.forEachString(of: UInt8(ascii: "a"), with: specials) { text, bytes, length, position in
            var encoder = JSONTextEncoder()
            encoder.array { encoder in
                encoder.string(text)
                encoder.string(text)
                encoder.object { $0.field("k", text) }
            }
            let decoded = try JSONSerialization.jsonObject(with: Data(encoder.buffer.text.utf8)) as? [Any]
            #expect(decoded?[0] as? String == text, "\(length) \(position)")
            #expect(decoded?[1] as? String == text, "\(length) \(position)")
            #expect((decoded?[2] as? [String: String])?["k"] == text, "\(length) \(position)")
            var general = JSONTextEncoder()
            bytes.withUnsafeBytes { utf8 in
                general.array { encoder in
                    encoder.string(utf8: utf8)
                    encoder.string(utf8: utf8)
                    encoder.object { encoder in
                        encoder.key("k")
                        encoder.string(utf8: utf8)
                    }
                }
            }
            #expect(encoder.buffer.text == general.buffer.text, "\(length) \(position)")
        }
    }

    /// The same strings as CSV cells: quoted exactly when they hold a comma, quote, CR or LF, whatever else
    /// is below `-` (the bytes that make the cell be scanned).
    @Test func csvCellsQuotedExactlyWhenTheyNeedIt() {
        let specials: [UInt8?] = [nil, UInt8(ascii: ","), UInt8(ascii: "\""), 0x0d, 0x0a, UInt8(ascii: " "), UInt8(ascii: "+"), UInt8(ascii: "-"), 0x00]
        Self.forEachString(of: UInt8(ascii: "A"), with: specials) { text, bytes, length, position in
            let needsQuotes = bytes.contains { [UInt8(ascii: ","), UInt8(ascii: "\""), 0x0d, 0x0a].contains($0) }
            let cell = needsQuotes ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
            let lines = CSVRowEncoderTests.lines(columns: ["a", "b"]) { row in
                row.object { row in
                    row.field("a", text)
                    row.field("b", text)
                }
            }
            #expect(lines.line == cell + "," + cell + "\n", "\(length) \(position)")
            #expect(lines.cells == cell + "," + cell + "\n", "\(length) \(position)")
        }
    }
}

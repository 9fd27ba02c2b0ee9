import Testing
@testable import WireTally

/// `CSVQuoting`: a cell is quoted exactly when it holds a comma, a quote, CR or LF (RFC 4180), whatever
/// its length and wherever the byte is, and a small string's words give the same answer.
@Suite struct CSVQuotingTests {
    static let quoted: Set<UInt8> = [UInt8(ascii: ","), UInt8(ascii: "\""), UInt8(ascii: "\n"), UInt8(ascii: "\r")]

    @Test func everyByteAtEveryPositionOfCellsUpTo24Bytes() {
        for count in 1...24 {
            for position in 0..<count {
                for byte in UInt8.min...UInt8.max {
                    var cell = [UInt8](repeating: UInt8(ascii: "a"), count: count)
                    cell[position] = byte
                    let needsQuotes = cell.withUnsafeBytes { CSVQuoting.needsQuotes($0) }
                    #expect(needsQuotes == Self.quoted.contains(byte), "byte \(byte) at \(position) of \(count)")
                }
            }
        }
        #expect(!CSVQuoting.needsQuotes(UnsafeRawBufferPointer(start: nil, count: 0)))
    }

    @Test func smallStringWordsAgreeWithWholeCells() {
        for count in 1...15 {
            for byte in UInt8.min...0x7F {
                let text = String(repeating: "x", count: count - 1) + String(UnicodeScalar(byte))
                guard let small = SmallASCIIString(text) else { continue }
                let words = small.words(fillingWith: UInt8(ascii: "-"))
                let fromWords = CSVQuoting.quoteBits(words.low) | CSVQuoting.quoteBits(words.high) != 0
                var bytes = Array(text.utf8)
                #expect(fromWords == bytes.withUnsafeBytes { CSVQuoting.needsQuotes($0) }, "byte \(byte) in \(count)")
                #expect(fromWords == Self.quoted.contains(byte))
                bytes.removeAll()
            }
        }
    }
}

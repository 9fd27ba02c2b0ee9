/// The names of a run of integer members of a JSON object (`packets`, `ip_bytes`, …), in order, with
/// the text JSON puts before each number built once, so `JSONTextEncoder` writes the whole run with
/// one room check and one copy per member — or one copy in all when every value is zero, as most of an
/// exchange's counters are (no setup, retransmission or teardown packets on a kept-alive connection).
///
/// Runs are described once, as static constants (`RecordEncoding`'s), and live as long as the program:
/// their text is allocated once and never freed.
struct IntegerMembers<let count: Int>: @unchecked Sendable {
    /// The members' names, for encoders that take a member at a time (out of line, like the text, so
    /// a run is a few words to pass around).
    let names: UnsafeBufferPointer<StaticString>
    /// The JSON text around the numbers.
    let text: IntegerMembersText<count>

    /// A run of members named `names` (literals with nothing JSON would escape).
    init(_ names: InlineArray<count, StaticString>) {
        let storedNames = UnsafeMutableBufferPointer<StaticString>.allocate(capacity: count)
        for index in names.indices { (storedNames.baseAddress! + index).initialize(to: names[index]) }
        self.names = UnsafeBufferPointer(storedNames)
        text = IntegerMembersText(names)
    }
}

/// The text JSON puts before each number of a run of integer members, built once.
struct IntegerMembersText<let count: Int>: @unchecked Sendable {
    /// `,"name":` of each member, one after the other.
    private let pieces: UnsafePointer<UInt8>
    /// Where each member's piece ends in `pieces`.
    private let pieceEnds: InlineArray<count, Int32>
    /// `,"a":0,"b":0,…`: every member with the value zero.
    private let zeros: UnsafeBufferPointer<UInt8>

    fileprivate init(_ names: InlineArray<count, StaticString>) {
        var pieces: [UInt8] = []
        var zeros: [UInt8] = []
        var pieceEnds = InlineArray<count, Int32>(repeating: 0)
        for index in names.indices {
            let piece = [UInt8(ascii: ","), UInt8(ascii: "\"")] + names[index].withUTF8Buffer { Array($0) }
                + [UInt8(ascii: "\""), UInt8(ascii: ":")]
            pieces += piece
            pieceEnds[index] = Int32(pieces.count)
            zeros += piece + [UInt8(ascii: "0")]
        }
        self.pieces = Self.immortalCopy(of: pieces).baseAddress!
        self.pieceEnds = pieceEnds
        self.zeros = Self.immortalCopy(of: zeros)
    }

    private static func immortalCopy(of bytes: [UInt8]) -> UnsafeBufferPointer<UInt8> {
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        _ = copy.initialize(from: bytes)
        return UnsafeBufferPointer(copy)
    }

    /// The most bytes `write(_:afterComma:to:)` stores.
    var maximumCount: Int { zeros.count + count * DecimalDigits.maximumIntegerCount }

    /// Stores the members with `values` at `destination` (room for `maximumCount` bytes), after a
    /// comma when `afterComma`; returns how many bytes it stored.
    @inline(__always)
    func write(_ values: InlineArray<count, Int>, afterComma: Bool, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        let firstComma = afterComma ? 0 : 1
        var allZero = true
        for index in values.indices where values[index] != 0 {
            allZero = false
            break
        }
        if allZero {
            let text = UnsafeBufferPointer(rebasing: zeros[firstComma...])
            destination.storeBytes(of: text)
            return text.count
        }
        var written = 0
        var pieceStart = firstComma
        for index in values.indices {
            let pieceEnd = Int(pieceEnds[index])
            (destination + written).storeBytes(of: UnsafeBufferPointer(start: pieces + pieceStart, count: pieceEnd &- pieceStart))
            written &+= pieceEnd &- pieceStart
            written &+= DecimalDigits.write(values[index], to: destination + written)
            pieceStart = pieceEnd
        }
        return written
    }
}

/// A run of integer members of a JSON object (`packets`, `ip_bytes`, …), in order — written into the
/// current object, as an object value, or as a member that is such an object (`"setup":{…}`) — with the
/// text JSON puts before each number built once, so `JSONTextEncoder` writes the whole run with one room
/// check and one copy per member, or one copy in all when every value is zero, as most of an exchange's
/// counters are (no setup, retransmission or teardown packets on a kept-alive connection).
///
/// Runs are described once, as static constants (`RecordEncoding`'s), and live as long as the program:
/// what they hold is allocated once, never freed, and reached through one pointer, so a run is a word to
/// pass around.
struct IntegerMembers<let count: Int>: @unchecked Sendable {
    private let storage: UnsafePointer<Storage>

    private struct Storage {
        let names: InlineArray<count, StaticString>
        let memberName: StaticString?
        let isObject: Bool
        /// `,"name":` of each member, one after the other; the first after the run's opening
        /// (`{` of an object, `"setup":{` of a member).
        let pieces: UnsafePointer<UInt8>
        /// Where each member's piece ends in `pieces`.
        let pieceEnds: InlineArray<count, Int32>
        /// `}` of an object, nothing otherwise.
        let closing: UInt8?
        /// The whole run with every value zero (its leading comma included).
        let zeros: UnsafeBufferPointer<UInt8>
    }

    /// Members named `names` of the current object (literals with nothing JSON would escape).
    init(_ names: InlineArray<count, StaticString>) {
        self.init(names, memberName: nil, isObject: false)
    }

    /// An object value whose members are named `names`.
    init(object names: InlineArray<count, StaticString>) {
        self.init(names, memberName: nil, isObject: true)
    }

    /// A member named `memberName` that is an object whose members are named `names`.
    init(member memberName: StaticString, object names: InlineArray<count, StaticString>) {
        self.init(names, memberName: memberName, isObject: true)
    }

    private init(_ names: InlineArray<count, StaticString>, memberName: StaticString?, isObject: Bool) {
        func quoted(_ name: StaticString) -> [UInt8] {
            [UInt8(ascii: "\"")] + name.withUTF8Buffer { Array($0) } + [UInt8(ascii: "\"")]
        }
        var pieces: [UInt8] = [UInt8(ascii: ",")]
        if let memberName { pieces += quoted(memberName) + [UInt8(ascii: ":")] }
        if isObject { pieces.append(UInt8(ascii: "{")) }
        var zeros = pieces
        var pieceEnds = InlineArray<count, Int32>(repeating: 0)
        for index in names.indices {
            let piece = (index == 0 ? [] : [UInt8(ascii: ",")]) + quoted(names[index]) + [UInt8(ascii: ":")]
            pieces += piece
            pieceEnds[index] = Int32(pieces.count)
            zeros += piece + [UInt8(ascii: "0")]
        }
        let closing: UInt8? = isObject ? UInt8(ascii: "}") : nil
        if let closing { zeros.append(closing) }
        let storage = UnsafeMutablePointer<Storage>.allocate(capacity: 1)
        storage.initialize(
            to: Storage(
                names: names, memberName: memberName, isObject: isObject, pieces: Self.immortalCopy(of: pieces).baseAddress!,
                pieceEnds: pieceEnds, closing: closing, zeros: Self.immortalCopy(of: zeros)
            )
        )
        self.storage = UnsafePointer(storage)
    }

    private static func immortalCopy(of bytes: [UInt8]) -> UnsafeBufferPointer<UInt8> {
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        _ = copy.initialize(from: bytes)
        return UnsafeBufferPointer(copy)
    }

    /// Writes the run with `values` one member at a time, for encoders without a text of their own.
    func encode<Encoder: JSONEncoding>(_ values: InlineArray<count, Int>, to encoder: inout Encoder) {
        let storage = storage
        if let memberName = storage.pointee.memberName { encoder.key(memberName) }
        guard storage.pointee.isObject else {
            for index in values.indices { encoder.integerField(storage.pointee.names[index], values[index]) }
            return
        }
        encoder.object { encoder in
            for index in values.indices { encoder.integerField(storage.pointee.names[index], values[index]) }
        }
    }

    /// The most bytes `write(_:afterComma:to:)` stores.
    var maximumCount: Int { storage.pointee.zeros.count + count * DecimalDigits.maximumIntegerCount }

    /// Stores the run with `values` at `destination` (room for `maximumCount` bytes), after a comma
    /// when `afterComma`; returns how many bytes it stored.
    @inline(__always)
    func write(_ values: InlineArray<count, Int>, afterComma: Bool, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        let firstComma = afterComma ? 0 : 1
        var allZero = true
        for index in values.indices where values[index] != 0 {
            allZero = false
            break
        }
        if allZero {
            let text = UnsafeBufferPointer(rebasing: storage.pointee.zeros[firstComma...])
            destination.storeBytes(of: text)
            return text.count
        }
        let pieces = storage.pointee.pieces
        var written = 0
        var pieceStart = firstComma
        for index in values.indices {
            let pieceEnd = Int(storage.pointee.pieceEnds[index])
            (destination + written).storeBytes(of: UnsafeBufferPointer(start: pieces + pieceStart, count: pieceEnd &- pieceStart))
            written &+= pieceEnd &- pieceStart
            written &+= DecimalDigits.write(values[index], to: destination + written)
            pieceStart = pieceEnd
        }
        if let closing = storage.pointee.closing {
            destination[written] = closing
            written &+= 1
        }
        return written
    }
}

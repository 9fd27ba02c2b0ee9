/// A run of number members of a JSON object (`packets`, `ip_bytes`, …; `blocked`, `dns`, … in
/// milliseconds), in order — written into the current object, as an object value, or as a member that
/// is such an object (`"setup":{…}`) — with the text JSON puts before each number built once, so
/// `JSONTextEncoder` writes the whole run with one room check and one copy per member, or one copy in
/// all when every integer is zero, as most of an exchange's counters are (no setup, retransmission or
/// teardown packets on a kept-alive connection).
///
/// Runs are described once, as static constants (`RecordEncoding`'s), and live as long as the program:
/// what they hold is allocated once, never freed, and reached through one pointer, so a run is a word to
/// pass around.
struct NumberMembers<let count: Int>: @unchecked Sendable {
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

    /// The name of the member the run is (`"setup"` of `"setup":{…}`), nil for members or an object value.
    var memberName: StaticString? { storage.pointee.memberName }
    /// Whether the run is an object (a value or a member), rather than members of the current object.
    var isObject: Bool { storage.pointee.isObject }
    /// The name of the run's member at `index`.
    func name(at index: Int) -> StaticString { storage.pointee.names[index] }

    /// Writes the run one member at a time, `value` writing the value of the member at an index, for
    /// encoders without a text of their own.
    func encode<Encoder: JSONEncoding>(to encoder: inout Encoder, value: (Int, inout Encoder) -> Void) {
        func members(_ encoder: inout Encoder) {
            for index in 0..<count {
                encoder.key(name(at: index))
                value(index, &encoder)
            }
        }
        if let memberName { encoder.key(memberName) }
        if isObject { encoder.object(members) } else { members(&encoder) }
    }

    /// The most bytes `write(afterComma:to:maximumValueCount:value:)` stores when each value takes at
    /// most `maximumValueCount`.
    func maximumCount(valuesOfAtMost maximumValueCount: Int) -> Int {
        storage.pointee.zeros.count + count * maximumValueCount
    }

    /// Stores the run with every value zero at `destination` (room for `maximumCount`), after a comma
    /// when `afterComma`; returns how many bytes it stored.
    @inline(__always)
    func writeZeros(afterComma: Bool, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        let text = UnsafeBufferPointer(rebasing: storage.pointee.zeros[(afterComma ? 0 : 1)...])
        destination.storeBytes(of: text)
        return text.count
    }

    /// Stores the run at `destination` (room for `maximumCount`), after a comma when `afterComma`,
    /// `value` storing the value of the member at an index at the address it is given and returning how
    /// many bytes it stored; returns how many bytes the run took.
    @inline(__always)
    func write(
        afterComma: Bool, to destination: UnsafeMutablePointer<UInt8>, value: (Int, UnsafeMutablePointer<UInt8>) -> Int
    ) -> Int {
        let pieces = storage.pointee.pieces
        var written = 0
        var pieceStart = afterComma ? 0 : 1
        for index in 0..<count {
            let pieceEnd = Int(storage.pointee.pieceEnds[index])
            (destination + written).storeBytes(of: UnsafeBufferPointer(start: pieces + pieceStart, count: pieceEnd &- pieceStart))
            written &+= pieceEnd &- pieceStart
            written &+= value(index, destination + written)
            pieceStart = pieceEnd
        }
        if let closing = storage.pointee.closing {
            destination[written] = closing
            written &+= 1
        }
        return written
    }
}

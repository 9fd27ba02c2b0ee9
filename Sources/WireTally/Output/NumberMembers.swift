/// A member of a run of number members: a number, or an object of members
/// (`.object("setup", ["packets", "ip_bytes"])`); a name literal is a number.
indirect enum NumberMember: ExpressibleByStringLiteral, Sendable {
    case number(StaticString)
    case object(StaticString, [NumberMember])

    init(stringLiteral name: StaticString) { self = .number(name) }

    /// How many numbers it holds.
    var numberCount: Int {
        switch self {
        case .number: return 1
        case let .object(_, members): return members.reduce(0) { $0 + $1.numberCount }
        }
    }
}

/// A step of a walk through a run of number members (`NumberMembers.steps`), in document order: `open`
/// an object member, a `number` (the index of its value), `close` the object. Each name with the run's
/// own copy of its UTF-8 (stored as long as the run, so its address names it).
enum NumberRunStep {
    case open(StaticString, UnsafeBufferPointer<UInt8>)
    case number(Int, StaticString, UnsafeBufferPointer<UInt8>)
    case close

    /// Room for what a walk keeps per object it is inside: runs nest at most 8 objects (its `count`).
    typealias PerOpenObject<Element> = InlineArray<8, Element>
}

/// A run of number members of a JSON object (`packets`, `ip_bytes`, …; `blocked`, `dns`, … in
/// milliseconds), in order — written into the current object, as an object value, or as a member that
/// is such an object (`"setup":{…}`), objects of numbers inside it included (a direction's
/// `"categories":{"setup":{…},…}`) — with the text JSON puts before each number built once, so
/// `JSONTextEncoder` writes the whole run with one room check and one copy per number — or one copy
/// per streak of zero integers, with their zeros, as most of an exchange's counters are (no setup,
/// retransmission or teardown packets on a kept-alive connection).
///
/// Runs are described once, as static constants (`RecordEncoding`'s), and live as long as the program:
/// what they hold is allocated once, never freed, and reached through one pointer, so a run is a word to
/// pass around.
struct NumberMembers<let count: Int>: @unchecked Sendable {
    private let storage: UnsafePointer<Storage>

    private struct Storage {
        let memberName: StaticString?
        let isObject: Bool
        let steps: [NumberRunStep]
        /// The run's text without its values: `,` then `"name":{` of a member, `{` of an object, then
        /// each number's `"name":` (after a comma, object openings and closings as the layout has them),
        /// then the closings after the last number.
        let pieces: UnsafePointer<UInt8>
        /// Where the text before each number ends in `pieces`, and where the whole text ends.
        let pieceEnds: InlineArray<count, Int32>
        let end: Int32
        /// The whole run with every value zero (its leading comma included), in `PaddedText`.
        let zeros: UnsafePointer<UInt8>
        /// Where the text up to each number, that number's `0` included, ends in `zeros`, and where the
        /// whole text ends.
        let zeroEnds: InlineArray<count, Int32>
        let zerosEnd: Int32
    }

    /// Members named `names` of the current object (literals with nothing JSON would escape).
    init(_ names: [NumberMember]) {
        self.init(names, memberName: nil, isObject: false)
    }

    /// An object value whose members are `names`.
    init(object names: [NumberMember]) {
        self.init(names, memberName: nil, isObject: true)
    }

    /// A member named `memberName` that is an object whose members are `names`.
    init(member memberName: StaticString, object names: [NumberMember]) {
        self.init(names, memberName: memberName, isObject: true)
    }

    private init(_ members: [NumberMember], memberName: StaticString?, isObject: Bool) {
        precondition(members.reduce(0) { $0 + $1.numberCount } == count, "a run's count is its numbers'")
        func bytes(_ name: StaticString) -> [UInt8] { name.withUTF8Buffer { Array($0) } }
        func quoted(_ name: StaticString) -> [UInt8] { [UInt8(ascii: "\"")] + bytes(name) + [UInt8(ascii: "\"")] }
        var pieces: [UInt8] = [UInt8(ascii: ",")]
        if let memberName { pieces += quoted(memberName) + [UInt8(ascii: ":")] }
        if isObject { pieces.append(UInt8(ascii: "{")) }
        var zeros = pieces
        var pieceEnds = InlineArray<count, Int32>(repeating: 0)
        var zeroEnds = InlineArray<count, Int32>(repeating: 0)
        var steps: [NumberRunStep] = []
        var numbers = 0
        func add(_ members: [NumberMember], depth: Int) {
            precondition(depth <= NumberRunStep.PerOpenObject<Int32>.count, "runs nest at most 8 objects")
            for (index, member) in members.enumerated() {
                let separator: [UInt8] = index == 0 ? [] : [UInt8(ascii: ",")]
                switch member {
                case let .number(name):
                    let piece = separator + quoted(name) + [UInt8(ascii: ":")]
                    pieces += piece
                    zeros += piece + [UInt8(ascii: "0")]
                    pieceEnds[numbers] = Int32(pieces.count)
                    zeroEnds[numbers] = Int32(zeros.count)
                    steps.append(.number(numbers, name, PaddedText.immortalCopy(of: bytes(name))))
                    numbers += 1
                case let .object(name, inner):
                    let piece = separator + quoted(name) + [UInt8(ascii: ":"), UInt8(ascii: "{")]
                    pieces += piece
                    zeros += piece
                    steps.append(.open(name, PaddedText.immortalCopy(of: bytes(name))))
                    add(inner, depth: depth + 1)
                    pieces.append(UInt8(ascii: "}"))
                    zeros.append(UInt8(ascii: "}"))
                    steps.append(.close)
                }
            }
        }
        add(members, depth: 0)
        if isObject {
            pieces.append(UInt8(ascii: "}"))
            zeros.append(UInt8(ascii: "}"))
        }
        let storage = UnsafeMutablePointer<Storage>.allocate(capacity: 1)
        storage.initialize(
            to: Storage(
                memberName: memberName, isObject: isObject, steps: steps, pieces: PaddedText.make(pieces),
                pieceEnds: pieceEnds, end: Int32(pieces.count), zeros: PaddedText.make(zeros), zeroEnds: zeroEnds,
                zerosEnd: Int32(zeros.count)
            )
        )
        self.storage = UnsafePointer(storage)
    }

    /// The name of the member the run is (`"setup"` of `"setup":{…}`), nil for members or an object value.
    var memberName: StaticString? { storage.pointee.memberName }
    /// Whether the run is an object (a value or a member), rather than members of the current object.
    var isObject: Bool { storage.pointee.isObject }
    /// What tells this run from the others (the same for its copies).
    var identity: UnsafeRawPointer { UnsafeRawPointer(storage) }
    /// The run's members in document order (inside the run's own object, if it is one).
    var steps: [NumberRunStep] { storage.pointee.steps }
    /// Writes the run one member at a time, `value` writing the value of the number at an index, for
    /// encoders without a text of their own.
    func encode<Encoder: JSONEncoding>(to encoder: inout Encoder, value: (Int, inout Encoder) -> Void) {
        let steps = self.steps
        var next = 0
        // the members up to the end of the current object
        func members(_ encoder: inout Encoder) {
            while next < steps.count {
                let step = steps[next]
                next += 1
                switch step {
                case let .open(name, _):
                    encoder.key(JSONKey(name))
                    encoder.object(members)
                case let .number(index, name, _):
                    encoder.key(JSONKey(name))
                    value(index, &encoder)
                case .close: return
                }
            }
        }
        if let memberName { encoder.key(JSONKey(memberName)) }
        if isObject { encoder.object(members) } else { members(&encoder) }
    }

    /// The most bytes `write(afterComma:to:values:value:)` or `write(afterComma:to:integers:)` stores when
    /// each value takes at most `maximumValueCount`.
    func maximumCount(valuesOfAtMost maximumValueCount: Int) -> Int {
        Int(storage.pointee.zerosEnd) + count * maximumValueCount + PaddedText.slack
    }

    /// Stores the run at `destination` (room for `maximumCount`), after a comma when `afterComma`, with
    /// the integers `values`: each streak of zeros copied with the text around it in one piece (from
    /// the run's text with every value zero), each other value written after its piece; returns how
    /// many bytes the run took. `values` (`count` of them) by span: a function reading a borrowed
    /// `InlineArray` by index first copied it whole onto its stack (280 bytes for a 35-number run).
    func write(afterComma: Bool, to destination: UnsafeMutablePointer<UInt8>, integers values: Span<Int>) -> Int {
        precondition(values.count == count, "a run of \(count) numbers given \(values.count)")
        let pieces = storage.pointee.pieces, zeros = storage.pointee.zeros
        var written = 0
        // where the text after the last number written starts, in `pieces` and in `zeros`
        var pieceStart = afterComma ? 0 : 1
        var zeroStart = pieceStart
        var index = 0
        while index < count {
            if values[index] == 0 {
                var last = index
                while last &+ 1 < count, values[last &+ 1] == 0 { last &+= 1 }
                let zeroEnd = Int(storage.pointee.zeroEnds[last])
                PaddedText.copy(zeros + zeroStart, count: zeroEnd &- zeroStart, to: destination + written)
                written &+= zeroEnd &- zeroStart
                pieceStart = Int(storage.pointee.pieceEnds[last])
                zeroStart = zeroEnd
                index = last &+ 1
            } else {
                let pieceEnd = Int(storage.pointee.pieceEnds[index])
                PaddedText.copy(pieces + pieceStart, count: pieceEnd &- pieceStart, to: destination + written)
                written &+= pieceEnd &- pieceStart
                written &+= DecimalDigits.write(values[index], to: destination + written)
                pieceStart = pieceEnd
                zeroStart = Int(storage.pointee.zeroEnds[index])
                index &+= 1
            }
        }
        let closing = Int(storage.pointee.end) &- pieceStart
        PaddedText.copy(pieces + pieceStart, count: closing, to: destination + written)
        return written &+ closing
    }

    /// Stores the run at `destination` (room for `maximumCount`), after a comma when `afterComma`, with
    /// `values`: `value` stores one at the address it is given and returns how many bytes it stored (it
    /// gets the value, not its index: a closure reading an index of the array would copy the array at
    /// each call); returns how many bytes the run took.
    @inline(__always)
    func write<Value>(
        afterComma: Bool, to destination: UnsafeMutablePointer<UInt8>, values: borrowing InlineArray<count, Value>,
        value: (Value, UnsafeMutablePointer<UInt8>) -> Int
    ) -> Int {
        let pieces = storage.pointee.pieces
        var written = 0
        var pieceStart = afterComma ? 0 : 1
        for index in 0..<count {
            let pieceEnd = Int(storage.pointee.pieceEnds[index])
            PaddedText.copy(pieces + pieceStart, count: pieceEnd &- pieceStart, to: destination + written)
            written &+= pieceEnd &- pieceStart
            written &+= value(values[index], destination + written)
            pieceStart = pieceEnd
        }
        let closing = Int(storage.pointee.end) &- pieceStart
        PaddedText.copy(pieces + pieceStart, count: closing, to: destination + written)
        return written &+ closing
    }
}

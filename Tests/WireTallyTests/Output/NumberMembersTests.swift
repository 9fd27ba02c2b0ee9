import Testing
@testable import WireTally

/// Runs of number members (`NumberMembers`) written as text at once by `JSONTextEncoder` say exactly
/// what the same members written one at a time say (`JSONTreeBuilder`, the default of every other
/// encoder): first in an object or after another member, as members, an object value or a member that
/// is an object, all zero or not, and across the buffer's growth.
private let members = NumberMembers<3>(["packets", "ip_bytes", "a"])
private let object = NumberMembers<3>(object: ["packets", "ip_bytes", "a"])
private let member = NumberMembers<3>(member: "setup", object: ["packets", "ip_bytes", "a"])
private let single = NumberMembers<1>(member: "only", object: ["x"])
/// Objects inside a run: first, in the middle, last, nested two deep, one after the other.
private let nested = NumberMembers<7>(
    member: "nest", object: [.object("first", ["packets"]), "b", .object("mid", [.object("deep", ["c", "d"]), "e"]),
                             .object("x", ["f"]), .object("last", ["g"])])

@Suite struct NumberMembersTests {

    /// Something written into any encoder.
    protocol Document {
        func write<Encoder: JSONEncoding>(to encoder: inout Encoder)
    }

    /// `document` written by the text encoder (into a buffer of `capacity` bytes) and by the tree builder.
    private func bothTexts(capacity: Int = 256, _ document: some Document) -> (text: String, tree: String) {
        var text = JSONTextEncoder(capacity: capacity)
        document.write(to: &text)
        return (text.buffer.text, JSONValue(encoding: { document.write(to: &$0) }).serialized)
    }

    struct EveryKindOfRun: Document {
        let values: InlineArray<3, Int>
        let leading: Bool
        /// The values of the run with objects inside (by default the three values over again).
        var nestedValues: InlineArray<7, Int>? = nil
        func write<Encoder: JSONEncoding>(to encoder: inout Encoder) {
            encoder.object { encoder in
                if leading { encoder.integerField("before", 5) }
                encoder.integerMembers(members, values)
                encoder.integerMembers(member, values)
                encoder.key("value")
                encoder.integerMembers(object, values)
                encoder.integerMembers(single, [values[0]])
                encoder.integerMembers(nested, nestedValues ?? [values[0], values[1], values[2], values[0], values[1], values[2], values[0]])
                encoder.field("after", "end")
            }
        }
    }

    @Test func integerRunsReadAsTheirMembers() {
        let valueSets: [InlineArray<3, Int>] = [[0, 0, 0], [1, 0, 0], [0, 0, -1], [12_345, 99, 7], [Int.max, Int.min, 10]]
        for values in valueSets {
            for leading in [false, true] {
                let written = bothTexts(EveryKindOfRun(values: values, leading: leading))
                #expect(written.text == written.tree, "\(leading) \(values[0]) \(values[1]) \(values[2])")
            }
        }
        #expect(bothTexts(Zeros()).text == #"{"setup":{"packets":0,"ip_bytes":0,"a":0}}"#)
        let arrayed = bothTexts(ObjectsInAnArray())
        #expect(arrayed.text == #"[{"packets":0,"ip_bytes":2,"a":0},{"packets":0,"ip_bytes":0,"a":0}]"#)
        #expect(arrayed.text == arrayed.tree)
    }

    struct Zeros: Document {
        func write<Encoder: JSONEncoding>(to encoder: inout Encoder) {
            encoder.object { $0.integerMembers(member, [0, 0, 0]) }
        }
    }

    struct ObjectsInAnArray: Document {
        func write<Encoder: JSONEncoding>(to encoder: inout Encoder) {
            encoder.array { encoder in
                encoder.integerMembers(object, [0, 2, 0])
                encoder.integerMembers(object, [0, 0, 0])
            }
        }
    }

    struct Durations: Document {
        let nanoseconds: InlineArray<3, Int64?>
        func write<Encoder: JSONEncoding>(to encoder: inout Encoder) {
            encoder.object { encoder in
                encoder.durationMembers(member, nanoseconds: nanoseconds)
                encoder.key("value")
                encoder.durationMembers(object, nanoseconds: nanoseconds)
            }
        }
    }

    @Test func durationRunsReadAsTheirMembers() {
        let durations: [InlineArray<3, Int64?>] = [[nil, nil, nil], [0, 1_000, nil], [12_345_678, -1_000, Int64.max]]
        for nanoseconds in durations {
            let written = bothTexts(Durations(nanoseconds: nanoseconds))
            #expect(written.text == written.tree)
        }
        // every thousandth (the point and three decimals stored at once), whole milliseconds of 1–5 digits
        for microseconds in Array(-1_000...2_000) + [9_999_999, 10_000_000, 12_345_678_901] {
            var encoder = JSONTextEncoder()
            encoder.milliseconds(Int64(microseconds) * 1_000 + (microseconds < 0 ? -999 : 999))  // truncated
            let magnitude = abs(microseconds), fraction = String(magnitude % 1_000)
            let expected = (microseconds < 0 ? "-" : "") + "\(magnitude / 1_000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
            #expect(encoder.buffer.text == expected, "\(microseconds)")
        }
        let phases = bothTexts(Durations(nanoseconds: [nil, 12_345_678, 0])).text
        #expect(phases == #"{"setup":{"packets":-1,"ip_bytes":12.345,"a":0.000},"value":{"packets":-1,"ip_bytes":12.345,"a":0.000}}"#)
    }

    struct ManyRuns: Document {
        func write<Encoder: JSONEncoding>(to encoder: inout Encoder) {
            encoder.array { encoder in
                for index in 0..<200 {
                    encoder.integerMembers(object, [index, index == 7 ? 0 : -index, 0])
                    encoder.durationMembers(object, nanoseconds: [Int64(index) * 1_000, nil, nil])
                }
            }
        }
    }

    /// A run names its members with its own copy of their UTF-8 (CSV columns are found by it), in
    /// document order with its objects opened and closed.
    @Test func runsKeepTheirNames() {
        func names(_ steps: [NumberRunStep]) -> [String] {
            steps.map { step in
                switch step {
                case let .open(name, bytes): return "{" + String(decoding: bytes, as: UTF8.self) + (name.description == String(decoding: bytes, as: UTF8.self) ? "" : "!")
                case let .number(index, name, bytes): return "\(index)" + String(decoding: bytes, as: UTF8.self) + (name.description == String(decoding: bytes, as: UTF8.self) ? "" : "!")
                case .close: return "}"
                }
            }
        }
        for run in [members, object, member] {
            #expect(names(run.steps) == ["0packets", "1ip_bytes", "2a"])
        }
        #expect(names(single.steps) == ["0x"])
        #expect(names(nested.steps) == ["{first", "0packets", "}", "1b", "{mid", "{deep", "2c", "3d", "}", "4e", "}", "{x", "5f", "}", "{last", "6g", "}"])
    }

    @Test func nestedRunText() {
        var encoder = JSONTextEncoder()
        encoder.object { $0.integerMembers(nested, [1, 0, 22, 333, 4_444, 55_555, 666_666]) }
        #expect(encoder.buffer.text == #"{"nest":{"first":{"packets":1},"b":0,"mid":{"deep":{"c":22,"d":333},"e":4444},"x":{"f":55555},"last":{"g":666666}}}"#)
        var zeros = JSONTextEncoder()
        zeros.object { encoder in
            encoder.integerField("a", 1)
            encoder.integerMembers(nested, [0, 0, 0, 0, 0, 0, 0])
        }
        #expect(zeros.buffer.text == #"{"a":1,"nest":{"first":{"packets":0},"b":0,"mid":{"deep":{"c":0,"d":0},"e":0},"x":{"f":0},"last":{"g":0}}}"#)
    }

    /// Every pattern of zeros and other values — streaks of zeros copied in one piece that start, end or
    /// cross an object's braces, first in an object or after a member, in pieces longer than the 32 bytes
    /// copied at once — reads as the members written one at a time.
    @Test func everyPatternOfZerosReadsAsItsMembers() {
        for pattern in 0..<(1 << 7) {
            var values = InlineArray<7, Int>(repeating: 0)
            for index in 0..<7 where pattern & (1 << index) != 0 { values[index] = (index + 1) * 111 }
            for leading in [false, true] {
                let run = EveryKindOfRun(values: [values[0], values[1], values[2]], leading: leading, nestedValues: values)
                let written = bothTexts(run)
                #expect(written.text == written.tree, "\(pattern) \(leading)")
            }
        }
        for pattern in 0..<(1 << 3) {
            let values: InlineArray<3, Int> = [pattern & 1 == 0 ? 0 : 7, pattern & 2 == 0 ? 0 : 8, pattern & 4 == 0 ? 0 : 9]
            let written = bothTexts(LongPieces(values: values))
            #expect(written.text == written.tree, "\(pattern)")
        }
    }

    /// Pieces longer than the 32 bytes copied at once (a long name, an object opened after another closed),
    /// with values at every power of ten, one below it, negative and at the extremes: the text reads as the
    /// members written one at a time.
    @Test func longPiecesAndEveryPowerOfTen() {
        var values: [Int] = [0, -1, Int.max, Int.min]
        var power = 1
        for _ in 0..<18 {
            power *= 10
            values += [power, power - 1, -power]
        }
        for value in values {
            let written = bothTexts(LongPieces(values: [value, 0, value]))
            #expect(written.text == written.tree, "\(value)")
        }
        #expect(bothTexts(LongPieces(values: [7, 0, 12])).text == #"{"first":1,"a_member_name_well_over_thirty_two_bytes_long":{"deep":{"packets":7},"another_object_whose_piece_is_over_sixty_four_bytes_long_in_all":{"x":0,"y":12}}}"#)
    }

    private static let longPieces = NumberMembers<3>(
        member: "a_member_name_well_over_thirty_two_bytes_long",
        object: [.object("deep", ["packets"]), .object("another_object_whose_piece_is_over_sixty_four_bytes_long_in_all", ["x", "y"])])

    struct LongPieces: Document {
        let values: InlineArray<3, Int>
        func write<Encoder: JSONEncoding>(to encoder: inout Encoder) {
            encoder.object { encoder in
                encoder.integerField("first", 1)
                encoder.integerMembers(NumberMembersTests.longPieces, values)
            }
        }
    }

    /// CSV cells of runs — their columns one after the other, in another order, some missing or none
    /// there — are the flattened values of the same members, row after row (the run's placement kept).
    @Test func csvCellsOfRunsAreTheFlattenedMembers() {
        let allColumns = ["packets", "ip_bytes", "a", "setup_packets", "setup_ip_bytes", "setup_a", "value_packets",
                          "value_ip_bytes", "value_a", "only_x", "nest_first_packets", "nest_b", "nest_mid_deep_c",
                          "nest_mid_deep_d", "nest_mid_e", "nest_x_f", "nest_last_g", "after"]
        let columnLists = [allColumns, allColumns.reversed(), allColumns.filter { !$0.hasPrefix("setup") },
                           ["value_a", "after", "value_packets", "only_x"], ["after"],
                           allColumns.filter { !$0.hasPrefix("nest_mid") }, ["nest_mid_deep_d", "nest_b", "after"]]
        for columns in columnLists {
            var row = CSVRowEncoder(columns: columns)
            for values: InlineArray<3, Int> in [[1, 0, 22], [0, 0, 0], [-5, 333, 4]] {
                let document = EveryKindOfRun(values: values, leading: false)
                row.reset()
                document.write(to: &row)
                let cells = (0..<row.columnCount).map { String(decoding: row.cell($0), as: UTF8.self) }
                let flattened = CSVRowEncoderTests.flattenedCells(of: JSONValue(encoding: { document.write(to: &$0) }), columns: columns)
                #expect(cells == flattened, "\(columns) \(values[0]) \(values[1]) \(values[2])")
            }
        }
    }

    /// A tiny buffer grows for each run: the text is that of a large one.
    @Test func runsWrittenAcrossBufferGrowth() {
        let small = bothTexts(capacity: 16, ManyRuns())
        #expect(small.text == bothTexts(capacity: 1 << 16, ManyRuns()).text)
        #expect(small.text == small.tree)
    }
}

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
        func write<Encoder: JSONEncoding>(to encoder: inout Encoder) {
            encoder.object { encoder in
                if leading { encoder.integerField("before", 5) }
                encoder.integerMembers(members, values)
                encoder.integerMembers(member, values)
                encoder.key("value")
                encoder.integerMembers(object, values)
                encoder.integerMembers(single, [values[0]])
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

    /// A run names its members with its own copy of their UTF-8 (CSV columns are found by it).
    @Test func runsKeepTheirNames() {
        for run in [members, object, member] {
            let names = (0..<3).map { String(decoding: run.nameBytes(at: $0), as: UTF8.self) }
            #expect(names == ["packets", "ip_bytes", "a"])
        }
        #expect(String(decoding: single.nameBytes(at: 0), as: UTF8.self) == "x")
    }

    /// CSV cells of runs — their columns one after the other, in another order, some missing or none
    /// there — are the flattened values of the same members, row after row (the run's placement kept).
    @Test func csvCellsOfRunsAreTheFlattenedMembers() {
        let allColumns = ["packets", "ip_bytes", "a", "setup_packets", "setup_ip_bytes", "setup_a", "value_packets",
                          "value_ip_bytes", "value_a", "only_x", "after"]
        let columnLists = [allColumns, allColumns.reversed(), allColumns.filter { !$0.hasPrefix("setup") },
                           ["value_a", "after", "value_packets", "only_x"], ["after"]]
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

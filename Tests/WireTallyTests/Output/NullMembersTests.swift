import Testing
@testable import WireTally

/// Members all null written at once (`NullMembers`): the text encoder's one copy writes what a key and a
/// `null` per member write — first in an object or after a member, a name longer than the 32 bytes copied
/// at once included — and the tree builder and CSV read them as those members.
@Suite struct NullMembersTests {
    private static let members = NullMembers([
        JSONKey(prebuilt: "a"), JSONKey(prebuilt: "a_member_name_longer_than_thirty_two_bytes"), "c",
    ])

    private static func write<Encoder: JSONEncoding>(first: Bool, to encoder: inout Encoder) {
        encoder.object { encoder in
            if !first { encoder.field("before", 1) }
            encoder.nullMembers(members)
            encoder.field("after", 2)
        }
    }

    @Test func textEqualsAKeyAndANullPerMember() {
        for first in [true, false] {
            var text = JSONTextEncoder(capacity: 16)
            Self.write(first: first, to: &text)
            let expected = "{" + (first ? "" : "\"before\":1,")
                + "\"a\":null,\"a_member_name_longer_than_thirty_two_bytes\":null,\"c\":null,\"after\":2}"
            #expect(text.buffer.text == expected)
            #expect(JSONValue { Self.write(first: first, to: &$0) }.serialized == expected)
        }
    }

    @Test func csvCellsAreEmpty() {
        let lines = CSVRowEncoderTests.lines(columns: ["before", "a", "c", "after"]) { Self.write(first: false, to: &$0) }
        #expect(lines.line == "1,,,2\n")
        #expect(lines.cells == "1,,,2\n")
    }

    /// The CSV encoder places the members once, as a run (the cells written after the line reuse the
    /// placement): a member without a column is dropped, and one whose column was passed takes the line
    /// back (written as cells).
    @Test func csvCellsOfMembersOutOfTheColumnsOrderOrWithoutAColumn() {
        let onlyC = CSVRowEncoderTests.lines(columns: ["before", "c", "after", "never"]) { Self.write(first: false, to: &$0) }
        #expect(onlyC.line == "1,,2,\n")
        #expect(onlyC.cells == "1,,2,\n")
        let passed = CSVRowEncoderTests.lines(columns: ["a", "before", "after"]) { Self.write(first: false, to: &$0) }
        #expect(passed.line == nil)
        #expect(passed.cells == ",1,2\n")
        let none = CSVRowEncoderTests.lines(columns: ["before", "after"]) { Self.write(first: false, to: &$0) }
        #expect(none.line == "1,2\n")
        #expect(none.cells == "1,2\n")
    }
}

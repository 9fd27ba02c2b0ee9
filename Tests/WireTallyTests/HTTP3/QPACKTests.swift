import Testing
@testable import WireTally

/// The QPACK decoder against RFC 9204 Appendix B and vectors made by pylsqpack 1.0.0 (ls-qpack).
@Suite struct QPACKTests {
    private func decode(_ state: inout QPACKDecoderState, _ hex: String) -> QPACKSectionOutcome {
        HTTP3Fixtures.hex(hex).withUnsafeBytes { state.decodeSection($0) }
    }

    private func encoder(_ state: inout QPACKDecoderState, _ hex: String) {
        HTTP3Fixtures.hex(hex).withUnsafeBytes { state.encoderStream($0) }
    }

    private func fields(_ outcome: QPACKSectionOutcome) -> [[String]]? {
        guard case .fields(let list) = outcome else { return nil }
        return list.map { [$0.name, $0.value] }
    }

    /// B.1–B.5 in order on one decoder: literal with static name reference, inserts with static name
    /// references and post-base indices, a speculative literal-name insert, Duplicate with dynamic and
    /// static indexed lines (Required Insert Count 4 encoded as 5, Base 4), and the eviction B.5 causes.
    @Test func rfc9204AppendixB() {
        var state = QPACKDecoderState(maxListSize: 1 << 16)
        state.advertisedMaxCapacity = 220
        // B.1
        #expect(fields(decode(&state, "0000 510b 2f69 6e64 6578 2e68 746d 6c")) == [[":path", "/index.html"]])
        // B.2
        encoder(&state, "3fbd01 c00f 7777 772e 6578 616d 706c 652e 636f 6d c10c 2f73 616d 706c 652f 7061 7468")
        #expect(state.table.capacity == 220 && state.table.size == 106 && state.table.insertCount == 2)
        #expect(fields(decode(&state, "0381 10 11")) == [[":authority", "www.example.com"], [":path", "/sample/path"]])
        // B.3
        encoder(&state, "4a63 7573 746f 6d2d 6b65 790c 6375 7374 6f6d 2d76 616c 7565")
        #expect(state.table.size == 160)
        // B.4
        encoder(&state, "02")
        #expect(state.table.size == 217 && state.table.insertCount == 4)
        #expect(fields(decode(&state, "0500 80 c1 81"))
            == [[":authority", "www.example.com"], [":path", "/"], ["custom-key", "custom-value"]])
        // B.5: the insert evicts entry 0.
        encoder(&state, "810d 6375 7374 6f6d 2d76 616c 7565 32")
        #expect(state.table.size == 215 && state.table.count == 4 && state.table.insertCount == 5)
        #expect(state.table.entry(absolute: 0) == nil)
        #expect(state.table.entry(absolute: 4).map { [$0.name, $0.value] } == ["custom-key", "custom-value2"])
        #expect(state.tableState == .intact)
    }

    /// The decoder-stream instructions of Appendix B (Section Acknowledgment, Insert Count Increment,
    /// Stream Cancellation) are read and counted, each cut anywhere.
    @Test func decoderStreamInstructions() {
        var reader = QPACKDecoderStreamReader()
        for byte in HTTP3Fixtures.hex("84 01 48 ff 80 01") { [byte].withUnsafeBytes { reader.read($0) } }
        #expect(reader.sectionAcknowledgments == 2 && reader.insertCountIncrements == 1 && reader.streamCancellations == 1)
        #expect(!reader.failed)
    }

    /// Prefixed integers (RFC 7541 C.1 values) and their overflow guard.
    @Test func prefixedIntegers() {
        func read(_ bytes: [UInt8], _ prefix: Int) -> QPACKRead<UInt64> { bytes.withUnsafeBytes { QPACKInteger.read($0, at: 0, prefixBits: prefix) } }
        guard case .value(10, 1) = read([0x0a], 5), case .value(1337, 3) = read([0x1f, 0x9a, 0x0a], 5),
            case .needs(3) = read([0x1f, 0x9a], 5)
        else { Issue.record("prefixed integer"); return }
        guard case .invalid = read([0xff] + Array(repeating: 0xff, count: 12) + [0x01], 8) else {
            Issue.record("an integer past 2^62 must be invalid")
            return
        }
    }

    /// Every case of qpack-vectors.json: the encoder stream and sections as pylsqpack's Encoder wrote
    /// them (Huffman, dynamic inserts, post-base references, a small table that evicts, sections sent
    /// before their inserts) decode to the header lists pylsqpack's Decoder gave; blocked sections
    /// decode after the very step pylsqpack's did. Encoder bytes are fed whole and in 1-byte pieces.
    @Test(arguments: [false, true]) func pylsqpackVectors(byteByByte: Bool) throws {
        let cases = try HTTP3Fixtures.json("qpack-vectors.json")["cases"] as! [[String: Any]]
        #expect(cases.count == 6)
        for testCase in cases {
            let name = testCase["name"] as! String
            let settings = testCase["settings"] as! [String: Int]
            let steps = testCase["steps"] as! [[String: Any]]
            let expected = testCase["expected"] as! [[String: Any]]
            var state = QPACKDecoderState(maxListSize: 1 << 16)
            state.advertisedMaxCapacity = UInt64(settings["capacity"]!)
            var results: [Int: [[String]]] = [:]
            var blockedAt: [Int: Int] = [:]
            var waiting: [(index: Int, hex: String)] = []
            var sectionIndex = 0
            for (stepIndex, step) in steps.enumerated() {
                if let hex = step["encoder"] as? String {
                    let bytes = HTTP3Fixtures.hex(hex)
                    if byteByByte {
                        for byte in bytes { [byte].withUnsafeBytes { state.encoderStream($0) } }
                    } else {
                        bytes.withUnsafeBytes { state.encoderStream($0) }
                    }
                    waiting.removeAll { entry in
                        guard let decoded = fields(decode(&state, entry.hex)) else { return false }
                        results[entry.index] = decoded
                        blockedAt[entry.index] = stepIndex
                        return true
                    }
                } else {
                    let hex = step["section"] as! String
                    let outcome = decode(&state, hex)
                    if case .blocked = outcome { waiting.append((sectionIndex, hex)) } else { results[sectionIndex] = fields(outcome) }
                    sectionIndex += 1
                }
            }
            #expect(waiting.isEmpty, "\(name): sections still blocked")
            for (index, entry) in expected.enumerated() {
                #expect(results[index] == entry["headers"] as? [[String]], "\(name) section \(index)")
                #expect(blockedAt[index] == entry["blocked_until_step"] as? Int, "\(name) section \(index) blocked until")
            }
            #expect(state.tableState == .intact, "\(name)")
        }
    }

    /// Errors stay in their section: a reference past the Required Insert Count, an index outside
    /// the static table, an invalid Huffman string and a list over the cap fail; the next section
    /// decodes with the table intact.
    @Test func sectionErrorsDoNotPoisonTheTable() {
        var state = QPACKDecoderState(maxListSize: 60)
        state.advertisedMaxCapacity = 220
        encoder(&state, "3fbd01 c00f 7777 772e 6578 616d 706c 652e 636f 6d")
        guard case .failed(.malformed) = decode(&state, "0200 81"),  // relative index 1 with Base 1: before entry 0
            case .failed(.malformed) = decode(&state, "0000 ff24"),  // static index 99
            case .failed(.malformed) = decode(&state, "0000 5f1d 81ff"),  // Huffman: EOS-like padding
            case .failed(.tooLarge) = decode(&state, "0000 510b 2f69 6e64 6578 2e68 746d 6c 510b 2f69 6e64 6578 2e68 746d 6c")
        else { Issue.record("errors expected"); return }
        #expect(fields(decode(&state, "0200 80")) == [[":authority", "www.example.com"]])
        #expect(state.tableState == .intact)
    }

    /// An invalid encoder instruction (a dynamic name reference to an entry that does not exist)
    /// loses the table: dynamic references fail as `.tableLost`, static-only sections still decode.
    /// The dynamic table is honoured up to `QPACKDecoderState.maxTableCapacity` (1 MiB) even when the
    /// peer allowed more: a larger Set Dynamic Table Capacity loses the table (its sections fail as
    /// `tableLost`), 1 MiB itself is taken.
    @Test func tableCapacityIsCappedAtOneMebibyte() {
        var capped = QPACKDecoderState(maxListSize: 1 << 16)
        capped.advertisedMaxCapacity = 4 << 20
        encoder(&capped, "3fe1ff3f")  // capacity 2^20
        #expect(capped.tableState == .intact && capped.table.capacity == QPACKDecoderState.maxTableCapacity)
        var over = QPACKDecoderState(maxListSize: 1 << 16)
        over.advertisedMaxCapacity = 4 << 20
        encoder(&over, "3fe1ff7f")  // capacity 2^21
        #expect(over.tableState == .failed)
        guard case .failed(.tableLost) = decode(&over, "0200 80") else { Issue.record("tableLost expected"); return }
    }

    @Test func invalidEncoderStreamLosesTheTable() {
        var state = QPACKDecoderState(maxListSize: 1 << 16)
        state.advertisedMaxCapacity = 220
        encoder(&state, "3fbd01 8503 616263")
        #expect(state.tableState == .failed)
        guard case .failed(.tableLost) = decode(&state, "0200 80") else { Issue.record("tableLost expected"); return }
        #expect(fields(decode(&state, "0000 d1")) == [[":method", "GET"]])
    }
}

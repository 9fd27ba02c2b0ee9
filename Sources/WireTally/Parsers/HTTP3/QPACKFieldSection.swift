/// Why a field section could not be decoded.
enum QPACKSectionError: Equatable, Sendable {
    /// Not valid QPACK: a bad prefix, integer or string, a reference outside the table or past the
    /// Required Insert Count (RFC 9204 §2.2.3: QPACK_DECOMPRESSION_FAILED).
    case malformed
    /// The decoded list is larger than the cap (`HTTPLimits.maxHeaderBytes`, RFC 9204 sizes).
    case tooLarge
    /// The section refers to the dynamic table, whose state was lost (a gap in or an invalid encoder stream).
    case tableLost
}

/// What decoding a field section gave.
enum QPACKSectionOutcome {
    case fields([(name: String, value: String)])
    /// It refers to inserts not received yet (or the table size needed to read its prefix is not known yet).
    case blocked
    case failed(QPACKSectionError)
}

/// Decodes encoded field sections (RFC 9204 §4.5) against a dynamic table.
struct QPACKFieldSectionReader {
    let table: QPACKDynamicTable
    /// MaxEntries (§4.5.1.1): the decoder's maximum table capacity / 32; nil when not known yet.
    let maxEntries: UInt64?
    /// The table's state cannot be trusted: sections that refer to it fail.
    let tableLost: Bool
    let maxListSize: Int

    func decode(_ p: UnsafeRawBufferPointer, huffman: inout QPACKHuffman) -> QPACKSectionOutcome {
        guard case .value(let encodedInsertCount, let afterCount) = QPACKInteger.read(p, at: 0, prefixBits: 8),
            afterCount < p.count
        else { return .failed(.malformed) }
        let required: UInt64
        if encodedInsertCount == 0 {
            required = 0
        } else {
            if tableLost { return .failed(.tableLost) }
            guard let maxEntries, maxEntries > 0 else { return .blocked }
            guard let count = Self.requiredInsertCount(encodedInsertCount, maxEntries: maxEntries, totalInserts: table.insertCount)
            else { return .failed(.malformed) }
            required = count
        }
        if required > table.insertCount { return .blocked }
        let negative = p[afterCount] & 0x80 != 0
        guard case .value(let delta, var i) = QPACKInteger.read(p, at: afterCount, prefixBits: 7) else { return .failed(.malformed) }
        if negative && delta >= required { return .failed(.malformed) }
        let base = negative ? required - delta - 1 : required + delta
        var fields: [(name: String, value: String)] = []
        var listSize = 0
        while i < p.count {
            guard case .value(let field, let end) = readFieldLine(p, at: i, required: required, base: base, huffman: &huffman)
            else { return .failed(.malformed) }
            listSize += field.name.utf8.count + field.value.utf8.count + 32
            if listSize > maxListSize { return .failed(.tooLarge) }
            fields.append(field)
            i = end
        }
        return .fields(fields)
    }

    /// Required Insert Count from its encoding (RFC 9204 §4.5.1.1); nil when invalid.
    static func requiredInsertCount(_ encoded: UInt64, maxEntries: UInt64, totalInserts: UInt64) -> UInt64? {
        let fullRange = 2 * maxEntries
        guard encoded <= fullRange else { return nil }
        let maxValue = totalInserts + maxEntries
        let maxWrapped = maxValue / fullRange * fullRange
        var required = maxWrapped + encoded - 1
        if required > maxValue {
            guard required > fullRange else { return nil }
            required -= fullRange
        }
        return required == 0 ? nil : required
    }

    /// One field line representation (RFC 9204 §4.5.2–§4.5.6).
    private func readFieldLine(
        _ p: UnsafeRawBufferPointer, at start: Int, required: UInt64, base: UInt64, huffman: inout QPACKHuffman
    ) -> QPACKRead<(name: String, value: String)> {
        let first = p[start]
        let maxLength = p.count
        switch first {
        case 0x80...:
            // Indexed field line: static (T) or dynamic relative to Base.
            return QPACKInteger.read(p, at: start, prefixBits: 6).then { index, end in
                guard let entry = first & 0x40 != 0 ? Self.staticEntry(index) : dynamicEntry(relative: index, base: base, required: required)
                else { return .invalid }
                return .value(entry, end: end)
            }
        case 0x40...:
            // Literal field line with name reference (N bit 0x20: never indexed, kept as is).
            return QPACKInteger.read(p, at: start, prefixBits: 4).then { index, end in
                guard let entry = first & 0x10 != 0 ? Self.staticEntry(index) : dynamicEntry(relative: index, base: base, required: required)
                else { return .invalid }
                return QPACKString.read(p, at: end, prefixBits: 7, maxLength: maxLength, huffman: &huffman).map { (entry.name, $0) }
            }
        case 0x20...:
            // Literal field line with literal name.
            return QPACKString.read(p, at: start, prefixBits: 3, maxLength: maxLength, huffman: &huffman).then { name, end in
                QPACKString.read(p, at: end, prefixBits: 7, maxLength: maxLength, huffman: &huffman).map { (name, $0) }
            }
        case 0x10...:
            // Indexed field line with post-base index.
            return QPACKInteger.read(p, at: start, prefixBits: 4).then { index, end in
                guard let entry = dynamicEntry(absolute: base + index, required: required) else { return .invalid }
                return .value(entry, end: end)
            }
        default:
            // Literal field line with post-base name reference.
            return QPACKInteger.read(p, at: start, prefixBits: 3).then { index, end in
                guard let entry = dynamicEntry(absolute: base + index, required: required) else { return .invalid }
                return QPACKString.read(p, at: end, prefixBits: 7, maxLength: maxLength, huffman: &huffman).map { (entry.name, $0) }
            }
        }
    }

    private static func staticEntry(_ index: UInt64) -> (name: String, value: String)? { QPACKStaticTable.entry(index) }

    private func dynamicEntry(relative index: UInt64, base: UInt64, required: UInt64) -> (name: String, value: String)? {
        guard index < base else { return nil }
        return dynamicEntry(absolute: base - 1 - index, required: required)
    }

    /// Entries at or past the Required Insert Count may not be referenced (§2.2.3).
    private func dynamicEntry(absolute index: UInt64, required: UInt64) -> (name: String, value: String)? {
        guard index < required, let entry = table.entry(absolute: index) else { return nil }
        return (entry.name, entry.value)
    }
}

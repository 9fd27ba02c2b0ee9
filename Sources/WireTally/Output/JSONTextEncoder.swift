/// Compact JSON text appended straight to a byte buffer: numbers formatted and strings escaped
/// byte-wise, without building `String`s.
///
/// Each piece (a key with its quotes and colon, a number, a string…) makes room in the buffer once,
/// then is stored without further checks, the comma before it included. Copies of an encoder write
/// into the same buffer.
struct JSONTextEncoder: JSONEncoding {
    /// The text written so far (UTF-8).
    let buffer: ByteBuffer
    /// Whether the next member or element follows another in its container, so needs a comma.
    private var followsValue = false
    /// The timestamps' formatter, which keeps the text of the last one's second.
    private var timestamps = TimestampFormatter()
    /// The texts of IPv4 endpoints written lately (a connection's, again for each of its exchanges).
    private var endpoints = IPv4EndpointTexts()

    init(capacity: Int = 256) {
        buffer = ByteBuffer(capacity: capacity)
    }

    /// An encoder appending a new value to `buffer` (no comma before it).
    init(appendingTo buffer: ByteBuffer) {
        self.buffer = buffer
    }

    /// Ends a JSON Lines line: the next value starts a new document.
    mutating func endLine() {
        buffer.append(UInt8(ascii: "\n"))
        followsValue = false
    }

    /// Inlined for a prebuilt key (a few moves); a literal's text is made by a call.
    @inline(__always)
    mutating func key(_ name: JSONKey) {
        if name.text == nil { return literalKey(name) }
        appendKey(name)
    }

    @inline(never)
    private mutating func literalKey(_ name: JSONKey) { appendKey(name) }

    @inline(__always)
    private mutating func appendKey(_ name: JSONKey) {
        buffer.commit(storeKey(name, at: buffer.freeSpace(atLeast: Self.maximumKeyCount(name))))
        followsValue = false
    }

    mutating func field(_ name: JSONKey, literal value: StaticString) {
        guard value.hasPointerRepresentation else {
            key(name)
            value.withUTF8Buffer { [buffer] in Self.appendString($0, afterComma: false, to: buffer) }
            followsValue = true
            return
        }
        let valueCount = value.utf8CodeUnitCount
        let space = buffer.freeSpace(atLeast: Self.maximumKeyCount(name) &+ valueCount &+ 2)
        let keyEnd = storeKey(name, at: space)
        space[keyEnd] = UInt8(ascii: "\"")
        (space + (keyEnd &+ 1)).storeBytes(of: UnsafeBufferPointer(start: value.utf8Start, count: valueCount))
        space[keyEnd &+ 1 &+ valueCount] = UInt8(ascii: "\"")
        buffer.commit(keyEnd &+ valueCount &+ 2)
        followsValue = true
    }

    mutating func dynamicKey(_ name: String) {
        string(name)
        buffer.append(UInt8(ascii: ":"))
        followsValue = false
    }

    mutating func object(_ body: (inout JSONTextEncoder) -> Void) {
        container(opening: UInt8(ascii: "{"), closing: UInt8(ascii: "}"), body)
    }

    mutating func array(_ body: (inout JSONTextEncoder) -> Void) {
        container(opening: UInt8(ascii: "["), closing: UInt8(ascii: "]"), body)
    }

    mutating func string(_ value: String) {
        if let small = SmallASCIIString(value), appendSmallString(small) { return }
        Self.withUTF8(of: value) { [buffer, followsValue] in
            Self.appendString($0, afterComma: followsValue, to: buffer)
        }
        followsValue = true
    }

    /// A small ASCII string (`GET`, `HTTP/1.1`, `Not Modified`) as `appendString` writes it, when none of
    /// its bytes needs escaping: its two words stored after the quote, tested where they are; returns
    /// false, having written nothing, when one needs escaping.
    @inline(__always)
    private mutating func appendSmallString(_ small: SmallASCIIString) -> Bool {
        let words = small.words(fillingWith: UInt8(ascii: " "))
        guard Self.escapeBits(words.low) | Self.escapeBits(words.high) == 0 else { return false }
        let space = buffer.freeSpace(atLeast: 1 + 1 + 16 + 1)
        space.pointee = UInt8(ascii: ",")
        let quote = followsValue ? 1 : 0
        space[quote] = UInt8(ascii: "\"")
        small.store(to: space + quote + 1)
        space[quote &+ 1 &+ small.count] = UInt8(ascii: "\"")
        buffer.commit(quote &+ small.count &+ 2)
        followsValue = true
        return true
    }

    mutating func string(utf8: UnsafeRawBufferPointer) {
        Self.appendString(utf8.assumingMemoryBound(to: UInt8.self), afterComma: followsValue, to: buffer)
        followsValue = true
    }

    mutating func integer(_ value: Int) {
        appendValue(maximumCount: DecimalDigits.maximumIntegerCount) { DecimalDigits.write(value, to: $0) }
    }

    mutating func number(_ literal: String) {
        Self.withUTF8(of: literal) { [buffer, followsValue] in
            Self.appendLiteral($0, afterComma: followsValue, to: buffer)
        }
        followsValue = true
    }

    mutating func timestamp(_ timestamp: Timestamp, digits: Int) {
        let space = valueSpace(maximumCount: Timestamp.maximumFormattedCount)
        commitValue(timestamps.write(timestamp, digits: digits, to: space))
    }

    mutating func milliseconds(_ nanoseconds: Int64) {
        appendValue(maximumCount: DecimalDigits.maximumMillisecondsCount) { DecimalDigits.writeMilliseconds(nanoseconds, to: $0) }
    }

    mutating func endpoint(_ address: IPAddress, port: UInt16) {
        guard !address.isIPv6 else { return string(address.endpoint(port: port)) }
        let space = valueSpace(maximumCount: IPv4EndpointTexts.maximumCount + 2)
        space.pointee = UInt8(ascii: "\"")
        let count = endpoints.write(address, port: port, to: space + 1)
        space[count &+ 1] = UInt8(ascii: "\"")
        commitValue(count &+ 2)
    }

    /// Inlined: one 8-byte store of `true` or `false` and what follows (overwritten next).
    @inline(__always)
    mutating func bool(_ value: Bool) {
        let space = valueSpace(maximumCount: 8)
        UnsafeMutableRawPointer(space).storeBytes(of: (value ? Self.trueText : Self.falseText).littleEndian, as: UInt64.self)
        commitValue(value ? 4 : 5)
    }

    /// Inlined: one 4-byte store.
    @inline(__always)
    mutating func null() {
        let space = valueSpace(maximumCount: 4)
        UnsafeMutableRawPointer(space).storeBytes(of: Self.nullText.littleEndian, as: UInt32.self)
        commitValue(4)
    }

    /// `null`, `true` and `false` as the words whose bytes in memory order (little-endian) they are.
    private static var nullText: UInt32 { 0x6c6c_756e }
    private static var trueText: UInt64 { 0x6575_7274 }
    private static var falseText: UInt64 { 0x65_736c_6166 }

    private mutating func container(opening: UInt8, closing: UInt8, _ body: (inout JSONTextEncoder) -> Void) {
        open(opening)
        body(&self)
        close(closing)
    }

    /// Opens an object or array (`opening`: `{` or `[`): its members or elements are written next, then
    /// `close` ends it. Inlined, as it was inside `container`.
    @inline(__always)
    mutating func open(_ opening: UInt8) {
        appendValue(maximumCount: 1) { destination in
            destination.pointee = opening
            return 1
        }
        followsValue = false
    }

    /// Ends the object or array `open` began (`closing`: `}` or `]`).
    @inline(__always)
    mutating func close(_ closing: UInt8) {
        buffer.append(closing)
        followsValue = true
    }

    /// A value `write` stores at the address it is given, in at most `maximumCount` bytes, returning
    /// how many it stored; preceded by a comma when it follows another value.
    @inline(__always)
    private mutating func appendValue(maximumCount: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        commitValue(write(valueSpace(maximumCount: maximumCount)))
    }

    /// Where the next value is stored, with room for `maximumCount` bytes (the comma before it, when it
    /// follows another value, stored already); `commitValue` adds what was stored there.
    @inline(__always)
    private func valueSpace(maximumCount: Int) -> UnsafeMutablePointer<UInt8> {
        let space = buffer.freeSpace(atLeast: 1 + maximumCount)
        space.pointee = UInt8(ascii: ",")
        return followsValue ? space + 1 : space
    }

    /// Adds the value of `count` bytes stored at the last `valueSpace`, with its comma.
    @inline(__always)
    private mutating func commitValue(_ count: Int) {
        buffer.commit((followsValue ? 1 : 0) &+ count)
        followsValue = true
    }

    /// A member with an integer value, key and number made room for at once.
    mutating func integerField(_ name: JSONKey, _ value: Int) {
        let space = buffer.freeSpace(atLeast: Self.maximumKeyCount(name) &+ DecimalDigits.maximumIntegerCount)
        let keyEnd = storeKey(name, at: space)
        buffer.commit(keyEnd &+ DecimalDigits.write(value, to: space + keyEnd))
        followsValue = true
    }

    /// Inlined, so that the run's writer reads `values` where the caller made them (`values.span`): an
    /// `InlineArray` parameter read by index was copied whole onto the stack.
    @inline(__always)
    mutating func integerMembers<let count: Int>(_ members: NumberMembers<count>, _ values: InlineArray<count, Int>) {
        let space = buffer.freeSpace(atLeast: members.maximumCount(valuesOfAtMost: DecimalDigits.maximumIntegerCount))
        buffer.commit(members.write(afterComma: followsValue, to: space, integers: values.span))
        followsValue = true
    }

    mutating func durationMembers<let count: Int>(_ members: NumberMembers<count>, nanoseconds: InlineArray<count, Int64?>) {
        let space = buffer.freeSpace(atLeast: members.maximumCount(valuesOfAtMost: DecimalDigits.maximumMillisecondsCount))
        buffer.commit(
            members.write(afterComma: followsValue, to: space, values: nanoseconds) { DecimalDigits.writeDuration($0, to: $1) }
        )
        followsValue = true
    }

    /// Inlined: one copy of the members' text.
    @inline(__always)
    mutating func nullMembers(_ members: NullMembers) {
        let skipped = followsValue ? 0 : 1  // the comma of the text `,"name":null…`
        let space = buffer.freeSpace(atLeast: members.textCount &+ PaddedText.slack)
        PaddedText.copy(members.text + skipped, count: members.textCount &- skipped, to: space)
        buffer.commit(members.textCount &- skipped)
        followsValue = true
    }

    /// The room `storeKey` needs for `name`.
    @inline(__always)
    private static func maximumKeyCount(_ name: JSONKey) -> Int {
        name.textCount &+ PaddedText.slack
    }

    /// Stores `"name":` at `destination` (room for `maximumKeyCount(name)`), after a comma when it
    /// follows a value; returns how many bytes it stored.
    @inline(__always)
    private func storeKey(_ name: JSONKey, at destination: UnsafeMutablePointer<UInt8>) -> Int {
        let skipped = followsValue ? 0 : 1  // the comma of the text `,"name":`
        if let text = name.text {
            PaddedText.copy(text + skipped, count: name.textCount &- skipped, to: destination)
            return name.textCount &- skipped
        }
        destination.pointee = UInt8(ascii: ",")
        let start = destination + (1 &- skipped)
        start.pointee = UInt8(ascii: "\"")
        // (withUTF8Buffer also reads a literal made from one Unicode scalar, held by value)
        let count = name.name.withUTF8Buffer { utf8 in
            (start + 1).storeBytes(of: utf8)
            return utf8.count
        }
        start[count &+ 1] = UInt8(ascii: "\"")
        start[count &+ 2] = UInt8(ascii: ":")
        return count &+ 4 &- skipped
    }

    /// `literal` as it is, after a comma when `afterComma`.
    @inline(__always)
    private static func appendLiteral(_ literal: UnsafeBufferPointer<UInt8>, afterComma: Bool, to buffer: ByteBuffer) {
        let comma = afterComma ? 1 : 0
        let space = buffer.freeSpace(atLeast: 1 + literal.count)
        space.pointee = UInt8(ascii: ",")
        (space + comma).storeBytes(of: literal)
        buffer.commit(comma &+ literal.count)
    }

    /// `body` run on the UTF-8 of `string`, read where it is stored (native strings are contiguous), for
    /// the text encoders.
    static func withUTF8(of string: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        if string.utf8.withContiguousStorageIfAvailable(body) != nil { return }
        var string = string
        string.withUTF8(body)
    }

    private static var hexDigits: StaticString { "0123456789abcdef" }

    /// A JSON string, after a comma when `afterComma`: `"`, `\`, LF, CR and tab get their short
    /// escapes, other control characters `\u00XX`; every other byte (UTF-8 included) is copied as is.
    private static func appendString(_ utf8: UnsafeBufferPointer<UInt8>, afterComma: Bool, to buffer: ByteBuffer) {
        let count = utf8.count
        if count < 8, appendShortString(utf8, afterComma: afterComma, to: buffer) { return }
        // Room for the comma, the quotes and the string when nothing in it needs escaping.
        var space = buffer.freeSpace(atLeast: 1 + count + 2)
        space.pointee = UInt8(ascii: ",")
        var written = afterComma ? 1 : 0
        space[written] = UInt8(ascii: "\"")
        written += 1
        var runStart = 0
        while true {
            let runEnd = firstIndexNeedingEscape(in: utf8, from: runStart)
            (space + written).storeBytes(of: UnsafeBufferPointer(rebasing: utf8[runStart..<runEnd]))
            written += runEnd - runStart
            guard runEnd < count else { break }
            buffer.commit(written)
            // Room for this escape (at most 6 bytes), the rest of the string unescaped and the quote.
            space = buffer.freeSpace(atLeast: 6 + (count - runEnd - 1) + 1)
            written = writeEscape(of: utf8[runEnd], to: space)
            runStart = runEnd + 1
        }
        space[written] = UInt8(ascii: "\"")
        buffer.commit(written + 1)
    }

    /// A string of fewer than 8 bytes (`GET`, `OK`, `gzip`…) as `appendString` writes it, when none of its
    /// bytes needs escaping: copied, then tested as one word where it was copied (the bytes after it
    /// taken as spaces); returns false, having written nothing, when one needs escaping.
    @inline(__always)
    private static func appendShortString(_ utf8: UnsafeBufferPointer<UInt8>, afterComma: Bool, to buffer: ByteBuffer) -> Bool {
        let count = utf8.count
        let space = buffer.freeSpace(atLeast: 1 + 1 + 8 + 1)
        space.pointee = UInt8(ascii: ",")
        let quote = afterComma ? 1 : 0
        space[quote] = UInt8(ascii: "\"")
        let text = space + quote + 1
        text.storeBytes(of: utf8)
        let stringBytes: UInt64 = (1 << (UInt64(truncatingIfNeeded: count) &* 8)) &- 1
        let spaces: UInt64 = 0x2020_2020_2020_2020
        let word = UInt64(littleEndian: UnsafeRawPointer(text).loadUnaligned(as: UInt64.self))
        guard !anyNeedsEscape(word & stringBytes | spaces & ~stringBytes) else { return false }
        text[count] = UInt8(ascii: "\"")
        buffer.commit(quote &+ count &+ 2)
        return true
    }

    /// The index of the first byte from `start` that a JSON string cannot hold as it is, or the
    /// end of `utf8`. Eight bytes at a time while none of them needs escaping (the last eight of a
    /// string at least that long overlapping the ones before), then byte by byte.
    @inline(__always)
    private static func firstIndexNeedingEscape(in utf8: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        let count = utf8.count
        if let base = utf8.baseAddress, count >= 8 {
            let bytes = UnsafeRawPointer(base)
            while index &+ 8 <= count, !anyNeedsEscape(bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
                index &+= 8
            }
            if index &+ 8 > count, index < count,
                !anyNeedsEscape(bytes.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)) {
                return count
            }
        }
        while index < count {
            let byte = utf8[index]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { break }
            index &+= 1
        }
        return index
    }

    /// Whether any of the eight bytes of `word` is a control character, `"` or `\`.
    @inline(__always)
    private static func anyNeedsEscape(_ word: UInt64) -> Bool {
        escapeBits(word) != 0
    }

    /// Non-zero exactly when one of the eight bytes of `word` is a control character, `"` or `\` (a
    /// word, so the tests of several words are or-ed without a branch each).
    @inline(__always)
    private static func escapeBits(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quotes = word ^ (ones &* UInt64(UInt8(ascii: "\""))), backslashes = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        return word.bytesBelow(0x20) | quotes.bytesBelow(1) | backslashes.bytesBelow(1)
    }

    /// Stores the escape of `byte` at `destination`; returns its length (2 or 6).
    private static func writeEscape(of byte: UInt8, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        destination[0] = UInt8(ascii: "\\")
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): destination[1] = byte
        case UInt8(ascii: "\n"): destination[1] = UInt8(ascii: "n")
        case UInt8(ascii: "\r"): destination[1] = UInt8(ascii: "r")
        case UInt8(ascii: "\t"): destination[1] = UInt8(ascii: "t")
        default:
            let hex = hexDigits.utf8Start
            destination[1] = UInt8(ascii: "u")
            destination[2] = UInt8(ascii: "0")
            destination[3] = UInt8(ascii: "0")
            destination[4] = hex[Int(byte >> 4)]
            destination[5] = hex[Int(byte & 0x0f)]
            return 6
        }
        return 2
    }
}

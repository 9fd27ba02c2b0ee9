/// An encoder-stream instruction (RFC 9204 §4.3).
enum QPACKEncoderInstruction: Equatable {
    case setCapacity(UInt64)
    /// Insert With Name Reference: the name of static entry `index` (`isStatic`) or of the dynamic
    /// entry `index` places back from the newest.
    case insertWithNameReference(isStatic: Bool, index: UInt64, value: String)
    case insertWithLiteralName(name: String, value: String)
    /// Duplicate the dynamic entry `relativeIndex` places back from the newest.
    case duplicate(relativeIndex: UInt64)

    /// Reads the instruction at `p[start]`; strings longer than `maxStringLength` (as sent) are invalid.
    static func read(
        _ p: UnsafeRawBufferPointer, at start: Int, maxStringLength: Int, huffman: inout QPACKHuffman
    ) -> QPACKRead<QPACKEncoderInstruction> {
        guard start < p.count else { return .needs(start + 1) }
        let first = p[start]
        if first & 0x80 != 0 {
            return QPACKInteger.read(p, at: start, prefixBits: 6).then { index, end in
                QPACKString.read(p, at: end, prefixBits: 7, maxLength: maxStringLength, huffman: &huffman).map {
                    .insertWithNameReference(isStatic: first & 0x40 != 0, index: index, value: $0)
                }
            }
        }
        if first & 0x40 != 0 {
            return QPACKString.read(p, at: start, prefixBits: 5, maxLength: maxStringLength, huffman: &huffman).then { name, end in
                QPACKString.read(p, at: end, prefixBits: 7, maxLength: maxStringLength, huffman: &huffman).map {
                    .insertWithLiteralName(name: name, value: $0)
                }
            }
        }
        let isCapacity = first & 0x20 != 0
        return QPACKInteger.read(p, at: start, prefixBits: 5).map { isCapacity ? .setCapacity($0) : .duplicate(relativeIndex: $0) }
    }
}

/// A decoder-stream instruction (RFC 9204 §4.4).
enum QPACKDecoderInstruction: Equatable {
    case sectionAcknowledgment(stream: UInt64)
    case streamCancellation(stream: UInt64)
    case insertCountIncrement(UInt64)

    static func read(_ p: UnsafeRawBufferPointer, at start: Int) -> QPACKRead<QPACKDecoderInstruction> {
        guard start < p.count else { return .needs(start + 1) }
        let first = p[start]
        if first & 0x80 != 0 { return QPACKInteger.read(p, at: start, prefixBits: 7).map { .sectionAcknowledgment(stream: $0) } }
        if first & 0x40 != 0 { return QPACKInteger.read(p, at: start, prefixBits: 6).map { .streamCancellation(stream: $0) } }
        return QPACKInteger.read(p, at: start, prefixBits: 6).map { .insertCountIncrement($0) }
    }
}

extension QPACKRead {
    /// The value transformed, the other cases passed on.
    func map<T>(_ transform: (Value) -> T) -> QPACKRead<T> {
        switch self {
        case .value(let value, let end): .value(transform(value), end: end)
        case .needs(let count): .needs(count)
        case .invalid: .invalid
        }
    }

    /// Reads what follows the value with `next`, given the value and the index past it.
    func then<T>(_ next: (Value, Int) -> QPACKRead<T>) -> QPACKRead<T> {
        switch self {
        case .value(let value, let end): next(value, end)
        case .needs(let count): .needs(count)
        case .invalid: .invalid
        }
    }
}

/// Reads instructions from a QPACK encoder or decoder stream delivered in pieces: whole instructions
/// are read in place; the bytes of one cut by the end of a delivery are kept (at most `maxPending`)
/// until as many bytes as it needs have come, so no byte is read twice until then.
struct QPACKInstructionBuffer {
    private var pending: [UInt8] = []
    /// Bytes `pending` must hold before the instruction in it is tried again.
    private var needed = 0
    let maxPending: Int

    init(maxPending: Int) { self.maxPending = maxPending }

    /// Reads every instruction completed by `bytes`, handing each to `handle`; false when the stream
    /// is invalid (an undecodable instruction, or one longer than `maxPending`): nothing more can be read.
    mutating func feed<I>(
        _ bytes: UnsafeRawBufferPointer, read: (UnsafeRawBufferPointer, Int) -> QPACKRead<I>, handle: (I) -> Void
    ) -> Bool {
        var input = bytes
        if !pending.isEmpty {
            let take = min(max(needed - pending.count, 0), input.count)
            pending.append(contentsOf: input.prefix(take))
            input = UnsafeRawBufferPointer(rebasing: input[take...])
            guard pending.count >= needed else { return true }
            let outcome = pending.withUnsafeBytes { buffer in read(buffer, 0) }
            switch outcome {
            case .invalid: return false
            case .needs(let count):
                guard count <= maxPending else { return false }
                needed = count
                // More of the same instruction: keep gathering from the rest of the input.
                return input.isEmpty ? true : feed(input, read: read, handle: handle)
            case .value(let instruction, let end):
                // `needed` never overshoots an instruction: it ends with the pending bytes.
                guard end == pending.count else { return false }
                pending.removeAll(keepingCapacity: true)
                handle(instruction)
            }
        }
        var i = 0
        while i < input.count {
            switch read(input, i) {
            case .invalid: return false
            case .value(let instruction, let end):
                handle(instruction)
                i = end
            case .needs(let count):
                let need = count - i
                guard need <= maxPending else { return false }
                pending.append(contentsOf: input[i...])
                needed = need
                return true
            }
        }
        return true
    }
}

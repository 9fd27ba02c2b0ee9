extension UnsafeRawBufferPointer {
    /// Whether every byte is below 0x80 (eight at a time): such bytes are their own UTF-8 text, one
    /// character each, and need no `String` to be stored, measured or written.
    var isASCII: Bool {
        guard let start = baseAddress else { return true }
        var index = 0, high: UInt64 = 0
        while index &+ 8 <= count {
            high |= start.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index &+= 8
        }
        while index < count {
            high |= UInt64(start.load(fromByteOffset: index, as: UInt8.self))
            index &+= 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }
}

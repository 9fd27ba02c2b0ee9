/// Text made once and kept for the program's life (the pieces of number runs, prebuilt keys): never
/// freed, so its address names it, and stored with `slack` readable bytes after its end, so that short
/// pieces of it are copied by two 16-byte moves without a test of their length (`copy`).
enum PaddedText {
    /// The bytes `copy` moves at least, whatever the length: the text has that many after its end, and
    /// the room copied into must have them too.
    static var slack: Int { 32 }

    /// A copy of `bytes` for the program's life, followed by `slack` zero bytes.
    static func make(_ bytes: [UInt8]) -> UnsafePointer<UInt8> {
        immortalCopy(of: bytes + [UInt8](repeating: 0, count: slack)).baseAddress!
    }

    /// A copy of `bytes` for the program's life (no slack after it).
    static func immortalCopy(of bytes: [UInt8]) -> UnsafeBufferPointer<UInt8> {
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(bytes.count, 1))
        _ = copy.initialize(from: bytes)
        return UnsafeBufferPointer(rebasing: copy[..<bytes.count])
    }

    /// Copies the `count` bytes at `source` (inside text of `make`, or any with `slack` readable bytes
    /// after them) to `destination`: their first `slack` bytes (whatever follows a shorter piece is
    /// copied too, and overwritten by what is written next) as two 16-byte loads and stores without a
    /// test of the length, the rest of a longer one after them.
    @inline(__always)
    static func copy(_ source: UnsafePointer<UInt8>, count: Int, to destination: UnsafeMutablePointer<UInt8>) {
        let from = UnsafeRawPointer(source), to = UnsafeMutableRawPointer(destination)
        to.storeBytes(of: from.loadUnaligned(as: SIMD16<UInt8>.self), as: SIMD16<UInt8>.self)
        to.storeBytes(of: from.loadUnaligned(fromByteOffset: 16, as: SIMD16<UInt8>.self), toByteOffset: 16, as: SIMD16<UInt8>.self)
        if count > slack { (to + slack).copyMemory(from: from + slack, byteCount: count &- slack) }
    }
}

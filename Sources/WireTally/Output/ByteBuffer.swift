/// A growable run of bytes written at its end, for text formatted byte-wise (JSON Lines, timestamps).
///
/// Writers ask once for room (`freeSpace(atLeast:)`: one comparison while the buffer is large
/// enough), store into it without further checks, then `commit` what they wrote. A class, so the
/// memory has one owner that frees it (`deinit`); code that shares a buffer writes into the same
/// bytes.
final class ByteBuffer {
    /// The first byte; `capacity` bytes are allocated, the first `count` written.
    private var start: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Bytes written so far.
    private(set) var count = 0

    init(capacity: Int = 256) {
        self.capacity = max(capacity, 16)
        start = .allocate(capacity: self.capacity)
    }

    deinit { start.deallocate() }

    /// The bytes written so far, valid until the next write or `removeAll`.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: start, count: count) }

    /// The bytes written so far, decoded as UTF-8.
    var text: String { String(decoding: UnsafeBufferPointer(start: start, count: count), as: UTF8.self) }

    /// Forgets the bytes written, keeping the memory.
    func removeAll() { count = 0 }

    /// Forgets the bytes written after the first `newCount` (at most `count`).
    @inline(__always)
    func truncate(to newCount: Int) { count = newCount }

    /// The start of at least `minimumCount` writable bytes after the ones written, valid until the
    /// next call; what is stored there becomes part of the buffer with `commit`.
    @inline(__always)
    func freeSpace(atLeast minimumCount: Int) -> UnsafeMutablePointer<UInt8> {
        if capacity &- count < minimumCount { grow(toFit: minimumCount) }
        return start + count
    }

    /// Adds the first `written` bytes of the last `freeSpace` to the buffer.
    @inline(__always)
    func commit(_ written: Int) { count &+= written }

    func append(_ byte: UInt8) {
        freeSpace(atLeast: 1).pointee = byte
        count &+= 1
    }

    /// Reallocates at least twice as large, with room for `minimumCount` more bytes.
    @inline(never)
    private func grow(toFit minimumCount: Int) {
        let needed = count + minimumCount
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newStart = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newStart.initialize(from: start, count: count)
        start.deallocate()
        start = newStart
        capacity = newCapacity
    }
}

extension UnsafeMutablePointer<UInt8> {
    /// Stores the bytes of `source` here (the regions must not overlap). Up to 32 bytes are moved
    /// with a few overlapping loads and stores instead of a call to `memcpy`: JSON keys and most
    /// values are that short.
    @inline(__always)
    func storeBytes(of source: UnsafeBufferPointer<UInt8>) {
        guard let start = source.baseAddress else { return }
        let count = source.count
        let from = UnsafeRawPointer(start)
        let to = UnsafeMutableRawPointer(self)
        func move<Word>(_: Word.Type, at offset: Int) {
            to.storeBytes(of: from.loadUnaligned(fromByteOffset: offset, as: Word.self), toByteOffset: offset, as: Word.self)
        }
        switch count {
        case 0: return
        case 1...3:
            self[0] = start[0]
            self[count / 2] = start[count / 2]
            self[count - 1] = start[count - 1]
        case 4...7:
            move(UInt32.self, at: 0)
            move(UInt32.self, at: count - 4)
        case 8...16:
            move(UInt64.self, at: 0)
            move(UInt64.self, at: count - 8)
        case 17...32:
            move(UInt64.self, at: 0)
            move(UInt64.self, at: 8)
            move(UInt64.self, at: count - 16)
            move(UInt64.self, at: count - 8)
        default:
            to.copyMemory(from: from, byteCount: count)
        }
    }
}

import Glibc

/// Buffered sequential reading of a capture file, plain or gzip-compressed.
///
/// The file is read (or inflated) in chunks of about 1 MiB into one buffer that grows only when a
/// single record is bigger. Readers ask for `count` bytes with `fill(_:)`, look at them through
/// `bytes`, then `consume(_:)` them. Pointers into the buffer stay valid until the next `fill`,
/// unless a `CaptureBufferLender` gives the buffers (`lend(to:)`): then each buffer is read through
/// once, never reused, and stays valid for as long as the lender keeps it.
/// gzip input is recognised by its magic bytes 1f 8b, never by the file name; concatenated gzip
/// members are read as one stream.
final class CaptureInput {
    /// The path given to `init`, for error messages.
    let path: String

    private enum Stream {
        case plain(fileDescriptor: Int32)
        case gzip(GzipStream)
    }

    private static let chunkSize = 1 << 20

    private let stream: Stream
    private var buffer: UnsafeMutableRawPointer
    private var capacity: Int
    private var start = 0
    private var end = 0
    private var reachedEnd = false
    private var plainBytesRead = 0
    /// Gives the buffers once `lend(to:)` was called (the input then owns none). Weak: the lender
    /// usually owns the reader that owns this input.
    private weak var lender: (any CaptureBufferLender)?
    private var ownsBuffer = true

    /// Opens `path`; throws `CaptureError.cannotOpen` when it cannot be opened.
    init(path: String) throws(CaptureError) {
        self.path = path
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw .cannotOpen(path: path, reason: Self.errnoText()) }
        var magic: (UInt8, UInt8) = (0, 0)
        let magicLength = withUnsafeMutableBytes(of: &magic) { pread(descriptor, $0.baseAddress, 2, 0) }
        if magicLength == 2 && magic == (0x1f, 0x8b) {
            stream = .gzip(GzipStream(fileDescriptor: descriptor))
        } else {
            stream = .plain(fileDescriptor: descriptor)
        }
        capacity = Self.chunkSize
        buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    deinit {
        if case let .plain(descriptor) = stream { close(descriptor) }
        if ownsBuffer { buffer.deallocate() }
    }

    /// From now on, reads into buffers that `lender` gives, starting with one right away that takes
    /// the bytes read but not consumed yet. Packets already returned from the input's own buffer
    /// become invalid.
    func lend(to lender: any CaptureBufferLender) {
        let unread = UnsafeRawBufferPointer(start: buffer + start, count: end - start)
        let given = lender.exchangeBuffer(unread: unread, minimumCapacity: unread.count)
        if ownsBuffer { buffer.deallocate() }
        self.lender = lender
        ownsBuffer = false
        use(given)
    }

    /// Bytes read from the file so far (compressed bytes for gzip input): progress against its size.
    var fileBytesRead: Int {
        switch stream {
        case .plain: plainBytesRead
        case let .gzip(gzip): gzip.compressedBytesRead
        }
    }

    /// The unconsumed bytes, starting at the read position.
    var bytes: UnsafeRawPointer { UnsafeRawPointer(buffer + start) }

    /// Makes `count` bytes available at the read position, reading more input when needed.
    /// Returns how many are available: `count`, or fewer only at the end of the input.
    /// Throws `.decompression` on corrupt gzip data (bytes inflated before it stay available
    /// until they are asked for past the corruption).
    /// Inlined: the test of what is buffered (every record's header and body ask), then a call only to read.
    @inline(__always)
    func fill(_ count: Int) throws(CaptureError) -> Int {
        if end - start >= count { return count }
        return try fillFromInput(count)
    }

    /// `fill` when fewer than `count` bytes are buffered.
    @inline(never)
    private func fillFromInput(_ count: Int) throws(CaptureError) -> Int {
        makeRoom(for: count)
        while end - start < count && !reachedEnd {
            let received = try read(into: buffer + end, maximum: capacity - end)
            if received == 0 { reachedEnd = true }
            end += received
        }
        return min(count, end - start)
    }

    /// Moves the read position `count` bytes on; `count` must not exceed what `fill` returned.
    func consume(_ count: Int) {
        start += count
    }

    /// Moves the read position `count` bytes on without handing the bytes out, for records a reader
    /// steps over. Returns how many were skipped: `count`, or fewer only at the end of the input.
    ///
    /// Bytes already buffered are passed by moving the position. Of a plain file whose own buffer is
    /// in use (no lender), a rest of `seekThreshold` bytes or more is passed with `lseek`, never
    /// read (its end checked against the file's size); anything else is read (inflated, for gzip)
    /// through the buffer and dropped.
    func skip(_ count: Int) throws(CaptureError) -> Int {
        let buffered = min(count, end - start)
        start += buffered
        var remaining = count - buffered
        if remaining >= Self.seekThreshold, ownsBuffer, case let .plain(descriptor) = stream, !reachedEnd,
           let moved = try seek(descriptor, by: remaining)
        {
            remaining -= moved
            start = 0
            end = 0
        }
        while remaining > 0 {
            let available = try fill(min(remaining, Self.chunkSize))
            if available == 0 { break }
            consume(available)
            remaining -= available
        }
        return count - remaining
    }

    /// Rests of a skip at least this long are passed with `lseek` in plain files.
    static let seekThreshold = 64 << 10

    /// Moves the file position of the (empty-buffered) plain file `count` bytes on, at most to the
    /// end of the file; returns how far it moved, or nil when the file is not a regular file (a pipe
    /// cannot seek: it is read instead).
    private func seek(_ descriptor: Int32, by count: Int) throws(CaptureError) -> Int? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw .cannotOpen(path: path, reason: "stat failed: \(Self.errnoText())")
        }
        guard status.st_mode & S_IFMT == S_IFREG else { return nil }
        let position = lseek(descriptor, 0, SEEK_CUR)
        guard position >= 0 else { throw .cannotOpen(path: path, reason: "seek failed: \(Self.errnoText())") }
        let step = min(count, max(0, Int(status.st_size) - Int(position)))
        guard lseek(descriptor, off_t(step), SEEK_CUR) >= 0 else {
            throw .cannotOpen(path: path, reason: "seek failed: \(Self.errnoText())")
        }
        plainBytesRead += step
        if step < count { reachedEnd = true }
        return step
    }

    /// Makes the buffer able to hold `count` bytes from the read position on.
    private func makeRoom(for count: Int) {
        if !ownsBuffer {
            // The front of a lent buffer may hold packets still in use: never read over it. Once the
            // lender is gone, nothing more is read (the input seems to end).
            guard start + count > capacity, let lender else { return }
            let unread = UnsafeRawBufferPointer(start: buffer + start, count: end - start)
            use(lender.exchangeBuffer(unread: unread, minimumCapacity: count))
            return
        }
        if count > capacity {
            let newCapacity = max(count, capacity * 2)
            let newBuffer = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
            newBuffer.copyMemory(from: buffer + start, byteCount: end - start)
            buffer.deallocate()
            buffer = newBuffer
            capacity = newCapacity
        } else if start + count > capacity || start == end {
            memmove(buffer, buffer + start, end - start)
        } else {
            return
        }
        end -= start
        start = 0
    }

    /// Reads on in `given`, whose first bytes are the unconsumed ones of the previous buffer.
    private func use(_ given: UnsafeMutableRawBufferPointer) {
        end -= start
        start = 0
        buffer = given.baseAddress!
        capacity = given.count
    }

    private func read(into destination: UnsafeMutableRawPointer, maximum: Int) throws(CaptureError) -> Int {
        switch stream {
        case let .plain(descriptor):
            while true {
                let received = Glibc.read(descriptor, destination, maximum)
                if received >= 0 {
                    plainBytesRead += received
                    return received
                }
                if errno != EINTR { throw .cannotOpen(path: path, reason: "read failed: \(Self.errnoText())") }
            }
        case let .gzip(gzip):
            do {
                return try gzip.read(into: destination, maximum: maximum)
            } catch {
                throw .decompression(path: path, detail: error.message)
            }
        }
    }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}

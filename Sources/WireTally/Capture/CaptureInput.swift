import Glibc

/// Buffered sequential reading of a capture file, plain or gzip-compressed.
///
/// A regular uncompressed file is mapped into memory window by window (`MappedCaptureFile`): its
/// bytes are viewed where the kernel keeps them, never copied. Anything else (gzip, pipes, standard
/// input, a file mmap refuses) is read (or inflated) in chunks of about 1 MiB into one buffer that
/// grows only when a single record is bigger. Readers ask for `count` bytes with `fill(_:)`, look at
/// them through `bytes`, then `consume(_:)` them. Pointers into the buffer or window stay valid until
/// the next `fill`, unless a `CaptureBufferLender` was given (`lend(to:)`): then each buffer is read
/// through once, never reused, and stays valid for as long as the lender keeps it; a mapped file's
/// windows are handed to the lender to keep alive instead.
///
/// A mapped file that shrinks underneath its mapping does not crash the process: SIGBUS is handled
/// (`MappingFaultGuard`), the bytes past the new end read as zeros, and the input throws
/// `.cannotOpen` ("the file shrank while it was being read") at the first `fill` after the fault.
/// Records wholly before the new end come out as they are; up to a page of the vanished bytes
/// (the rest of the page the file now ends in, which the kernel does not fault) may come out as
/// zeros first, and packets already returned whose bytes vanished read as zeros.
/// A file still growing is read to the end `fstat` shows, then looked at again once (as `read()`
/// reads until it gets no more bytes).
/// gzip input is recognised by its magic bytes 1f 8b, never by the file name; concatenated gzip
/// members are read as one stream.
final class CaptureInput {
    /// The path given to `init`, for error messages.
    let path: String

    private enum Stream {
        case plain(fileDescriptor: Int32)
        case mapped(MappedCaptureFile)
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
    /// The window `buffer` lies in, when the file is mapped.
    private var window: MappedFileWindow?
    /// Whether the window's file was found shorter than the window (nil when not mapped).
    private var windowIsDamaged: UnsafePointer<Bool>?

    /// Opens `path`; throws `CaptureError.cannotOpen` when it cannot be opened. `allowsMapping: false`
    /// reads a regular file with `read()` too.
    init(path: String, allowsMapping: Bool = true) throws(CaptureError) {
        self.path = path
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw .cannotOpen(path: path, reason: Self.errnoText()) }
        var magic: (UInt8, UInt8) = (0, 0)
        let magicLength = withUnsafeMutableBytes(of: &magic) { pread(descriptor, $0.baseAddress, 2, 0) }
        if magicLength == 2 && magic == (0x1f, 0x8b) {
            stream = .gzip(GzipStream(fileDescriptor: descriptor))
        } else if allowsMapping, let file = MappedCaptureFile(descriptor: descriptor),
                  let first = file.window(from: 0, count: Self.chunkSize)
        {
            stream = .mapped(file)
            buffer = UnsafeMutableRawPointer(mutating: first.base)
            capacity = first.length
            ownsBuffer = false
            use(first, at: 0)
            return
        } else {
            stream = .plain(fileDescriptor: descriptor)
        }
        capacity = Self.chunkSize
        buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    deinit {
        switch stream {
        case let .plain(descriptor): close(descriptor)
        case let .mapped(file): close(file.descriptor)
        case .gzip: break
        }
        if ownsBuffer { buffer.deallocate() }
    }

    /// True when the file is read through memory mappings (its packets view the mapped windows).
    var isMapped: Bool { window != nil }

    /// From now on, reads into buffers that `lender` gives, starting with one right away that takes
    /// the bytes read but not consumed yet. Packets already returned from the input's own buffer
    /// become invalid.
    func lend(to lender: any CaptureBufferLender) {
        self.lender = lender
        if let window {
            lender.keepAlive(window)
            return
        }
        let unread = UnsafeRawBufferPointer(start: buffer + start, count: end - start)
        let given = lender.exchangeBuffer(unread: unread, minimumCapacity: unread.count)
        if ownsBuffer { buffer.deallocate() }
        ownsBuffer = false
        use(given)
    }

    /// Bytes read from the file so far (compressed bytes for gzip input): progress against its size.
    var fileBytesRead: Int {
        switch stream {
        case .plain: plainBytesRead
        case .mapped: (window?.fileOffset ?? 0) + start
        case let .gzip(gzip): gzip.compressedBytesRead
        }
    }

    /// The unconsumed bytes, starting at the read position.
    var bytes: UnsafeRawPointer { UnsafeRawPointer(buffer + start) }

    /// Makes `count` bytes available at the read position, reading more input when needed.
    /// Returns how many are available: `count`, or fewer only at the end of the input.
    /// Throws `.decompression` on corrupt gzip data (bytes inflated before it stay available
    /// until they are asked for past the corruption).
    func fill(_ count: Int) throws(CaptureError) -> Int {
        if end - start >= count && windowIsDamaged?.pointee != true { return count }
        if case let .mapped(file) = stream { return try fillFromMapping(count, of: file) }
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

    /// Maps the window holding `count` bytes from the read position on when the current one ends
    /// sooner (once at the end of the file, `fstat` is asked whether it has grown). Throws
    /// `.cannotOpen` when the file shrank underneath the mapping.
    private func fillFromMapping(_ count: Int, of file: MappedCaptureFile) throws(CaptureError) -> Int {
        guard let window else { return 0 }
        if window.isDamaged { throw .cannotOpen(path: path, reason: "the file shrank while it was being read") }
        let position = window.fileOffset + start
        if !reachedEnd && position + count > window.fileOffset + end {
            if position + count > file.size { file.refreshSize() }
            if file.size > window.fileOffset + end {
                guard let next = file.window(from: position, count: count) else {
                    throw .cannotOpen(path: path, reason: "mmap failed: \(Self.errnoText())")
                }
                use(next, at: position)
            }
            if position + count > file.size { reachedEnd = true }
        }
        return min(count, end - start)
    }

    /// Reads on in the mapped `window`, from the file offset `position`.
    private func use(_ window: MappedFileWindow, at position: Int) {
        buffer = UnsafeMutableRawPointer(mutating: window.base)
        capacity = window.length
        start = position - window.fileOffset
        end = window.length
        self.window = window
        windowIsDamaged = window.damageFlag
        lender?.keepAlive(window)
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
        case .mapped:
            return 0  // mapped files are viewed, never read (`fillFromMapping`)
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

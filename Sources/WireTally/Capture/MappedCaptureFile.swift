import Glibc

/// A regular file read through read-only memory mappings, one window after the other, so that its
/// packets can be viewed where the kernel keeps the file instead of being copied out by `read()`.
///
/// Only the part of the file `fstat` showed is mapped; `refreshSize()` looks again (a file still
/// being written grows). Windows overlap where needed so that every record lies whole in one.
final class MappedCaptureFile {
    /// The open file (closed by the `CaptureInput` that owns it).
    let descriptor: Int32
    /// The file's size when last looked at.
    private(set) var size: Int

    /// Bytes a window maps (more for a bigger record). Mapped pages count in the resident size: with
    /// the input's window and those the batches in flight keep, 8 MiB windows added ~16 MB to the peak.
    static let windowSize = 2 << 20
    /// Whether windows are mapped with MAP_POPULATE.
    static let populatesWindows = true
    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// The regular, non-empty file `descriptor`; nil for anything else (a pipe, a terminal, a device).
    init?(descriptor: Int32) {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size > 0 else { return nil }
        self.descriptor = descriptor
        size = Int(status.st_size)
    }

    /// Looks at the file's size again.
    func refreshSize() {
        var status = stat()
        if fstat(descriptor, &status) == 0 { size = Int(status.st_size) }
    }

    /// A window holding the file from `position` on: `count` bytes of it at least, or all the file
    /// has of them. Nil when the file does not reach `position` or mmap refuses.
    func window(from position: Int, count: Int) -> MappedFileWindow? {
        let fileOffset = position & ~(Self.pageSize - 1)
        let length = min(max(Self.windowSize, position + count - fileOffset), size - fileOffset)
        guard length > position - fileOffset else { return nil }
        return MappedFileWindow(
            descriptor: descriptor, fileOffset: fileOffset, length: length, populates: Self.populatesWindows)
    }
}

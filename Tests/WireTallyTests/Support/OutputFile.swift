import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension FileHandle {
    /// A handle writing `path` from its start: the file opened in place, created (mode 0644) when
    /// missing and emptied. `FileManager.createFile` writes atomically — a new file renamed over the
    /// path — so on `/dev/null` it left a regular file where the device was, and every later write to
    /// `/dev/null` on the machine (benchmarks included) went to that file.
    static func truncatingForWriting(_ path: String) throws -> FileHandle {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }
}

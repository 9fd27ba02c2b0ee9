import Glibc

/// Follows an NSS key log file (`SSLKEYLOGFILE`) that grows while capturing: browsers, curl and other
/// TLS libraries append the secrets of each connection as it is made. Each `poll()` reads the bytes
/// appended since the previous one and feeds the complete lines to `keyLog`; a last line without
/// its newline waits for it.
///
/// - The file need not exist yet: `poll` then finds nothing (and again when it is deleted), and
///   reads it from the start once it appears.
/// - A file truncated (shorter than what was read) or replaced (another file at the path: `mv`, a
///   new browser session, the file deleted and created again) is read again from its start; a file
///   truncated and rewritten past the read position is recognised by its last bytes read no longer
///   being where they were. Secrets taken from the earlier version stay in `keyLog` (the connections
///   they unlock were already captured); its line numbers start over (`TLSKeyLog.restartLines`).
/// - When nothing changed, a poll costs one `stat` of the path (size, device and inode compared).
/// - Errors name the path and the system's reason, never the file's content; `keyLog`'s problems
///   hold no secret either.
package final class KeyLogFollower {
    /// The followed path, as given.
    package let path: String
    /// Every secret taken so far, from every version of the file.
    package private(set) var keyLog = TLSKeyLog()
    /// Whether the file was there at the last poll.
    package private(set) var fileExists = false
    /// How many times the file was found truncated or replaced and read again from its start.
    package private(set) var restarts = 0
    /// Bytes of the current version of the file read so far (the waiting partial line included).
    package private(set) var bytesRead = 0

    /// Bytes of the last line, read but without its newline yet.
    package var waitingBytes: Int { partialLine.count }

    /// Why the key log could not be read. Holds the path and the system's reason, never file content.
    package struct Error: Swift.Error, Equatable, CustomStringConvertible {
        package var path: String
        package var reason: String
        package var description: String { "key log \(path): \(reason)" }
    }

    private var descriptor: Int32 = -1
    private var device: dev_t = 0
    private var inode: ino_t = 0
    private var partialLine: [UInt8] = []
    /// The last bytes read (at most `tailLength`), checked again before reading on: a file rewritten
    /// in place past the read position no longer has them there.
    private var tail: [UInt8] = []

    private static let tailLength = 64
    private static let chunkSize = 64 << 10
    /// A waiting line keeps at most this many bytes (longer lines are no key log lines: `TLSKeyLog`
    /// reports them), so that a file without newlines cannot grow memory.
    static let longestKeptLine = 1024

    /// Follows the key log at `path`; nothing is read before the first `poll`.
    package init(path: String) {
        self.path = path
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Reads what was appended to the file since the last poll (all of it the first time, or after
    /// the file was truncated or replaced) and feeds its complete lines to `keyLog`.
    ///
    /// Returns the complete lines taken by this call, each with its newline (a line longer than
    /// `longestKeptLine` cut to that length), empty when nothing new was completed: what to write
    /// into a capture's Decryption Secrets Block (`PcapNGWriter.writeDecryptionSecrets(tlsKeyLog:)`).
    /// Throws when the path is there but cannot be read (not a regular file, no permission, a read
    /// error); a missing file is no error.
    @discardableResult
    package func poll() throws(Error) -> [UInt8] {
        var status = stat()
        guard stat(path, &status) == 0 else {
            let code = errno
            guard code == ENOENT || code == ENOTDIR else { throw failure(code) }
            fileGone()
            return []
        }
        guard status.st_mode & S_IFMT == S_IFREG else { throw Error(path: path, reason: "not a regular file") }
        if descriptor < 0 || status.st_dev != device || status.st_ino != inode {
            guard try open(&status) else { return [] }
        }
        fileExists = true
        let size = Int(status.st_size)
        if size < bytesRead { startOver() }
        if size == bytesRead { return [] }
        var taken: [UInt8] = []
        if !tail.isEmpty, try !tailIsInPlace() {
            startOver()
        }
        try readToEnd(into: &taken)
        return taken
    }

    /// Opens the file now at the path (the first time, or in place of another); false when it went
    /// away in between. `status` becomes the opened file's.
    private func open(_ status: inout stat) throws(Error) -> Bool {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        let opened = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard opened >= 0 else {
            let code = errno
            guard code == ENOENT || code == ENOTDIR else { throw failure(code) }
            fileGone()
            return false
        }
        guard fstat(opened, &status) == 0 else {
            let code = errno
            close(opened)
            throw failure(code)
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            close(opened)
            throw Error(path: path, reason: "not a regular file")
        }
        descriptor = opened
        device = status.st_dev
        inode = status.st_ino
        // Another file than the one read so far: its content starts over.
        if bytesRead > 0 || !partialLine.isEmpty { startOver() }
        return true
    }

    /// The file is not at the path: forget the one open (a new one will be read from its start).
    private func fileGone() {
        fileExists = false
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
    }

    private func startOver() {
        bytesRead = 0
        partialLine.removeAll(keepingCapacity: true)
        tail.removeAll(keepingCapacity: true)
        keyLog.restartLines()
        restarts += 1
    }

    /// Whether the last bytes read are still just before the read position.
    private func tailIsInPlace() throws(Error) -> Bool {
        var found = [UInt8](repeating: 0, count: tail.count)
        var filled = 0
        while filled < found.count {
            let received = try readAt(bytesRead - tail.count + filled, into: &found, from: filled)
            if received == 0 { return false }
            filled += received
        }
        return found == tail
    }

    /// Reads from `bytesRead` to the end of the file, feeding complete lines to the key log.
    private func readToEnd(into taken: inout [UInt8]) throws(Error) {
        var chunk = [UInt8](repeating: 0, count: Self.chunkSize)
        while true {
            let received = try readAt(bytesRead, into: &chunk, from: 0)
            if received == 0 { return }
            bytesRead += received
            let bytes = chunk[..<received]
            tail = Array((tail + bytes).suffix(Self.tailLength))
            var lineStart = bytes.startIndex
            while let newline = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n")) {
                keep(bytes[lineStart..<newline])
                partialLine.append(UInt8(ascii: "\n"))
                keyLog.read(partialLine)
                taken += partialLine
                partialLine.removeAll(keepingCapacity: true)
                lineStart = newline + 1
            }
            keep(bytes[lineStart...])
        }
    }

    /// Adds `bytes` to the waiting line, up to `longestKeptLine` bytes.
    private func keep(_ bytes: ArraySlice<UInt8>) {
        partialLine += bytes.prefix(max(0, Self.longestKeptLine - partialLine.count))
    }

    /// Reads at file `offset` into `buffer` from index `start` on; 0 at the end of the file.
    private func readAt(_ offset: Int, into buffer: inout [UInt8], from start: Int) throws(Error) -> Int {
        while true {
            let received = buffer.withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress! + start, $0.count - start, off_t(offset))
            }
            if received >= 0 { return received }
            let code = errno
            if code != EINTR { throw failure(code) }
        }
    }

    private func failure(_ code: Int32) -> Error {
        Error(path: path, reason: String(cString: strerror(code)))
    }
}

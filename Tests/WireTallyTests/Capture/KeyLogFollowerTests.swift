import Foundation
import Glibc
import Testing
@testable import WireTally

/// `KeyLogFollower` on a key log that grows as a browser's does, built from the log curl wrote while
/// recording `tls13-http1` (the truth: the same file read whole by `TLSKeyLog`): appended in pieces
/// that cut lines anywhere, truncated, rewritten in place, replaced, deleted; and the secrets taken
/// written into a capture that tshark then decrypts.
@Suite struct KeyLogFollowerTests {
    static let keys = TestPaths.capture("tls13-http1.keys")

    static func keyLog() throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: keys))) }

    /// Appends `bytes` to the file at `path` (created when missing), as a program logging keys does.
    static func append(_ bytes: some Collection<UInt8>, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        guard descriptor >= 0 else { throw ExternalProgram.Failure(message: "cannot open \(path)") }
        defer { close(descriptor) }
        let data = Array(bytes)
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == data.count else { throw ExternalProgram.Failure(message: "short write to \(path)") }
    }

    /// Rewrites the file at `path` in place (same inode: truncated, then written), as `cp` over it does.
    static func rewrite(_ bytes: [UInt8], at path: String) throws {
        let descriptor = open(path, O_WRONLY | O_TRUNC)
        guard descriptor >= 0 else { throw ExternalProgram.Failure(message: "cannot open \(path)") }
        close(descriptor)
        try append(bytes, to: path)
    }

    static func inode(_ path: String) -> ino_t {
        var status = stat()
        return stat(path, &status) == 0 ? status.st_ino : 0
    }

    /// Checks that `log` holds exactly the secrets of the key log `bytes` read whole.
    static func expectSecrets(_ log: TLSKeyLog, of bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let whole = TLSKeyLog(bytes)
        #expect(log.problems.isEmpty, "\(log.problems)", sourceLocation: sourceLocation)
        #expect(log.connectionCount == whole.connectionCount, sourceLocation: sourceLocation)
        for random in try DecryptionSecretsTests.clientRandoms(bytes) {
            #expect(log.secrets(clientRandom: random) == whole.secrets(clientRandom: random), sourceLocation: sourceLocation)
        }
    }

    /// The key log's lines, each with its newline.
    static func lines(_ bytes: [UInt8]) -> [[UInt8]] {
        bytes.split(separator: UInt8(ascii: "\n")).map { Array($0) + [UInt8(ascii: "\n")] }
    }

    /// Appended in pieces of every size from 1 to 97 bytes, polled after each: the file does not exist
    /// at first (no error), a partial last line waits for its newline, every poll returns exactly the
    /// lines it completed, and in the end the follower holds the secrets of the whole file read at once
    /// (8 secrets of 2 connections; the exporter lines are skipped); a poll with nothing new takes nothing.
    @Test func appendedPiecesAreTakenLineByLine() throws {
        let keyLog = try Self.keyLog()
        let scratch = try TemporaryDirectory()
        let path = scratch.path + "/sslkeys.log"
        let follower = KeyLogFollower(path: path)
        #expect(try follower.poll().isEmpty)
        #expect(!follower.fileExists && follower.bytesRead == 0 && follower.restarts == 0)

        for size in [1, 2, 7, 31, 97, 200] {
            let scratchPath = scratch.path + "/pieces-\(size).log"
            let stepper = KeyLogFollower(path: scratchPath)
            var offset = 0
            var taken: [UInt8] = []
            var polls = 0
            while offset < keyLog.count {
                let end = min(offset + size, keyLog.count)
                try Self.append(keyLog[offset..<end], to: scratchPath)
                offset = end
                let new = try stepper.poll()
                polls += 1
                taken += new
                // What was taken is every line completed so far; the rest waits.
                let lastNewline = keyLog[..<offset].lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
                #expect(taken == Array(keyLog[..<lastNewline]), "pieces of \(size), at \(offset)")
                #expect(stepper.waitingBytes == offset - lastNewline, "pieces of \(size), at \(offset)")
                #expect(new.isEmpty || new.last == UInt8(ascii: "\n"))
            }
            #expect(polls == (keyLog.count + size - 1) / size)
            #expect(taken == keyLog)
            #expect(stepper.fileExists && stepper.bytesRead == keyLog.count && stepper.restarts == 0)
            #expect(stepper.keyLog.secretCount == 8)
            try Self.expectSecrets(stepper.keyLog, of: keyLog)
            #expect(try stepper.poll().isEmpty, "nothing new")
            #expect(stepper.keyLog.secretCount == 8)
        }
    }

    /// A last line without newline is never taken, however often the file is polled, until its
    /// newline comes; CRLF line ends read as LF ones.
    @Test func partialLastLineWaitsForItsNewline() throws {
        let keyLog = try Self.keyLog()
        let scratch = try TemporaryDirectory()
        let path = scratch.path + "/crlf.log"
        let crlfLines = Self.lines(keyLog).map { Array($0.dropLast()) + [0x0D, 0x0A] }
        let last = crlfLines.last!
        try Self.append(crlfLines.joined().dropLast(), to: path)
        let follower = KeyLogFollower(path: path)
        #expect(try follower.poll() == Array(crlfLines.dropLast().joined()))
        for _ in 0..<3 { #expect(try follower.poll().isEmpty) }
        #expect(follower.waitingBytes == last.count - 1)
        #expect(follower.keyLog.secretCount == 7)
        try Self.append([0x0A], to: path)
        #expect(try follower.poll() == last)
        #expect(follower.keyLog.secretCount == 8)
        try Self.expectSecrets(follower.keyLog, of: keyLog)
    }

    /// Truncated to nothing, then written again with the second connection's lines: read from the
    /// start (one restart); the first connection's secrets stay. Rewritten in place past the read
    /// position (same inode, `cp` over it): recognised, read from the start.
    @Test func truncatedAndRewrittenFilesAreReadAgain() throws {
        let keyLog = try Self.keyLog()
        let lines = Self.lines(keyLog)
        #expect(lines.count == 10)
        let first = Array(lines[0..<5].joined()), second = Array(lines[5...].joined())
        let scratch = try TemporaryDirectory()
        let path = scratch.path + "/keys.log"
        try Self.append(first, to: path)
        let follower = KeyLogFollower(path: path)
        #expect(try follower.poll() == first)
        #expect(follower.keyLog.connectionCount == 1)

        let inode = Self.inode(path)
        try Self.rewrite([], at: path)
        #expect(try follower.poll().isEmpty)
        #expect(follower.restarts == 1 && follower.bytesRead == 0)
        try Self.append(second, to: path)
        #expect(Self.inode(path) == inode)
        #expect(try follower.poll() == second)
        #expect(follower.restarts == 1)
        try Self.expectSecrets(follower.keyLog, of: keyLog)

        // In place, longer than what was read, between two polls: the last bytes read moved.
        let comment = Array("# a new session\n".utf8)
        try Self.rewrite(comment + first + second, at: path)
        #expect(Self.inode(path) == inode)
        #expect(try follower.poll() == comment + first + second)
        #expect(follower.restarts == 2 && follower.bytesRead == comment.count + keyLog.count)
        try Self.expectSecrets(follower.keyLog, of: keyLog)
        #expect(follower.keyLog.problems.isEmpty, "line numbers start over with each version")
    }

    /// Replaced by another file (renamed over it), deleted (nothing to read, no error), created again:
    /// each new file is read from its start.
    @Test func replacedAndDeletedFilesAreFollowed() throws {
        let keyLog = try Self.keyLog()
        let lines = Self.lines(keyLog)
        let first = Array(lines[0..<5].joined()), second = Array(lines[5...].joined())
        let scratch = try TemporaryDirectory()
        let path = scratch.path + "/keys.log"
        try Self.append(first, to: path)
        let follower = KeyLogFollower(path: path)
        #expect(try follower.poll() == first)

        // Same size as before, another inode.
        let other = scratch.path + "/new.log"
        try Self.append(second, to: other)
        #expect(second.count == first.count)
        #expect(rename(other, path) == 0)
        #expect(try follower.poll() == second)
        #expect(follower.restarts == 1)
        try Self.expectSecrets(follower.keyLog, of: keyLog)

        #expect(unlink(path) == 0)
        #expect(try follower.poll().isEmpty)
        #expect(!follower.fileExists)
        try Self.append(lines[0], to: path)
        #expect(try follower.poll() == lines[0])
        #expect(follower.fileExists && follower.restarts == 2)
        try Self.expectSecrets(follower.keyLog, of: keyLog)
    }

    /// Errors name the path and the reason, never the content: a directory at the path is "not a
    /// regular file"; a malformed line holding a secret is a problem of the key log without it. A line
    /// without end keeps at most `longestKeptLine` bytes.
    @Test func errorsAndProblemsHoldNoSecret() throws {
        let keyLog = try Self.keyLog()
        let scratch = try TemporaryDirectory()
        let directory = KeyLogFollower(path: scratch.path)
        #expect(throws: KeyLogFollower.Error(path: scratch.path, reason: "not a regular file")) { try directory.poll() }
        #expect(KeyLogFollower(path: scratch.path + "/file/below").fileExists == false)
        #expect(try KeyLogFollower(path: try scratch.file("plain", []) + "/below").poll().isEmpty, "ENOTDIR: not there")

        let path = scratch.path + "/keys.log"
        let secretLine = Self.lines(keyLog)[0]
        let secretHex = String(decoding: secretLine, as: UTF8.self).split(separator: " ")[2].dropLast()
        try Self.append(Array("CLIENT_TRAFFIC_SECRET_0 zz \(secretHex)\n".utf8) + [UInt8](repeating: 0x41, count: 5000), to: path)
        let follower = KeyLogFollower(path: path)
        _ = try follower.poll()
        #expect(follower.keyLog.problems.count == 1)
        #expect(!follower.keyLog.problems.map(\.description).joined().contains(secretHex))
        #expect(follower.waitingBytes == KeyLogFollower.longestKeptLine)
        try Self.append([0x0A] + secretLine, to: path)
        #expect(try follower.poll().count == KeyLogFollower.longestKeptLine + 1 + secretLine.count)
        #expect(follower.keyLog.problems.map(\.reason) == ["CLIENT_TRAFFIC_SECRET_0: the client random is not 32 bytes of hex",
                                                           "longer than any key log line"])
        #expect(follower.keyLog.secretCount == 1)
    }

    /// The live set-up: the log grows while a capture is written; each poll's lines go into the raw
    /// pcapng as a DSB. Written before the packets (tshark needs them there) the DSBs make tshark
    /// decrypt every request; the scan joins them into the same secrets.
    @Test(.requires(.tshark))
    func polledLinesMakeACaptureTsharkDecrypts() throws {
        let keyLog = try Self.keyLog()
        let scratch = try TemporaryDirectory()
        let path = scratch.path + "/keys.log"
        let follower = KeyLogFollower(path: path)
        let writer = try PcapNGWriter(destination: .memory)
        var blocks = 0
        for piece in stride(from: 0, to: keyLog.count, by: 500) {
            try Self.append(keyLog[piece..<min(piece + 500, keyLog.count)], to: path)
            let new = try follower.poll()
            if !new.isEmpty {
                try writer.writeDecryptionSecrets(tlsKeyLog: new)
                blocks += 1
            }
        }
        #expect(blocks == 4)
        var source = try CaptureFile.open(path: DecryptionSecretsTests.pcap)
        while let packet = try source.nextPacket() { try writer.write(packet) }
        let capture = try scratch.file("live.pcapng", writer.bytes)
        #expect(try DecryptionSecretsTests.tsharkRequests(capture) == DecryptionSecretsTests.recordedRequests())
        let scan = try DecryptionSecretsScan(path: capture)
        #expect(scan.tlsKeyLogs.count == 4)
        #expect(scan.tlsKeyLogs.joined().elementsEqual(keyLog))
        try Self.expectSecrets(scan.tlsKeyLog, of: keyLog)
    }
}

import Foundation

/// Runs another program from a test (tshark, python, gzip, the wiretally binary…).
enum ExternalProgram {
    /// The program's path on PATH or in the sbin folders (where `ip` lives), or nil.
    ///
    /// Programs named in `WIRETALLY_TEST_HIDE` (comma-separated, e.g. `tshark,chromium`) are treated
    /// as not installed: the requirements built on them are unmet, so their tests show the skip (or,
    /// with `CI=true`, the failure) on a machine that has them, and a test that runs such a program
    /// without declaring the requirement fails instead of passing.
    static func path(of program: String) -> String? {
        guard !hiddenPrograms.contains(program) else { return nil }
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
            + ["/usr/sbin", "/sbin", "/usr/bin", "/bin"]
        return folders.map { "\($0)/\(program)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The programs `WIRETALLY_TEST_HIDE` names.
    static let hiddenPrograms = Set(
        (ProcessInfo.processInfo.environment["WIRETALLY_TEST_HIDE"] ?? "").split(separator: ",").map(String.init))

    /// Standard output of `program` (a path, or a name found by `path(of:)`) run with `arguments`,
    /// with `input` on its standard input when given. A program that is not there, cannot start or
    /// exits non-zero throws, with its standard error in the message.
    static func output(_ program: String, _ arguments: [String], input: Data? = nil) throws -> Data {
        guard let executable = program.hasPrefix("/") ? program : path(of: program) else {
            throw Failure(message: "\(program) is not installed")
        }
        let result = try launch(URL(fileURLWithPath: executable), arguments, input: input)
        guard result.status == 0 else {
            throw Failure(message: "\(program) \(arguments.joined(separator: " ")) exited with status \(result.status): "
                + String(decoding: result.stderr.prefix(2000), as: UTF8.self))
        }
        return result.stdout
    }

    /// A program that could not be run, or that failed.
    struct Failure: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// What a program run to its end gave.
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs the program at `executable` to its end, collecting both outputs, whatever its exit status.
    static func run(_ executable: URL, _ arguments: [String]) throws -> Run {
        let result = try launch(executable, arguments, input: nil)
        return Run(status: result.status, stdout: String(decoding: result.stdout, as: UTF8.self),
                   stderr: String(decoding: result.stderr, as: UTF8.self))
    }

    /// Runs `executable` to its end. Standard input is written and standard error read on threads of
    /// their own, so that no pipe can fill up and stall the program.
    private static func launch(_ executable: URL, _ arguments: [String], input: Data?)
        throws -> (status: Int32, stdout: Data, stderr: Data)
    {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let stdout = Pipe(), stderr = Pipe(), stdin = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        if input != nil { process.standardInput = stdin }
        try process.run()
        if let input {
            Thread {
                stdin.fileHandleForWriting.write(input)
                try? stdin.fileHandleForWriting.close()
            }.start()
        }
        let errors = CollectedData()
        let errorsRead = DispatchSemaphore(value: 0)
        Thread {
            errors.data = stderr.fileHandleForReading.readDataToEndOfFile()
            errorsRead.signal()
        }.start()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        errorsRead.wait()
        process.waitUntilExit()
        return (process.terminationStatus, output, errors.data)
    }

    /// Standard error as read on its own thread (the semaphore orders the write before the read).
    private final class CollectedData: @unchecked Sendable {
        var data = Data()
    }
}

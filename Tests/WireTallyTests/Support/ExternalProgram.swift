import Foundation

/// Runs another program from a test (tshark, python, the wiretally binary…).
enum ExternalProgram {
    /// Standard output of `program` (looked up on PATH) with `arguments`, or nil when it cannot run or
    /// exits non-zero.
    static func output(_ program: String, _ arguments: [String]) -> Data? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program.hasPrefix("/") ? program : "/usr/bin/env")
        process.arguments = program.hasPrefix("/") ? arguments : [program] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? data : nil
    }
}

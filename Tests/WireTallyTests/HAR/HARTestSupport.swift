import Foundation
import Testing

@testable import WireTally

/// Runs analyses into HAR documents and the Python reference checks on them.
enum HARTestSupport {
    static let schema = TestPaths.root.appendingPathComponent("Tests/WireTallyTests/HAR/har-1.2.schema.json").path
    static let checker = TestPaths.root.appendingPathComponent("scripts/har-check.py").path

    /// Every capture in `captures/` (pcap, pcapng, gzip-compressed).
    static var captures: [String] {
        TestPaths.files(in: TestPaths.captures, endingWith: [".pcap", ".pcapng", ".pcap.gz"]).map(TestPaths.capture)
    }

    /// A temporary directory for this process's HAR files.
    static let directory: URL = {
        let url = TestScratch.folder.appendingPathComponent("wiretally-har-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    /// Analyses `files` with the HAR options and writes the HAR to a temporary file; returns its path
    /// and the parsed document.
    static func har(
        _ files: [String], name: String, timing: HARWriter.Timing? = nil
    ) throws -> (path: String, log: [String: Any]) {
        let path = directory.appendingPathComponent(name + ".har").path
        do {
            let output = try TextOutput(path: path)
            let writer = timing.map { HARWriter(output: output, timing: $0) } ?? HARWriter(output: output)
            let options = OutputFormat.har.analyzerOptions(CaptureAnalyzer.Options())
            _ = AnalysisRun(files: files, options: options).run(writer: writer)
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return (path, try #require(document["log"] as? [String: Any]))
    }

    static func entries(_ log: [String: Any]) -> [[String: Any]] { log["entries"] as? [[String: Any]] ?? [] }

    // MARK: Python

    static func python3() -> String? {
        for candidate in pathCandidates("python3") + ["/usr/bin/python3", "/usr/local/bin/python3"]
        where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        return nil
    }

    private static func pathCandidates(_ name: String) -> [String] {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/\(name)" }
    }

    /// True when python3 can import `module`; prints why not otherwise.
    static func hasModule(_ module: String) -> Bool {
        guard let python = python3() else {
            print("skipping: python3 is not installed")
            return false
        }
        let ok = (try? run(python, ["-c", "import \(module)"]).status) == 0
        if !ok { print("skipping: python module \(module) is missing (WIRETALLY_TEST_TOOLS=1 scripts/setup installs it)") }
        return ok
    }

    static let hasJSONSchema = hasModule("jsonschema")
    static let hasHaralyzer = hasModule("haralyzer")

    /// Runs a program; returns its exit status and standard output.
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// `scripts/har-check.py MODE …`: the JSON line printed per file, keyed by file path.
    static func check(_ mode: [String], files: [String]) throws -> (status: Int32, results: [String: [String: Any]], output: String) {
        let python = try #require(python3())
        let (status, output) = try run(python, [checker] + mode + files)
        var results: [String: [String: Any]] = [:]
        for line in output.split(separator: "\n") where line.hasPrefix("{") {
            if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
               let file = object["file"] as? String {
                results[file] = object
            }
        }
        return (status, results, output)
    }
}

extension Dictionary where Key == String, Value == Any {
    /// The value at a dotted path (`response._transferSize`).
    func at(_ path: String) -> Any? {
        var value: Any? = self
        for key in path.split(separator: ".") { value = (value as? [String: Any])?[String(key)] }
        return value
    }

    func int(_ path: String) -> Int? { (at(path) as? NSNumber)?.intValue }
    func double(_ path: String) -> Double? { (at(path) as? NSNumber)?.doubleValue }
    func string(_ path: String) -> String? { at(path) as? String }
}

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

    /// Analyses `files` with the HAR options (on top of `base`: a key log for HTTPS) and writes the HAR
    /// to a temporary file; returns its path and the parsed document.
    static func har(
        _ files: [String], name: String, timing: HARWriter.Timing? = nil, base: CaptureAnalyzer.Options = .init()
    ) throws -> (path: String, log: [String: Any]) {
        let path = directory.appendingPathComponent(name + ".har").path
        do {
            let output = try TextOutput(path: path)
            let writer = timing.map { HARWriter(output: output, timing: $0) } ?? HARWriter(output: output)
            let options = OutputFormat.har.analyzerOptions(base)
            _ = AnalysisRun(files: files, options: options).run(writer: writer)
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return (path, try #require(document["log"] as? [String: Any]))
    }

    static func entries(_ log: [String: Any]) -> [[String: Any]] { log["entries"] as? [[String: Any]] ?? [] }

    // MARK: Python

    /// `scripts/har-check.py MODE …` (tests that call it require `.jsonschema` or `.haralyzer`): the
    /// exit status, the JSON line printed per file keyed by file path, and all the output.
    static func check(_ mode: [String], files: [String]) throws -> (status: Int32, results: [String: [String: Any]], output: String) {
        let python = try #require(ExternalProgram.path(of: "python3"), "python3 is not installed")
        let run = try ExternalProgram.run(URL(fileURLWithPath: python), [checker] + mode + files)
        var results: [String: [String: Any]] = [:]
        for line in run.stdout.split(separator: "\n") where line.hasPrefix("{") {
            if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
               let file = object["file"] as? String {
                results[file] = object
            }
        }
        return (run.status, results, run.stdout + run.stderr)
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

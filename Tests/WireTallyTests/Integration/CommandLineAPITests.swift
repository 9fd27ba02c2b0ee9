import Foundation
import Testing
@testable import WireTally

/// The command line is the library API's first client: its limits' defaults are `AnalysisOptions`',
/// its records those of `Capture.analyze` with the same options, its key-log and "nothing analysed"
/// errors the library's `WireTallyError`.
@Suite struct CommandLineAPITests {
    /// Each limit's default as `analyze --help` shows it: `(default: N)` after the option's help.
    @Test(.requires(.wiretallyBinary)) func helpShowsTheLibrarysDefaults() throws {
        let help = try CommandLineTests.run(["analyze", "--help"])
        #expect(help.status == 0)
        let defaults = AnalysisOptions()
        let expected: [(String, Int)] = [
            ("--max-connections", defaults.maxConnections),
            ("--max-buffered-bytes", defaults.maxBufferedBytesPerDirection),
            ("--max-buffered-bytes-total", defaults.maxBufferedBytesTotal),
            ("--idle-timeout", Int(defaults.idleTimeoutSeconds)),
            ("--max-header-bytes", defaults.maxHeaderBytes),
            ("--max-open-requests", defaults.maxOpenRequests),
            ("--max-open-requests-total", defaults.maxOpenRequestsTotal),
            ("--max-decoded-body-bytes", defaults.maxDecodedBodyBytes),
            ("--max-decoding-ratio", defaults.maxDecodingRatio),
        ]
        for (option, value) in expected {
            #expect(Self.shownDefault(of: option, in: help.stdout) == "\(value)", "\(option)")
        }
    }

    /// The text after `(default: ` in the help of `option` (up to the next option).
    static func shownDefault(of option: String, in help: String) -> String? {
        guard let start = help.range(of: "  \(option) <") else { return nil }
        let rest = help[start.upperBound...]
        let end = rest.range(of: "\n  -")?.lowerBound ?? rest.endIndex
        guard let value = rest[..<end].range(of: "(default: ") else { return nil }
        return String(rest[value.upperBound...].prefix { $0 != ")" })
    }

    /// `analyze --format jsonl` with limits and a key log: as many exchanges as `Capture.analyze` with
    /// the same `AnalysisOptions`, flagged alike.
    @Test(.requires(.wiretallyBinary), arguments: [
        ("nginx-pipelining.pcap", nil, ["--max-open-requests", "1"], "too_many_open_requests"),
        ("nginx-curl-keepalive.pcap", nil, ["--max-header-bytes", "40"], "request_headers_too_large"),
        ("tls13-http1.pcap", "tls13-http1.keys", [], "decrypted"),
    ] as [(String, String?, [String], String)])
    func recordsEqualTheLibrarys(capture: String, keyLog: String?, arguments: [String], flag: String) throws {
        let file = TestPaths.capture(capture)
        let keyLogs = keyLog.map { [TestPaths.capture($0)] } ?? []
        let cli = try CommandLineTests.run(["analyze", "--format", "jsonl", file] + keyLogs.flatMap { ["--keylog", $0] } + arguments)
        #expect(cli.status == 0)
        var options = AnalysisOptions()
        options.maxOpenRequests = arguments == ["--max-open-requests", "1"] ? 1 : options.maxOpenRequests
        options.maxHeaderBytes = arguments == ["--max-header-bytes", "40"] ? 40 : options.maxHeaderBytes
        let analysis = try Capture.analyze(files: [file], keyLogs: keyLogs, options: options)
        let lines = cli.stdout.split(separator: "\n")
        let http = lines.filter { $0.hasPrefix("{\"type\":\"http\"") }
        let connections = lines.filter { $0.hasPrefix("{\"type\":\"connection\"") }
        #expect(http.count == analysis.exchanges.count)
        #expect(connections.count == analysis.connections.count)
        let flagged = analysis.exchanges.count { $0.flags.contains(flag) } + analysis.connections.count { $0.flags.contains(flag) }
        #expect(flagged > 0)
        #expect((http + connections).count { Self.flags(of: $0).contains("\"\(flag)\"") } == flagged)
    }

    /// The `"flags":[…]` lists of a JSONL record, as their JSON text.
    static func flags(of line: Substring) -> [Substring] {
        line.components(separatedBy: "\"flags\":[").dropFirst().flatMap { $0.prefix { $0 != "]" }.split(separator: ",") }
    }

    /// An unreadable key log and a capture with nothing to analyse: the command line prints the
    /// library's `WireTallyError` problems and exits 1.
    @Test(.requires(.wiretallyBinary)) func errorsAreTheLibrarys() throws {
        let missingKeys = "/nonexistent/cliapi.keys"
        let capture = TestPaths.capture("nginx-curl-keepalive.pcap")
        let keyError = #expect(throws: WireTallyError.self) { try Capture.analyze(files: [capture], keyLogs: [missingKeys]) }
        let keyRun = try CommandLineTests.run(["analyze", capture, "--keylog", missingKeys])
        #expect(keyRun.status == 1)
        #expect(keyRun.stderr == "wiretally: \(try #require(keyError))\n")

        let missingCapture = "/nonexistent/cliapi.pcap"
        let nothing = #expect(throws: WireTallyError.self) { try Capture.analyze(files: [missingCapture]) }
        guard case let .nothingAnalysed(problems) = try #require(nothing) else { Issue.record("\(String(describing: nothing))"); return }
        let run = try CommandLineTests.run(["analyze", "--format", "jsonl", missingCapture])
        #expect(run.status == 1)
        #expect(run.stderr == problems.map { "wiretally: \($0)\n" }.joined())
    }
}

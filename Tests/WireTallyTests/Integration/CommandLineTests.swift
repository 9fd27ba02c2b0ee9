import Foundation
import Testing
@testable import WireTally

/// The `wiretally` binary on files the tests write: exit codes, messages, and that a damaged file
/// still yields every record completed before the damage.
@Suite struct CommandLineTests {
    /// The built tool, beside the test bundle.
    static let binary: URL? = {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("wiretally")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        let built = TestPaths.root.appendingPathComponent(".build/debug/wiretally")
        return FileManager.default.isExecutableFile(atPath: built.path) ? built : nil
    }()

    enum CommandLineError: Error { case notBuilt }

    typealias Run = ExternalProgram.Run

    static func run(_ arguments: [String]) throws -> Run {
        guard let binary else { throw CommandLineError.notBuilt }
        return try ExternalProgram.run(binary, arguments)
    }

    /// Two complete short connections, then a UDP packet.
    static func twoConnections(link: FrameBuilder.Link = .ethernet) -> [[UInt8]] {
        var frames: [[UInt8]] = []
        for port in [40001, 40002] {
            let client = "10.0.0.1:\(port)", server = "10.0.0.2:80"
            frames.append(FrameBuilder.tcp(from: client, to: server, seq: 100, flags: [.syn], link: link))
            frames.append(FrameBuilder.tcp(from: server, to: client, seq: 900, ack: 101, flags: [.syn, .ack], link: link))
            frames.append(FrameBuilder.tcp(from: client, to: server, seq: 101, ack: 901, flags: [.ack], link: link))
            frames.append(FrameBuilder.tcp(
                from: client, to: server, seq: 101, ack: 901, flags: [.ack, .psh],
                payload: Array("GET / HTTP/1.1\r\n\r\n".utf8), link: link))
            frames.append(FrameBuilder.tcp(from: client, to: server, seq: 119, ack: 901, flags: [.fin, .ack], link: link))
            frames.append(FrameBuilder.tcp(from: server, to: client, seq: 901, ack: 120, flags: [.fin, .ack], link: link))
            frames.append(FrameBuilder.tcp(from: client, to: server, seq: 120, ack: 902, flags: [.ack], link: link))
        }
        frames.append(FrameBuilder.udp(from: "10.0.0.1:5353", to: "10.0.0.9:53", payload: [1, 2, 3], link: link))
        return frames
    }

    static func write(_ bytes: [UInt8], name: String) throws -> String {
        let path = TestScratch.folder.appendingPathComponent("wiretally-\(UUID().uuidString)-\(name)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func wholeFileExitsZeroWithEveryRecord() throws {
        let path = try Self.write(FrameBuilder.pcap(frames: Self.twoConnections(), link: .ethernet), name: "ok.pcap")
        let run = try Self.run(["analyze", "--format", "jsonl", path])
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.filter { $0.contains("\"type\":\"connection\"") }.count == 2)
        #expect(lines.filter { $0.contains("\"type\":\"flow\"") }.count == 1)
        #expect(lines.last?.contains("\"conserved\":true") == true)
    }

    @Test func truncatedFileKeepsCompleteRecordsAndExitsTwo() throws {
        let whole = FrameBuilder.pcap(frames: Self.twoConnections(), link: .ethernet)
        let path = try Self.write(Array(whole.dropLast(10)), name: "cut.pcap")
        let run = try Self.run(["analyze", "--format", "jsonl", path])
        #expect(run.status == 2)
        #expect(run.stderr.contains("truncated after 14 complete packets"))
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.filter { $0.contains("\"type\":\"connection\"") }.count == 2)
        #expect(lines.last?.contains("\"packets\":14") == true)
        #expect(lines.last?.contains("truncated") == true)
    }

    @Test func garbageMissingFileAndBadFilterExitOne() throws {
        let garbage = try Self.write(Array("this is not a capture at all, just text".utf8), name: "garbage.pcap")
        let notCapture = try Self.run(["analyze", garbage])
        #expect(notCapture.status == 1)
        #expect(notCapture.stderr.contains("not a pcap, pcapng or gzip-compressed capture"))

        let missing = try Self.run(["analyze", "/nonexistent/file.pcap"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("cannot open"))

        let ok = try Self.write(FrameBuilder.pcap(frames: Self.twoConnections(), link: .ethernet), name: "ok.pcap")
        let badFilter = try Self.run(["analyze", "-f", "tcp port", ok])
        #expect(badFilter.status == 1)
        #expect(badFilter.stderr.contains("filter"))
    }

    @Test func filterAndOutputFile() throws {
        let path = try Self.write(FrameBuilder.pcap(frames: Self.twoConnections(), link: .ethernet), name: "ok.pcap")
        let output = path + ".jsonl"
        let run = try Self.run(["analyze", "-f", "tcp port 40001", "--format", "jsonl", "-o", output, path])
        #expect(run.status == 0)
        let text = try String(contentsOfFile: output, encoding: .utf8)
        #expect(text.split(separator: "\n").filter { $0.contains("\"type\":\"connection\"") }.count == 1)
        #expect(text.contains("\"filtered\":{\"packets\":8"))
    }

    /// Frames split alternately over two files
    /// read as one capture in timestamp order give the same records as the whole file.
    @Test func severalFilesReadAsOneCapture() throws {
        let frames = Self.twoConnections()
        let times = frames.indices.map { Timestamp(seconds: 1_700_000_000 + Int64($0), nanoseconds: 0) }
        let even = frames.indices.filter { $0 % 2 == 0 }, odd = frames.indices.filter { $0 % 2 == 1 }
        let whole = try Self.write(FrameBuilder.pcap(frames: frames, link: .ethernet, timestamps: times), name: "whole.pcap")
        let first = try Self.write(FrameBuilder.pcap(frames: even.map { frames[$0] }, link: .ethernet, timestamps: even.map { times[$0] }), name: "a.pcap")
        let second = try Self.write(FrameBuilder.pcap(frames: odd.map { frames[$0] }, link: .ethernet, timestamps: odd.map { times[$0] }), name: "b.pcap")
        let one = try Self.run(["analyze", "--format", "jsonl", whole])
        let two = try Self.run(["analyze", "--format", "jsonl", second, first])
        #expect(two.status == 0)
        let records = { (run: Run) in run.stdout.split(separator: "\n").filter { !$0.contains("\"summary\"") } }
        #expect(records(one) == records(two))
        #expect(records(two).count == 5)  // 2 exchanges (requests without response), 2 connections, 1 flow
    }

    @Test func tableAndCSV() throws {
        let path = try Self.write(FrameBuilder.pcap(frames: Self.twoConnections(link: .sll2), link: .sll2), name: "sll2.pcap")
        let table = try Self.run(["analyze", "--connections", path])
        #expect(table.status == 0)
        #expect(table.stdout.contains("10.0.0.1:40001"))
        #expect(table.stdout.contains("2 connections"))
        let csv = try Self.run(["analyze", "--connections", "--format", "csv", path])
        let rows = csv.stdout.split(separator: "\n")
        try #require(rows.count == 3)
        #expect(rows[0].hasPrefix("transport,id,client,server,ts_first,ts_last,up_packets,up_ip_bytes"))
    }

    /// `--keylog`: the secrets decrypt (every request of the capture parsed), a malformed line is
    /// reported by file and line number only, an unreadable key log ends the run with status 1, and no
    /// secret of the key log appears in any output, whatever the format.
    @Test(.requires(.wiretallyBinary)) func keyLogDecryptsAndNeverEchoesSecrets() throws {
        let keys = try String(contentsOfFile: TestPaths.capture("tls13-http1.keys"), encoding: .utf8)
        let secrets = keys.split(separator: "\n").flatMap { $0.split(separator: " ").dropFirst() }.map { $0.lowercased() }
        #expect(secrets.count >= 10)
        // A malformed line holding a secret: reported, never shown.
        let path = TestScratch.folder.appendingPathComponent("cli.keys").path
        try (keys + "CLIENT_TRAFFIC_SECRET_0 00 \(secrets[1])\n").write(toFile: path, atomically: true, encoding: .utf8)
        let capture = TestPaths.capture("tls13-http1.pcap")
        for format in ["table", "jsonl", "csv", "har"] {
            let run = try Self.run(["analyze", capture, "--keylog", path, "--format", format])
            #expect(run.status == 0)
            let lines = keys.split(separator: "\n").count
            #expect(run.stderr.contains("key log \(path): line \(lines + 1): "), "\(run.stderr)")
            for secret in secrets { #expect(!run.stdout.lowercased().contains(secret) && !run.stderr.lowercased().contains(secret)) }
            if format == "jsonl" {
                #expect(run.stdout.split(separator: "\n").count { $0.contains("\"decrypted\"") && $0.contains("\"type\":\"http\"") } == 6)
            }
        }
        let missing = try Self.run(["analyze", capture, "--keylog", "/nonexistent/keys"])
        #expect(missing.status == 1 && missing.stderr.contains("key log /nonexistent/keys: cannot open"))
    }
}

extension CommandLineTests {
    /// A file that cannot be opened is named once in its message, whichever command and whichever
    /// kind of file (capture, app log, key log): `wiretally: PATH: cannot open: No such file or directory`.
    /// Every command takes `--keylog` and `--app` (one option group, shared by the four).
    @Test(.requires(.wiretallyBinary), arguments: ["analyze", "compare", "report", "live"])
    func everyCommandTakesKeyLogAndApp(command: String) throws {
        let help = try Self.run([command, "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("--keylog <file>") && help.stdout.contains("--app <name>"), "\(command)")
    }

    @Test func missingFileIsNamedOnce() throws {
        let ok = try Self.write(FrameBuilder.pcap(frames: Self.twoConnections(), link: .ethernet), name: "named-once.pcap")
        let missing = "/nonexistent/missing-\(UInt32.random(in: 0...UInt32.max))"
        let runs: [(String, [String])] = [
            ("capture", ["analyze", missing + ".pcap"]), ("capture", ["compare", missing + ".pcap"]),
            ("app log", ["compare", ok, "--app-log", missing + ".har"]), ("key log", ["analyze", "--keylog", missing + ".keys", ok]),
        ]
        for (kind, arguments) in runs {
            let run = try Self.run(arguments)
            #expect(run.status != 0, "\(arguments)")
            let lines = run.stderr.split(separator: "\n").filter { $0.contains(missing) }
            #expect(!lines.isEmpty, "\(kind): \(run.stderr)")
            for line in lines {
                #expect(line.components(separatedBy: missing).count == 2, "\(kind): named more than once: \(line)")
                #expect(line.hasPrefix("wiretally: ") && line.hasSuffix("cannot open: No such file or directory"), "\(kind): \(line)")
            }
        }
    }
}

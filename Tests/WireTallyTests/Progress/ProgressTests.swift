import Foundation
import Testing
@testable import WireTally

/// The progress of a run: bytes read of the files' total, the line drawn from it, and that the
/// command line draws it only on a terminal and never with `--quiet`.
@Suite struct ProgressTests {
    @Test func lineShowsShareBytesRateAndTimeLeft() {
        let half = ReadProgress(fileBytesRead: 210_850_000, fileBytesTotal: 421_700_000, packets: 176_000)
        #expect(ProgressLine.render(half, elapsedSeconds: 2) ==
            "[██████████░░░░░░░░░░]  50%  210.9/421.7 MB  88.0k packets/s  ETA 0:02")
        let start = ReadProgress(fileBytesRead: 0, fileBytesTotal: 5_000_000, packets: 0)
        #expect(ProgressLine.render(start, elapsedSeconds: 0) == "[░░░░░░░░░░░░░░░░░░░░]   0%  0.0/5.0 MB")
        let slow = ReadProgress(fileBytesRead: 1_000_000, fileBytesTotal: 4_000_000_000, packets: 2_500_000)
        #expect(ProgressLine.render(slow, elapsedSeconds: 2) ==
            "[░░░░░░░░░░░░░░░░░░░░]   0%  1.0/4000.0 MB  1.3M packets/s  ETA 2:13:18")
        let over = ReadProgress(fileBytesRead: 6_000_000, fileBytesTotal: 5_000_000, packets: 10)
        #expect(ProgressLine.render(over, elapsedSeconds: 1).hasPrefix("[████████████████████] 100%  6.0/5.0 MB  10 packets/s"))
    }

    @Test(arguments: ["nginx-curl-keepalive.pcap", "nginx-chunked-gzip.pcap.gz", "nginx-pipelining.pcapng"], [1, 2])
    func readingEndsAtTheFilesSize(name: String, threads: Int) throws {
        let path = TestPaths.capture(name)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        var reports: [ReadProgress] = []
        var run = AnalysisRun(files: [path, path], threads: threads)
        run.progress = { reports.append($0) }
        let result = run.run(writer: CollectingWriter())
        let last = try #require(reports.last)
        #expect(last.fileBytesTotal == 2 * size)
        #expect(last.fileBytesRead == 2 * size)
        #expect(last.packets == result.summary.read.packets)
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.fileBytesRead <= $1.fileBytesRead && $0.packets <= $1.packets })
    }

    /// A capture over the display's threshold: copies of `lossy.pcap`, each a hundred seconds later.
    static func bigCapture() throws -> String {
        let path = TestScratch.folder.appendingPathComponent("wiretally-progress-\(getpid()).pcap").path
        let writer = try PcapWriter(destination: .file(path: path), linkType: .ethernet)
        for copy in 0..<3 {
            var source = try CaptureFile.open(path: TestPaths.capture("lossy.pcap"))
            while var packet = try source.nextPacket() {
                packet.timestamp.nanoseconds += Int64(copy) * 100_000_000_000
                try writer.write(packet)
            }
        }
        try writer.close()
        return path
    }

    @Test(.requires(.wiretallyBinary, .script))
    func commandLineDrawsTheBarOnlyOnATerminalAndNotWhenQuiet() throws {
        let path = try Self.bigCapture()
        defer { try? FileManager.default.removeItem(atPath: path) }
        // over the command line's `ProgressDisplay.minimumFileBytes` (4 MB)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int > 4_000_000)
        let commands = ["analyze", "compare", "report"]
        for command in commands {
            let piped = try CommandLineTests.run([command, path, "-o", "/dev/null"])
            #expect(piped.status == 0)
            #expect(piped.stderr.isEmpty, "no bar when standard error is not a terminal")
        }
        // `script` gives the command a terminal and copies what it writes to its standard output.
        let binary = try #require(CommandLineTests.binary).path
        for command in commands {
            let shown = try ExternalProgram.output("script", ["-qec", "\(binary) \(command) \(path) -o /dev/null", "/dev/null"])
            let screen = String(decoding: shown, as: UTF8.self)
            #expect(screen.contains("█") && screen.contains("% "), "a bar is drawn on a terminal")
            #expect(screen.contains("\r\u{1B}[K"), "and erased at the end")
            let quiet = try ExternalProgram.output("script", ["-qec", "\(binary) \(command) --quiet \(path) -o /dev/null", "/dev/null"])
            #expect(!String(decoding: quiet, as: UTF8.self).contains("█"))
        }
    }
}

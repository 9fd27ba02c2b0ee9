import Foundation
import Testing
@testable import WireTally

/// `wiretally report`: the file is written, and the exit codes are those of analyze and compare.
@Suite(.requires(.wiretallyBinary))
struct ReportCommandTests {
    static func output() -> String {
        TestScratch.folder.appendingPathComponent("wiretally-report-\(UUID().uuidString).html").path
    }

    @Test func writesTheReport() throws {
        let path = Self.output()
        let run = try CommandLineTests.run(["report", TestPaths.capture("runaway.pcap"), "-o", path])
        #expect(run.status == 0)
        let html = try String(contentsOfFile: path, encoding: .utf8)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("\"requests\":105"))
    }

    @Test func truncatedInputStillWritesTheReportAndExitsTwo() throws {
        let whole = FrameBuilder.pcap(frames: CommandLineTests.twoConnections(), link: .ethernet)
        let capture = try CommandLineTests.write(Array(whole.dropLast(10)), name: "cut.pcap")
        let path = Self.output()
        let run = try CommandLineTests.run(["report", capture, "-o", path])
        #expect(run.status == 2)
        #expect(run.stderr.contains("truncated after 14 complete packets"))
        let html = try String(contentsOfFile: path, encoding: .utf8)
        #expect(html.contains("truncated after 14 complete packets"))
        #expect(html.contains("\"connections\":2"))
    }

    @Test func unreadableInputsExitOneAndBadAppLogTwo() throws {
        let missing = try CommandLineTests.run(["report", "/nonexistent/file.pcap", "-o", Self.output()])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("cannot open"))

        let badLog = try CommandLineTests.run(["report", TestPaths.capture("nginx-curl-keepalive.pcap"),
                                               "--app-log", "/nonexistent/app.jsonl", "-o", Self.output()])
        #expect(badLog.status == 2)
        #expect(badLog.stderr.contains("/nonexistent/app.jsonl"))

        let noOutput = try CommandLineTests.run(["report", TestPaths.capture("nginx-curl-keepalive.pcap")])
        #expect(noOutput.status == 64)

        let unwritable = try CommandLineTests.run(["report", TestPaths.capture("nginx-curl-keepalive.pcap"), "-o", "/nonexistent/dir/r.html"])
        #expect(unwritable.status == 1)
    }
}

import Foundation
import Testing
import WireTally

/// The documented errors: nothing analysable throws; damage after some packets keeps the records.
@Suite struct ErrorTests {
    @Test func missingFileThrows() {
        #expect {
            try Capture.analyze(files: ["/nonexistent/capture.pcap"])
        } throws: { error in
            guard case let .nothingAnalysed(problems) = error as? WireTallyError else { return false }
            return problems.count == 1 && problems[0].contains("/nonexistent/capture.pcap")
        }
    }

    @Test func garbageFileThrows() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wiretally-api-garbage-\(getpid()).pcap").path
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect {
            try Capture.analyze(files: [path])
        } throws: { error in
            guard case let .nothingAnalysed(problems) = error as? WireTallyError else { return false }
            return problems.first?.contains("not a pcap") == true
        }
    }

    /// A capture cut in the middle of a packet: the records before the cut, and the damage in
    /// `inputErrors`.
    @Test func truncatedFileKeepsTheRecordsBeforeTheDamage() throws {
        let whole = try Data(contentsOf: URL(fileURLWithPath: Captures.path("nginx-curl-keepalive.pcap")))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("wiretally-api-truncated-\(getpid()).pcap").path
        try whole.prefix(whole.count * 2 / 3 + 7).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let analysis = try Capture.analyze(files: [path])
        #expect(analysis.summary.inputErrors.count == 1)
        #expect(analysis.summary.inputErrors.first?.contains("truncated") == true)
        #expect(!analysis.exchanges.isEmpty)
        #expect(analysis.summary.isConserved)
    }

    /// A live capture that cannot start (no such interface; without root, no right to capture).
    @Test func liveCaptureThatCannotStartThrows() {
        #expect {
            try Capture.live(interface: "wt-no-such-if")
        } throws: { error in
            guard case let .liveCapture(message) = error as? WireTallyError else { return false }
            return !message.isEmpty
        }
    }

    @Test func comparingWithoutKeptExchangesThrows() throws {
        let analysis = try Capture.analyze(
            files: [Captures.path("nginx-curl-keepalive.pcap")], options: AnalysisOptions(keepsExchangesForComparison: false))
        #expect(throws: WireTallyError.notComparable) {
            try Comparison.run(analysis, appLog: [AppRequest(url: "http://10.77.0.2/index.html")])
        }
    }
}

import Foundation
import Testing
@testable import WireTally

/// `analyze --decode`: bodies are decoded only when asked. nginx's access log (`sent_http_content_encoding`)
/// says which responses were gzip-encoded; those, and only those, get a `decoded_body` with `--decode`,
/// together larger than the bodies sent; without it every `decoded_body` is null and nothing else changes.
@Suite struct DecodeSwitchTests {
    static let capture = "nginx-chunked-gzip.pcap"

    /// `"decoded_body":N` values of the output, in order.
    static func decodedSizes(_ text: String) -> [Int] {
        text.matches(of: /"decoded_body":(\d+)/).map { Int($0.1)! }
    }

    @Test func decodesOnlyWithTheSwitch() throws {
        let path = TestPaths.capture(Self.capture)
        let plain = try CommandLineTests.run(["analyze", "--format", "jsonl", path])
        let decoded = try CommandLineTests.run(["analyze", "--format", "jsonl", "--decode", path])
        #expect(plain.status == 0 && decoded.status == 0)
        #expect(Self.decodedSizes(plain.stdout).isEmpty)
        #expect(!plain.stdout.contains("undecodable") && !plain.stdout.contains("decompression_bomb"))

        let log = try String(contentsOfFile: TestPaths.capture("nginx-chunked-gzip.nginx.jsonl"), encoding: .utf8)
        let gzipResponses = log.split(separator: "\n").filter { $0.contains("\"sent_http_content_encoding\":\"gzip\"") }
        let sizes = Self.decodedSizes(decoded.stdout)
        #expect(sizes.count == gzipResponses.count && !sizes.isEmpty)
        let sent = gzipResponses.compactMap { $0.firstMatch(of: /"body_bytes_sent":(\d+)/).map { Int($0.1)! } }
        #expect(sent.count == gzipResponses.count && sizes.reduce(0, +) > sent.reduce(0, +))

        // Everything but decoded_body is the same.
        let withoutSizes = decoded.stdout.replacing(/"decoded_body":\d+/, with: "\"decoded_body\":null")
        #expect(withoutSizes == plain.stdout)
    }

    @Test func oneAndTwoThreadsWriteTheSameBytes() throws {
        for name in ["lossy.pcap", "nginx-chunked-gzip.pcap.gz"] {
            let one = try CommandLineTests.run(["analyze", "--format", "jsonl", "--decode", "--threads", "1", TestPaths.capture(name)])
            let two = try CommandLineTests.run(["analyze", "--format", "jsonl", "--decode", "--threads", "2", TestPaths.capture(name)])
            let auto = try CommandLineTests.run(["analyze", "--format", "jsonl", "--decode", TestPaths.capture(name)])
            #expect(one.status == 0 && one.stdout == two.stdout && one.stdout.hasSuffix("\"conserved\":true}\n"))
            #expect(auto.stdout == one.stdout)
        }
        let bad = try CommandLineTests.run(["analyze", "--threads", "3", TestPaths.capture("lossy.pcap")])
        #expect(bad.status == 64 && bad.stderr.contains("'--threads <threads>'"))
        let help = try CommandLineTests.run(["analyze", "--help"])
        #expect(help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ").contains("(values: 1, 2, auto; default: auto)"))
    }

    /// `--threads auto` (the default): a second thread for 16 MB of files or more when two CPUs are online.
    @Test func automaticThreadsNeedTwoCPUsAndAFewMegabytes() {
        let big = AnalysisRun.smallestInputForTwoThreads
        #expect(AnalysisRun.automaticThreads(fileBytes: big, onlineCPUs: 2) == 2)
        #expect(AnalysisRun.automaticThreads(fileBytes: big - 1, onlineCPUs: 64) == 1)
        #expect(AnalysisRun.automaticThreads(fileBytes: 1 << 40, onlineCPUs: 1) == 1)
        #expect(AnalysisRun.onlineCPUCount() >= 1)
        #expect(AnalysisRun.automaticThreads(files: [TestPaths.capture("lossy.pcap"), "/nonexistent"]) == 1)
    }
}

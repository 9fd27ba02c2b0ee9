import Foundation
import Testing
@testable import WireTally

/// `captures/runaway.pcap` (scripts/record-captures runaway): one more identical 1 s poller of
/// GET /api/status about every 3 s next to one steady 1 s poller of GET /api/config.
@Suite struct InsightsRunawayCaptureTests {
    static let file = TestPaths.capture("runaway.pcap")

    /// Analyses the capture into both the record collector and the endpoint summary.
    final class Tee: RecordWriter {
        let records = CollectingWriter()
        let summary: EndpointSummaryWriter
        init(output: TextOutput) { summary = EndpointSummaryWriter(output: output, format: .json) }
        func write(_ record: AnalysisRecord, timestampDigits: Int) {
            records.write(record, timestampDigits: timestampDigits)
            summary.aggregator.add(record)
        }
        func finish(summary: CaptureSummary, files: [String]) { records.finish(summary: summary, files: files) }
    }

    static func analyze() throws -> (Tee, [EndpointSummary]) {
        let tee = Tee(output: try TextOutput(path: "/dev/null"))
        var options = CaptureAnalyzer.Options()
        options.http.retainedBodyBytes = 4096
        _ = AnalysisRun(files: [file], options: options).run(writer: tee)
        return (tee, tee.summary.aggregator.summaries())
    }

    @Test func statusIsRunawayAndConfigIsNot() throws {
        let (_, endpoints) = try Self.analyze()
        let status = try #require(endpoints.first { $0.path == "/api/status" })
        let config = try #require(endpoints.first { $0.path == "/api/config" })
        #expect(status.flags.map(\.kind).contains(.runaway))
        #expect(config.flags.isEmpty)
        #expect(endpoints.count == 2)
        #expect(status.method == "GET" && status.host == "10.77.0.2")
    }

    @Test func requestsMatchTheServerLog() throws {
        let (_, endpoints) = try Self.analyze()
        let log = try String(contentsOfFile: TestPaths.capture("runaway.nginx.jsonl"), encoding: .utf8)
        var perPath: [String: Int] = [:]
        for line in log.split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            perPath[object?["request_uri"] as? String ?? "", default: 0] += 1
        }
        for endpoint in endpoints { #expect(perPath[endpoint.path ?? ""] == endpoint.requests) }
    }

    @Test func bytesAddUpToTheExchanges() throws {
        let (tee, endpoints) = try Self.analyze()
        let exchanges = tee.records.exchanges
        #expect(endpoints.reduce(0) { $0 + $1.requests } == exchanges.count)
        #expect(endpoints.reduce(0) { $0 + $1.upIPBytes } == exchanges.reduce(0) { $0 + ($1.int("wire.up.ip_bytes") ?? 0) })
        #expect(endpoints.reduce(0) { $0 + $1.downIPBytes } == exchanges.reduce(0) { $0 + ($1.int("wire.down.ip_bytes") ?? 0) })
        #expect(abs(endpoints.reduce(0) { $0 + $1.share } - 1) < 1e-3)
    }

    /// Negative control on real traffic: no other recorded capture has a runaway endpoint, and curl's
    /// revalidations of /index.html (If-None-Match, If-Modified-Since) are not duplicates of its fetch.
    @Test(arguments: TestPaths.files(in: TestPaths.captures, endingWith: [".pcap"]).filter { $0 != "runaway.pcap" })
    func noRunawayElsewhere(_ name: String) throws {
        let writer = EndpointSummaryWriter(output: try TextOutput(path: "/dev/null"), format: .json)
        var options = CaptureAnalyzer.Options()
        options.http.retainedBodyBytes = 4096
        _ = AnalysisRun(files: [TestPaths.capture(name)], options: options).run(writer: writer)
        let endpoints = writer.aggregator.summaries()
        #expect(!endpoints.contains { $0.flags.contains { $0.kind == .runaway } })
        if name.hasPrefix("nginx-curl-keepalive") {
            #expect(endpoints.allSatisfy { $0.flags.isEmpty })
            #expect(endpoints.first { $0.path == "/index.html" }?.requests == 3)  // GET + 2 revalidations
        }
    }

    @Test(.requires(.wiretallyBinary))
    func commandLineSummary() throws {
        let json = try CommandLineTests.run(["analyze", Self.file, "--summary", "--format", "json"])
        #expect(json.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let endpoints = object?["endpoints"] as? [[String: Any]] ?? []
        let status = endpoints.first { $0["path"] as? String == "/api/status" }
        #expect((status?["flags"] as? [String])?.contains("runaway") == true)
        for key in ["method", "host", "path", "requests", "up_ip_bytes", "down_ip_bytes", "share", "rate_windows", "flags"] {
            #expect(status?[key] != nil, "\(key)")
        }
        let table = try CommandLineTests.run(["analyze", Self.file, "--summary"])
        #expect(table.status == 0 && table.stdout.contains("runaway"))
        let misuse = try CommandLineTests.run(["analyze", Self.file, "--format", "json"])
        #expect(misuse.status == 64)
        let misuse2 = try CommandLineTests.run(["analyze", Self.file, "--summary", "--format", "csv"])
        #expect(misuse2.status == 64)
    }
}

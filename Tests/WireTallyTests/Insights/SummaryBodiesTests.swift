import Foundation
import Testing
@testable import WireTally

/// `--summary` reads request bodies only (`HTTPLimits.readsResponseBodies` off): on every recorded
/// capture its JSON document is the one of an analysis that decodes and retains every body, and no
/// response body is decoded or kept.
@Suite struct SummaryBodiesTests {
    static func summarise(_ file: String, readsResponseBodies: Bool) throws -> (json: String, responses: [HTTPMessage], requests: [HTTPMessage]) {
        final class Collector: RecordWriter {
            let summary: EndpointSummaryWriter
            var requests: [HTTPMessage] = [], responses: [HTTPMessage] = []
            init(output: TextOutput) { summary = EndpointSummaryWriter(output: output, format: .json) }
            func write(_ record: AnalysisRecord, timestampDigits: Int) {
                summary.aggregator.add(record)
                if case let .exchange(exchangeRecord) = record {
                    if let request = exchangeRecord.exchange.request { requests.append(request) }
                    if let response = exchangeRecord.exchange.response { responses.append(response) }
                }
            }
            func finish(summary: CaptureSummary, files: [String]) {}
        }
        let collector = Collector(output: try TextOutput(path: "/dev/null"))
        var options = CaptureAnalyzer.Options()
        options.http.decodeBodies = true
        options.http.retainedBodyBytes = 4096
        options.http.readsResponseBodies = readsResponseBodies
        _ = AnalysisRun(files: [file], options: options).run(writer: collector)
        return (collector.summary.aggregator.json().serialized, collector.responses, collector.requests)
    }

    @Test(arguments: TestPaths.recordedCaptures(beside: ".pcap"))
    func summaryNeedsNoResponseBody(_ name: String) throws {
        let file = TestPaths.capture(name + ".pcap")
        let all = try Self.summarise(file, readsResponseBodies: true)
        let requestsOnly = try Self.summarise(file, readsResponseBodies: false)
        #expect(requestsOnly.json == all.json, "\(name)")
        #expect(requestsOnly.responses.allSatisfy { $0.decodedBodyBytes == nil && $0.retainedBody == nil }, "\(name)")
        #expect(requestsOnly.requests.map(\.decodedBodyBytes) == all.requests.map(\.decodedBodyBytes), "\(name)")
        #expect(requestsOnly.requests.map(\.retainedBody) == all.requests.map(\.retainedBody), "\(name)")
    }

    /// The captures hold encoded responses, so the test above compares runs that differ.
    @Test func capturesHoldEncodedResponses() throws {
        let encoded = try TestPaths.recordedCaptures(beside: ".pcap").reduce(0) { count, name in
            count + (try Self.summarise(TestPaths.capture(name + ".pcap"), readsResponseBodies: true).responses
                .filter { $0.decodedBodyBytes != nil }.count)
        }
        #expect(encoded > 0)
    }
}

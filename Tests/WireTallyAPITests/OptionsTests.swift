import Testing
import WireTally

/// `AnalysisOptions`' limits reach the pipeline: past one, the exchange or connection is flagged and
/// its bytes stay counted.
@Suite struct OptionsTests {
    /// curl pipelines its requests to nginx; with one open request allowed, the second one stops the
    /// parse of the client's direction.
    @Test func openRequestLimitFlagsTheConnection() throws {
        let files = [Captures.path("nginx-pipelining.pcap")]
        let whole = try Capture.analyze(files: files)
        var options = AnalysisOptions()
        options.maxOpenRequests = 1
        let limited = try Capture.analyze(files: files, options: options)
        #expect(!whole.connections.contains { $0.flags.contains("too_many_open_requests") })
        #expect(limited.connections.contains { $0.flags.contains("too_many_open_requests") })
        #expect(limited.exchanges.count < whole.exchanges.count)
        #expect(limited.summary.isConserved)
        #expect(limited.summary.read == whole.summary.read)
        let wire = { (analysis: Analysis) in Dictionary(uniqueKeysWithValues: analysis.connections.map { ($0.id, $0.wire) }) }
        #expect(wire(limited) == wire(whole))
    }

    @Test func headerLimitFlagsTheMessage() throws {
        var options = AnalysisOptions()
        options.maxHeaderBytes = 40
        let analysis = try Capture.analyze(files: [Captures.path("nginx-curl-keepalive.pcap")], options: options)
        #expect(analysis.exchanges.contains { $0.flags.contains("request_headers_too_large") })
        #expect(analysis.summary.isConserved)
    }

    /// A limit below what the pipeline accepts is raised to it, never a crash.
    @Test func limitsBelowTheLeastAreRaised() throws {
        var options = AnalysisOptions()
        options.maxConnections = -5
        options.maxOpenRequests = 0
        options.maxHeaderBytes = 0
        options.idleTimeoutSeconds = -1
        options.maxDecodingRatio = 0
        options.settleSeconds = -1
        let analysis = try Capture.analyze(files: [Captures.path("nginx-curl-keepalive.pcap")], options: options)
        #expect(analysis.summary.isConserved)
        #expect(!analysis.connections.isEmpty)
    }

    /// `appName` keeps one process's packets; a name no packet carries filters everything.
    @Test func unknownAppNameFiltersEveryPacket() throws {
        var options = AnalysisOptions()
        options.appName = "no-such-app"
        let analysis = try Capture.analyze(files: [Captures.path("nginx-curl-keepalive.pcap")], options: options)
        #expect(analysis.exchanges.isEmpty)
        #expect(analysis.summary.filtered == analysis.summary.read)
    }
}

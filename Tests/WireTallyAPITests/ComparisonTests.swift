import Testing
import WireTally

/// `Comparison.run` with app-log entries built in code: nginx's own byte counts as a perfect
/// monitor, then a monitor that misses the response headers.
@Suite struct ComparisonTests {
    /// nginx's counts as app requests: request = `$request_length`, response head and body from
    /// `$bytes_sent` and `$body_bytes_sent`.
    static func appLog(_ log: [Captures.NginxEntry], countsResponseHeaders: Bool = true) -> [AppRequest] {
        log.map { entry in
            AppRequest(
                url: "\(entry.scheme)://\(entry.http_host)\(entry.request_uri)", method: entry.request_method,
                status: entry.status, start: entry.msec, requestHeaderBytes: entry.request_length, requestBodyBytes: 0,
                responseHeaderBytes: countsResponseHeaders ? entry.bytes_sent - entry.body_bytes_sent : 0,
                responseBodyBytes: entry.body_bytes_sent)
        }
    }

    @Test func exactCountsDifferOnlyByTransportOverhead() throws {
        let analysis = try Capture.analyze(files: [Captures.path("nginx-curl-keepalive.pcap")])
        let log = try Captures.nginxLog("nginx-curl-keepalive")
        let result = try Comparison.run(analysis, appLog: Self.appLog(log))
        #expect(result.requests.count == log.count)
        #expect(result.unmatchedRequests.isEmpty && result.unmatchedExchanges.isEmpty)
        for request in result.requests {
            #expect(request.exchange.url == request.request.url)
            #expect(request.gapByCause.values.reduce(0, +) == -request.errorBytes)
            for cause in ["hidden_headers", "body_length", "compression_estimate", "other"] {
                #expect(request.gapByCause[cause] == 0, "\(cause)\n\(result)")
            }
            // the app counted the stream: at payload level only retransmitted bytes can differ
        }
        let payload = try Comparison.run(analysis, appLog: Self.appLog(log), level: .payload)
        #expect(payload.errorBytes == -(payload.gapByCause["retransmissions"] ?? 0), "\(payload)")
        #expect(result.gapByCause.values.reduce(0, +) == -result.errorBytes)
        #expect(result.description.contains("/index.html"))
    }

    @Test func missingResponseHeadersShowAsHiddenHeaders() throws {
        let analysis = try Capture.analyze(files: [Captures.path("nginx-curl-keepalive.pcap")])
        let log = try Captures.nginxLog("nginx-curl-keepalive")
        let result = try Comparison.run(analysis, appLog: Self.appLog(log, countsResponseHeaders: false))
        let headers = log.map { $0.bytes_sent - $0.body_bytes_sent }.reduce(0, +)
        #expect(result.gapByCause["hidden_headers"] == headers, "\(result)")
        #expect((result.errorPercent ?? 0) < 0)
        let worst = try #require(result.worstRequest)
        #expect(result.requests.allSatisfy { abs($0.errorPercent ?? 0) <= abs(worst.errorPercent ?? 0) })
    }

    @Test func unmatchedRequestsAreListed() throws {
        let analysis = try Capture.analyze(files: [Captures.path("nginx-curl-keepalive.pcap")])
        let result = try Comparison.run(
            analysis, appLog: [AppRequest(url: "http://10.77.0.2/never-requested", method: "GET", requestHeaderBytes: 80)])
        #expect(result.requests.isEmpty)
        #expect(result.unmatchedRequests.map(\.url) == ["http://10.77.0.2/never-requested"])
        #expect(result.unmatchedExchanges.count == analysis.exchanges.count)
    }
}

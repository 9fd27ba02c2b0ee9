import Foundation
import MonitorCheck
import Testing
import WireTally

/// Runs requests through the app's client, captures them on the loopback interface with
/// WireTally's live capture, and checks that the monitor's counts are within a few percent of the
/// wire. Needs the right to capture (root, as in CI); without it the test is skipped.
@Suite struct MonitorAccuracyTests {
    /// The largest error allowed per request, in percent of its IP bytes (the first request also
    /// carries the TCP handshake, about 5 % of an 8 kB exchange).
    static let tolerancePercent = 8.0

    @Test(.enabled(if: geteuid() == 0, "live capture needs root"))
    func monitorCountsAreWithinToleranceOfTheWire() async throws {
        let server = try LocalServer()
        defer { server.stop() }
        let stream = try Capture.live(interface: "lo", options: AnalysisOptions(filter: "tcp port \(server.port)"))
        let collecting = Task { try await Analysis(collecting: stream) }

        let monitor = ByteCountingMonitor()
        let sizes = [8_000, 20_000, 40_000, 250_000]
        do {
            let client = try TinyHTTPClient(host: "127.0.0.1", port: server.port, monitor: monitor)
            // 250 kB arrives on `lo` as a burst of 64 KiB segments (the live capture's buffer holds them)
            for size in sizes { _ = try client.send("GET", "/bytes/\(size)") }
            _ = try client.send("POST", "/upload", body: [UInt8](repeating: 7, count: 30_000))
        }  // the client closes its connection here
        try await Task.sleep(for: .milliseconds(500))  // the teardown reaches the capture
        stream.stop()
        let analysis = try await collecting.value

        let appLog = monitor.requests.map {
            AppRequest(
                url: $0.url, method: $0.method, status: $0.status, start: $0.start, requestHeaderBytes: $0.requestHeaderBytes,
                requestBodyBytes: $0.requestBodyBytes, responseBodyBytes: $0.responseBodyBytes)
        }
        let result = try Comparison.run(analysis, appLog: appLog, level: .ip)
        #expect(result.requests.count == sizes.count + 1, "\(result)")
        #expect(result.unmatchedRequests.isEmpty && result.unmatchedExchanges.isEmpty, "\(result)")
        for request in result.requests {
            #expect(abs(request.errorPercent ?? 100) <= Self.tolerancePercent,
                    "\(request.request.method ?? "") \(request.request.url) is off by more than \(Self.tolerancePercent) %:\n\(result)")
        }
        // What the monitor cannot see: the response headers, and TCP/IP.
        #expect((result.gapByCause["hidden_headers"] ?? 0) > 0, "\(result)")
        #expect((result.gapByCause["tcp_ip_headers"] ?? 0) > 0, "\(result)")
        print(result)
    }
}

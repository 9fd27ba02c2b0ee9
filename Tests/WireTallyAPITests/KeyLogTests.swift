import Testing
import WireTally

/// HTTPS: with the recording's key log the exchanges are decrypted and parsed (nginx's counts); without
/// it they are estimated from the TLS records.
@Suite struct KeyLogTests {
    @Test func decryptedExchangesEqualNginxCounts() throws {
        let analysis = try Capture.analyze(
            files: [Captures.path("tls13-http1.pcap")], keyLogs: [Captures.path("tls13-http1.keys")])
        let log = try Captures.nginxLog("tls13-http1")
        #expect(analysis.exchanges.count == log.count)
        for entry in log {
            let exchange = try #require(AnalyzeTests.exchange(for: entry, in: analysis), "\(entry.request_uri)")
            #expect(exchange.flags.contains("decrypted"), "\(exchange.flags)")
            #expect(exchange.url == "https://\(entry.http_host)\(entry.request_uri)")
            #expect(exchange.request?.totalBytes == entry.request_length)
            #expect(exchange.response?.totalBytes == entry.bytes_sent)
        }
        #expect(analysis.summary.tlsDecryption["decrypted"] == analysis.connections.filter { $0.server.hasSuffix(":443") }.count)
    }

    @Test func withoutKeyLogExchangesAreEstimated() throws {
        let analysis = try Capture.analyze(files: [Captures.path("tls13-http1.pcap")])
        #expect(!analysis.exchanges.isEmpty)
        for exchange in analysis.exchanges {
            #expect(exchange.flags.contains("estimated"))
            #expect(exchange.method == nil)
        }
    }

    @Test func missingKeyLogIsAnError() {
        #expect(throws: WireTallyError.self) {
            try Capture.analyze(files: [Captures.path("tls13-http1.pcap")], keyLogs: ["/nonexistent/keys.log"])
        }
    }
}

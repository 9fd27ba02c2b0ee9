import Foundation
import Testing
@testable import WireTally

/// `compare` on the recorded HTTP/2 captures: app logs (curl's `%{json}`, nghttp's HAR) and the built-in
/// estimators explain the HTTP/2 gap with `hpack` and `http2_framing`, add up exactly, and compare a
/// pushed exchange in down, where its PUSH_PROMISE travelled.
@Suite struct HTTP2CompareTests {
    /// The exchanges of a capture, analysed with its key log when it has one.
    static func exchanges(_ name: String) throws -> ExchangeCollector {
        ExchangeCollector.analyze([TestPaths.capture(name + ".pcap")], options: try options(name))
    }

    /// Analysis options with the capture's key log, when it has one.
    static func options(_ name: String) throws -> CaptureAnalyzer.Options {
        var options = CaptureAnalyzer.Options()
        if FileManager.default.fileExists(atPath: TestPaths.capture(name + ".keys")) {
            options.tlsKeys = try TLSKeyStore.reading(files: [TestPaths.capture(name + ".keys")])
        }
        return options
    }

    /// Each matched entry of `log` with its exchange and the gap of the entry's own figures.
    static func gaps(_ collector: ExchangeCollector, log path: String, level: WireLevel = .ip) throws
        -> [(entry: AppLogEntry, exchange: HTTPExchange, gap: GapAttribution)]
    {
        let report = AppLogReport(log: try AppLog.read(path: path), wire: collector.wire)
        let byID = Dictionary(collector.exchanges.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return try report.estimates.map { entry, wire, estimate, _ in
            let collected = try #require(byID[wire.id])
            let breakdown = EstimateBreakdown(appLog: estimate, exchange: collected.exchange)
            return (entry, collected.exchange, GapAttribution(exchange: collected.exchange, connection: collected.connection,
                                                              breakdown: breakdown, level: level))
        }
    }

    /// The head of a message on its stream: HTTP/2's HPACK blocks (interim ones of a response included).
    static func wireHead(_ message: HTTPMessage?) -> Int {
        guard let message else { return 0 }
        return message.bytes.startLine + message.bytes.headers + (message.kind == .response ? message.interimBytes : 0)
    }

    /// Recordings whose curl log has HTTP/2 transfers (all of them, except `h2-upgrade`'s first request on
    /// each connection, which went as HTTP/1.1).
    static let curlHTTP2Captures = AppLogCaptureTests.curlCaptures.filter {
        (try? CurlTransfer.load($0))?.contains { $0.fields["http_version"] as? String == "2" } == true
    }

    /// curl's header counts over HTTP/2 are the header lists it rebuilt as HTTP/1 text: for every
    /// transfer `hpack` is exactly the HPACK blocks on the wire minus curl's `size_request` +
    /// `size_header` (what compression saved: negative), nothing is `hidden_headers`, frame bytes and
    /// connection share are `http2_framing`, and every transfer's causes add up to its gap.
    @Test(arguments: curlHTTP2Captures)
    func curlLogHPACKIsTheBlockMinusCurlsHeaderCount(_ name: String) throws {
        let collector = try Self.exchanges(name)
        let gaps = try Self.gaps(collector, log: TestPaths.capture(name + ".curl.jsonl"))
        var compared = 0
        for (entry, exchange, gap) in gaps {
            #expect(gap.causeTotal == gap.gap, "\(name) \(entry.url)")
            guard exchange.request?.http2 != nil, exchange.request?.version == "HTTP/2" else { continue }  // h2-upgrade's HTTP/1.1 requests
            let counted = (entry.requestHeaderBytes ?? 0) + (entry.responseHeaderBytes ?? 0)
            let block = Self.wireHead(exchange.request) + Self.wireHead(exchange.response)
            #expect(gap.byCause["hpack"] == block - counted, "\(name) \(entry.url)")
            #expect(gap.byCause["hpack"]! < 0, "\(name) \(entry.url): HPACK is smaller than curl's rebuilt text")
            #expect(gap.byCause["hidden_headers"] == 0 && gap.byCause["chunk_framing"] == 0, "\(name) \(entry.url)")
            let framing = [exchange.request, exchange.response].reduce(0) { $0 + ($1.map { $0.bytes.framing + $0.bytes.control } ?? 0) }
            #expect(gap.byCause["http2_framing"] == framing + exchange.connectionShareBytes.up + exchange.connectionShareBytes.down,
                    "\(name) \(entry.url)")
            // size_download and size_upload are the DATA payloads: no body cause
            #expect(gap.byCause["compression_estimate"] == 0 && gap.byCause["body_length"] == 0, "\(name) \(entry.url)")
            compared += 1
        }
        #expect(compared > 0)
        // The same through `compare`: the log's report adds up, and its hpack is the sum.
        let run = CompareRun(files: [TestPaths.capture(name + ".pcap")], appLogs: [TestPaths.capture(name + ".curl.jsonl")],
                             options: try Self.options(name))
        let log = try #require(run.run().appLogs.first)
        CompareRunTests.gapAddsUp(log.estimates.json)
        #expect(log.estimates.gapByCause["hpack"] == gaps.reduce(0) { $0 + $1.gap.byCause["hpack"]! })
    }

    /// nghttp's HAR (`h2-nghttp`: h2c, one accepted push; `h2-python`: TLS with h2-peer's key log, two
    /// accepted pushes) gives no header sizes and `content.size` = the DATA payload: each response's
    /// whole HPACK block is `hpack`, no body cause; a request it gives no count for is `other`, except a
    /// pushed one's PUSH_PROMISE, which the client never sent: nothing up, its block `hidden_headers` in down.
    @Test(arguments: [("h2-nghttp", "h2-nghttp.nghttp.har", 1), ("h2-python", "h2-python.nghttp.har", 2)])
    func nghttpHARComparesAPushInDown(_ name: String, _ har: String, _ pushes: Int) throws {
        let collector = try Self.exchanges(name)
        let gaps = try Self.gaps(collector, log: TestPaths.capture(har))
        let log = try AppLog.read(path: TestPaths.capture(har))
        #expect(gaps.count == log.entries.count)
        #expect(gaps.filter { $0.exchange.isPushed }.count == pushes)
        for (entry, exchange, gap) in gaps {
            let what = "\(name) \(entry.url)"
            #expect(gap.causeTotal == gap.gap, "\(what)")
            let request = try #require(exchange.request), response = try #require(exchange.response)
            #expect(gap.byCause["compression_estimate"] == 0, "\(what): content.size is the DATA payload")
            if exchange.isPushed {
                #expect(entry.method == nil, "\(what): nghttp logs a push with method \"\"")
                #expect(gap.estimate.up == 0 && gap.estimate.down == response.bytes.body, "\(what)")
                #expect(gap.byCause["hidden_headers"] == request.bytes.headers, "\(what)")
                #expect(gap.byCause["hpack"] == Self.wireHead(response), "\(what)")
                #expect(gap.byCause["other"] == 0, "\(what)")
            } else {
                #expect(gap.byCause["hidden_headers"] == 0, "\(what)")
                #expect(gap.byCause["hpack"] == Self.wireHead(response), "\(what)")
                #expect(gap.byCause["other"] == request.bytes.total, "\(what): no request count")
            }
        }
    }

    /// The built-in estimators on pushed exchanges: nothing is estimated up; at payload level the `http`
    /// estimator — which counts the PUSH_PROMISE in down, as nginx's `$bytes_sent` does — leaves in each
    /// direction exactly the exchange's connection share and its stream's control frames (before, a
    /// push's request was set against the up wire, where it never was); the others do not see the
    /// promise (`hidden_headers`).
    @Test(arguments: ["h2-nghttp", "h2-python"])
    func estimatorsComparePushesInDown(_ name: String) throws {
        let collector = try Self.exchanges(name)
        let pushed = collector.exchanges.filter { $0.exchange.isPushed }
        #expect(!pushed.isEmpty)
        for (exchange, _, connection) in collector.exchanges {
            let request = try #require(exchange.request)
            let what = "\(name) \(request.target ?? "?") stream \(request.http2?.streamID ?? 0)"
            let http = try #require(GapAttribution(exchange: exchange, connection: connection, estimator: .http, level: .payload))
            #expect(http.causeTotal == http.gap, "\(what)")
            if name == "h2-nghttp" {  // clean h2c: no TLS, no retransmission
                let control = (up: exchange.isPushed ? 0 : request.bytes.control, down: exchange.response?.bytes.control ?? 0)
                #expect(http.wireUp - http.estimate.up == exchange.connectionShareBytes.up + control.up, "\(what)")
                #expect(http.wireDown - http.estimate.down == exchange.connectionShareBytes.down + control.down, "\(what)")
            }
            for estimator in Estimator.allCases {
                let gap = try #require(GapAttribution(exchange: exchange, connection: connection, estimator: estimator))
                #expect(gap.causeTotal == gap.gap, "\(what) \(estimator)")
                guard exchange.isPushed else { continue }
                #expect(gap.estimate.up == 0, "\(what) \(estimator)")
                if estimator == .metrics { #expect(gap.byCause["hidden_headers"] == request.bytes.headers, "\(what)") }
            }
        }
    }
}

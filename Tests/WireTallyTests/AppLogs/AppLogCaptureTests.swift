import Foundation
import Testing
@testable import WireTally

/// Keeps every exchange with its record id and connection, for the matcher.
final class ExchangeCollector: RecordWriter {
    private(set) var exchanges: [(exchange: HTTPExchange, id: Int, connection: ExchangeConnection)] = []

    func write(_ record: AnalysisRecord, timestampDigits: Int) {
        if case let .exchange(exchangeRecord) = record, exchangeRecord.connection.transport == .tcp {
            exchanges.append((exchangeRecord.exchange, exchangeRecord.id, exchangeRecord.connection))
        }
    }

    func finish(summary: CaptureSummary, files: [String]) {}

    /// The matcher's view of the exchanges, built after the run (the ledger is then complete).
    var wire: [AppLogWireExchange] { exchanges.map { AppLogWireExchange($0.exchange, id: $0.id, connection: $0.connection) } }

    static func analyze(_ files: [String], options base: CaptureAnalyzer.Options = .init()) -> ExchangeCollector {
        let collector = ExchangeCollector()
        var options = base
        options.keepsReportedExchanges = true  // `wire` reads the ledger after the run
        _ = AnalysisRun(files: files, options: options).run(writer: collector)
        return collector
    }
}

/// App logs of the recorded captures against their wire exchanges.
@Suite struct AppLogCaptureTests {
    /// Captures with a curl log (HTTP/2 transfers are matched with the capture's key log).
    static let curlCaptures = TestPaths.recordedCaptures(beside: ".curl.jsonl")

    /// curl's own `%{json}` log: every transfer matched to the exchange it really was — the k-th
    /// transfer on local port P is exchange k of the connection with client port P.
    @Test func curlLogOfKeepAliveCapture() throws {
        let wire = ExchangeCollector.analyze([TestPaths.capture("nginx-curl-keepalive.pcap")]).wire
        let log = try AppLog.read(path: TestPaths.capture("nginx-curl-keepalive.curl.jsonl"))
        let report = AppLogReport(log: log, wire: wire)
        let transfers = try CurlTransfer.load("nginx-curl-keepalive")
        #expect(report.result.matches.count == log.entries.count)
        #expect(report.result.unmatchedEntries.isEmpty)
        #expect(report.result.unmatchedWire.isEmpty)
        #expect(report.result.clockOffsetMs == nil)
        for (match, transfer) in zip(report.result.matches, transfers) {
            let exchange = wire[match.wire]
            #expect(match.kind == .connection)
            #expect(exchange.clientPort == transfer.port && exchange.index == transfer.index)
            #expect(exchange.method == log.entries[match.entry].method)
            #expect(exchange.status == log.entries[match.entry].status)
        }
        // curl's sizes are the stream's bytes (README table): up exact, down = headers + body (no chunking here).
        for (entry, exchange, estimate, _) in report.estimates {
            #expect(estimate.up == exchange.up.payloadBytes, "\(entry.url)")
            #expect(estimate.down <= exchange.down.payloadBytes, "\(entry.url)")
        }
        // Timings: curl and the wire agree within the tolerance of TimingTests (5 ms).
        let timings = report.timings.phases
        #expect(timings[.ttfb]?.compared == 8)
        #expect(timings[.total]?.compared == 8)
        #expect(timings[.connect]?.compared == 1)
        #expect(timings[.ttfb]!.p95DiffMs! < 5)
        #expect(timings[.connect]!.p95DiffMs! < 5)
        let json = report.json().serialized
        #expect(json.hasPrefix(#"{"path":""#))
        #expect(json.contains(#""format":"curl","entries":8,"matched":8,"host_only":0,"unmatched_app":0,"unmatched_wire":0,"clock_offset_ms":null,"timings":{"dns":{"compared":0"#))
        #expect(json.hasSuffix(#""unmatched":{"app":[],"wire":[]}}"#))
    }

    /// Every recorded curl log: each completed transfer is matched to the exchange it really was —
    /// HTTP/1.x: exchange k of its port's connection, host-only over TLS (analysed without keys);
    /// HTTP/2 (analysed with the capture's key log, without which h2 inside TLS has no exchanges): the
    /// exchange on its port with its URL's path (curl writes `--parallel` lines in completion order,
    /// not in stream order), decrypted, so not host-only.
    @Test(arguments: curlCaptures)
    func everyCurlLog(_ name: String) throws {
        let transfers = try CurlTransfer.load(name)
        let http2 = transfers.contains { $0.fields["http_version"] as? String == "2" }
        var options = CaptureAnalyzer.Options()
        if http2, FileManager.default.fileExists(atPath: TestPaths.capture(name + ".keys")) {
            options.tlsKeys = try TLSKeyStore.reading(files: [TestPaths.capture(name + ".keys")])
        }
        let wire = ExchangeCollector.analyze([TestPaths.capture(name + ".pcap")], options: options).wire
        let log = try AppLog.read(path: TestPaths.capture(name + ".curl.jsonl"))
        let result = AppLogMatcher().match(log.entries, wire)
        var byLine: [Int: AppLogMatch] = [:]
        for match in result.matches { byLine[log.entries[match.entry].sequence] = match }
        var checked = 0
        let lines = try String(contentsOfFile: TestPaths.capture(name + ".curl.jsonl"), encoding: .utf8)
            .split(separator: "\n").count
        let withPort = log.entries.filter { $0.localPort != nil }
        #expect(withPort.count == transfers.count)
        for (entry, transfer) in zip(withPort, transfers) where transfer.completed {
            if transfer.fields["http_version"] as? String == "2" {
                let target = HTTP2CurlTruth.target(transfer)
                let match = try #require(byLine[entry.sequence], "\(name): \(entry.url) unmatched")
                #expect(wire[match.wire].clientPort == transfer.port && wire[match.wire].url?.pathAndQuery == target, "\(name): \(entry.url)")
                #expect(!match.hostOnly, "\(name): \(entry.url) decrypted or h2c")
                checked += 1
                continue
            }
            let match = try #require(byLine[entry.sequence], "\(name): \(entry.url) unmatched")
            #expect(wire[match.wire].clientPort == transfer.port && wire[match.wire].index == transfer.index, "\(name): \(entry.url)")
            #expect(match.hostOnly == entry.url.hasPrefix("https:"))
            checked += 1
        }
        #expect(checked == transfers.filter(\.completed).count)
        // Every line of curl's log but the documented failures (captures/README.md): dns-http's
        // NXDOMAIN transfer (no connection) and the transfers of resets and cancel aborted by `--max-time`.
        #expect(checked == lines - (["dns-http": 1, "resets": 1, "cancel": 1][name] ?? 0), "\(name): compared \(checked) of \(lines)")
    }

    /// The HAR wiretally writes for a capture, read back as an app log: matched 1:1 by time with a
    /// zero clock offset (HAR's dates are truncated to the millisecond), each entry to its own exchange.
    @Test(arguments: ["nginx-curl-keepalive", "nginx-uploads", "tls13-http1", "dns-http"])
    func ownHARReadBack(_ name: String) throws {
        let capture = TestPaths.capture(name + ".pcap")
        let (path, har) = try HARTestSupport.har([capture], name: "applog-" + name)
        let ids = HARTestSupport.entries(har).map { $0["_id"] as? Int ?? -1 }
        let wire = ExchangeCollector.analyze([capture]).wire
        let log = try AppLog.read(path: path)
        #expect(log.format == .har)
        #expect(log.entries.count == wire.count)
        let report = AppLogReport(log: log, wire: wire)
        #expect(report.result.matches.count == wire.count)
        #expect(report.result.unmatchedEntries.isEmpty && report.result.unmatchedWire.isEmpty)
        let offset = try #require(report.result.clockOffsetMs)
        #expect(offset <= 0 && offset > -1)
        for match in report.result.matches {
            #expect(wire[match.wire].id == ids[match.entry], "\(name): entry \(match.entry)")
            #expect(match.distanceMs! < 1)
            #expect(match.hostOnly == wire[match.wire].hostOnly)
        }
        // Sizes: HAR's headersSize + bodySize is the request on the stream, _transferSize the response.
        for (_, exchange, estimate, _) in report.estimates where !exchange.hostOnly {
            #expect(estimate.up == exchange.up.payloadBytes || exchange.up.payloadBytes > estimate.up)
        }
        // Timings: HAR's phases are the wire's (clamped to not overlap), so ttfb agrees to the microsecond
        // unless a response started before its request ended.
        let ttfb = try #require(report.timings.phases[.ttfb])
        #expect(ttfb.compared == wire.count)
        #expect(ttfb.medianDiffMs! < 0.002)
        // dns: the three connections opened after a lookup (www, cdn, www -4; captures/README.md
        // dns-http); ssl: the two TLS connections of tls13-http1 (full and resumed handshake).
        if name == "dns-http" { #expect(report.timings.phases[.dns]!.compared == 3) }
        if name == "tls13-http1" { #expect(report.timings.phases[.ssl]!.compared == 2 && report.timings.phases[.ssl]!.p95DiffMs! < 0.002) }
    }
}

/// The wiretally JSONL format end to end: an in-app monitor's log synthesised from a real capture's
/// exchanges (app clock 2.5 s ahead, written in completion order, one request the capture missed).
@Suite struct WiretallyAppLogCaptureTests {
    @Test(arguments: ["nginx-curl-keepalive", "nginx-uploads", "nginx-pipelining"])
    func skewedMonitorLog(_ name: String) throws {
        let capture = TestPaths.capture(name + (name == "nginx-pipelining" ? ".pcapng" : ".pcap"))
        let wire = ExchangeCollector.analyze([capture]).wire.filter { $0.method != nil }
        #expect(wire.count == (try NginxLog.load(TestPaths.capture(name + ".nginx.jsonl"))).count, "one request per nginx line")
        var lines: [(end: Double, text: String)] = []
        for exchange in wire {
            let start = exchange.start + 2.5
            let end = start + max(exchange.timing.total, 0) / 1000
            let url = try #require(exchange.url).description
            lines.append((end, #"{"url":"\#(url)","method":"\#(exchange.method!)","status":\#(exchange.status ?? 0),"start":\#(start),"request_header_bytes":100,"request_body_bytes":0,"response_header_bytes":200,"response_body_bytes":300,"metrics":{"fetchStart":\#(start),"responseEnd":\#(end)}}"#))
        }
        lines.sort { $0.end < $1.end }
        lines.append((0, #"{"url":"http://10.77.0.2/not-captured","method":"GET","status":200,"start":\#(wire[0].start + 3.0)}"#))
        let path = try AppLogFixtures.write(lines.map(\.text).joined(separator: "\n") + "\n", name: name + ".app.jsonl")
        let log = try AppLog.read(path: path)
        #expect(log.format == .wiretally)
        let report = AppLogReport(log: log, wire: wire)
        #expect(report.result.matches.count == wire.count)
        #expect(report.result.unmatchedEntries == [log.entries.count - 1])
        #expect(report.result.unmatchedWire.isEmpty)
        #expect(abs(report.result.clockOffsetMs! - 2500) < 0.01)
        for match in report.result.matches {
            #expect(abs(log.entries[match.entry].start! - 2.5 - wire[match.wire].start) < 1e-5)
        }
        #expect(report.timings.phases[.total]!.compared == wire.count)
        #expect(report.timings.phases[.total]!.p95DiffMs! < 0.01)
        #expect(report.estimates.count == wire.count)
        #expect(report.estimates.allSatisfy { $0.estimate == TrafficEstimate(up: 100, down: 500, upHeaders: 100, upBody: 0, downHeaders: 200, downBody: 300) })
    }

    /// Thousands of entries and exchanges (a long session): matching stays exact (its speed is for
    /// benchmarks, not a timed assertion here).
    @Test func largeLog() {
        let t0 = 1_795_324_582.0
        var wire: [AppLogWireExchange] = [], entries: [AppLogEntry] = []
        for k in 0..<5000 {
            let url = "https://api.test/item/\(k % 50)"
            wire.append(AppLogWireExchange(id: k, method: "GET", url: AppLogURL(url), start: t0 + Double(k) * 0.02))
            entries.append(AppLogEntry(sequence: k, line: k + 1, source: "", method: "GET", url: url,
                                       start: t0 + 0.75 + Double(k) * 0.02 + Double(k % 7) * 0.0003))
        }
        let result = AppLogMatcher().match(entries, wire)
        #expect(result.matches.count == 5000)
        #expect(result.matches.allSatisfy { $0.entry == $0.wire })
        #expect(abs(result.clockOffsetMs! - 750.9) < 0.01)
    }
}

import Foundation
import Testing
@testable import WireTally

/// Each estimator's formula on a hand-made capture, with the numbers worked out by hand.
@Suite struct EstimatorFormulaTests {
    static let json = ascii(String(repeating: "{\"id\":12345,\"name\":\"widget\",\"tags\":[\"a\",\"b\"]}\n", count: 30))
    static let text = ascii(String(repeating: "the quick brown fox jumps over the lazy dog 0123456789\n", count: 60))
    /// Sent at level 1, so that the rebuild's re-gzip (level 6) differs.
    static let sentJSON = Compression.compress(json, .gzip, level: 1)
    static let sentText = Compression.compress(text, .gzip, level: 1)
    static let chunkLine = ascii(String(sentText.count, radix: 16) + "\r\n")

    static let request1 = ascii(
        "POST /api/items?x=1&y=2 HTTP/1.1\r\nHost: api.example\r\nUser-Agent: demo/1.0\r\nAccept: */*\r\n"
            + "Accept-Encoding: gzip\r\nContent-Type: application/json\r\nX-Trace: abc\r\n"
            + "Cookie: sid=42; theme=dark\r\nContent-Encoding: gzip\r\nContent-Length: \(sentJSON.count)\r\n\r\n") + sentJSON
    static let response1Head = ascii(
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n"
            + "Set-Cookie: a=b\r\n\r\n")
    static let response1 = response1Head + chunkLine + sentText + ascii("\r\n0\r\n\r\n")
    static let request2 = ascii("GET /plain HTTP/1.1\r\nHost: api.example\r\nConnection: keep-alive\r\n\r\n")
    static let response2 = ascii("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")

    static let framing = chunkLine.count + 2 + 5
    static let contentLengthLine = 14 + 2 + String(sentJSON.count).count + 2
    /// Host (19) + User-Agent (22) + Accept (13) + Accept-Encoding (23) + Content-Length.
    static let hiddenUp1 = 19 + 22 + 13 + 23 + contentLengthLine

    static func analyze(_ name: String, retain: Int? = nil) throws -> EstimatorCollector {
        let path = try EstimatorFixtures.write(
            EstimatorFixtures.capture([(request1, response1), (request2, response2)]), name: name)
        guard let retain else { return EstimatorCollector.analyze([path]) }
        var options = CaptureAnalyzer.Options()
        options.http.retainedBodyBytes = retain
        options.keepsReportedExchanges = true  // the estimators read the ledger after the run
        let collector = EstimatorCollector()
        _ = AnalysisRun(files: [path], options: options).run(writer: collector)
        return collector
    }

    static func exchanges(_ name: String = #function, retain: Int? = nil) throws -> [(exchange: HTTPExchange, connection: ExchangeConnection)] {
        let collector = try analyze("formula-" + name.filter(\.isLetter), retain: retain)
        #expect(collector.exchanges.count == 2)
        return collector.exchanges.sorted { $0.exchange.index < $1.exchange.index }
    }

    @Test func naive() throws {
        let e = try Self.exchanges()
        #expect(Estimator.naive.estimate(e[0].exchange) == TrafficEstimate(
            up: Self.json.count, down: 0, upHeaders: 0, upBody: Self.json.count, downHeaders: 0, downBody: 0))
        #expect(Estimator.naive.estimate(e[1].exchange)?.up == 0)
        #expect(Estimator.naive.estimate(e[1].exchange)?.down == 5)
        let gap = try #require(GapAttribution(exchange: e[0].exchange, connection: e[0].connection, estimator: .naive, level: .payload))
        // Cookie (28) and Set-Cookie (17) lines; the rest of both heads is hidden.
        #expect(gap.byCause["cookies"] == 28 + 17)
        #expect(gap.byCause["hidden_headers"] == (Self.request1.count - Self.sentJSON.count - 28) + (Self.response1Head.count - 17))
        #expect(gap.byCause["compression_estimate"] == Self.sentJSON.count - Self.json.count)
        #expect(gap.byCause["body_length"] == Self.sentText.count)  // no Content-Length: the body is not counted
        #expect(gap.byCause["chunk_framing"] == Self.framing)
        #expect(gap.byCause["other"] == 0 && gap.causeTotal == gap.gap)
        #expect(gap.wireUp == Self.request1.count && gap.wireDown == Self.response1.count)
    }

    @Test func rebuilt() throws {
        let e = try Self.exchanges()
        let regzipJSON = try #require(Gzip.compressedSize(Self.json))
        let regzipText = try #require(Gzip.compressedSize(Self.text))
        #expect(regzipJSON != Self.sentJSON.count && regzipText != Self.sentText.count)
        // "api.example POST /api/items HTTP/1.1 x=1&y=2\n" (45) + Content-Type (32) + X-Trace (14)
        // + Content-Encoding (24) + "\r\n" (2) + Cookie (28) = 145, + the re-gzipped body.
        // "HTTP/1.1 200 OK" (15) + Content-Type (26) + Content-Encoding (24) + Transfer-Encoding (28)
        // + Set-Cookie (17) + "\r\n" (2) = 112, + the re-gzipped body.
        let first = try #require(Estimator.rebuilt.estimate(e[0].exchange))
        #expect(first.up == 145 + regzipJSON && first.upHeaders == 145)
        #expect(first.down == 112 + regzipText && first.downHeaders == 112)
        // "api.example GET /plain HTTP/1.1 \n" (33) + "\r\n" = 35; "HTTP/1.1 200 OK" (15) + Content-Length (19) + 2 + 5.
        #expect(Estimator.rebuilt.estimate(e[1].exchange) == TrafficEstimate(
            up: 35, down: 41, upHeaders: 35, upBody: 0, downHeaders: 36, downBody: 5))

        let gap = try #require(GapAttribution(exchange: e[0].exchange, connection: e[0].connection, estimator: .rebuilt, level: .payload))
        #expect(gap.byCause["hidden_headers"] == Self.hiddenUp1)
        #expect(gap.byCause["cookies"] == 0)
        #expect(gap.byCause["compression_estimate"] == (Self.sentJSON.count - regzipJSON) + (Self.sentText.count - regzipText))
        #expect(gap.byCause["chunk_framing"] == Self.framing)
        // Request line 34 on the wire vs 45 rebuilt; status line 17 vs 15.
        #expect(gap.byCause["other"] == (34 - 45) + (17 - 15))
        #expect(gap.causeTotal == gap.gap)

        let second = try #require(GapAttribution(exchange: e[1].exchange, connection: e[1].connection, estimator: .rebuilt, level: .payload))
        #expect(second.byCause["hidden_headers"] == 19 + 24)  // Host, Connection
        #expect(second.byCause["other"] == (21 - 33) + (17 - 15))
        #expect(second.gap == (Self.request2.count - 35) + (Self.response2.count - 41))
    }

    @Test func metricsAndHTTP() throws {
        let e = try Self.exchanges()
        let head1 = Self.response1Head.count
        #expect(Estimator.metrics.estimate(e[0].exchange)?.up == Self.request1.count)
        #expect(Estimator.metrics.estimate(e[0].exchange)?.down == head1 + Self.sentText.count)
        #expect(Estimator.http.estimate(e[0].exchange)?.up == Self.request1.count)
        #expect(Estimator.http.estimate(e[0].exchange)?.down == Self.response1.count)
        let metrics = try #require(GapAttribution(exchange: e[0].exchange, connection: e[0].connection, estimator: .metrics, level: .payload))
        #expect(metrics.gap == Self.framing && metrics.byCause["chunk_framing"] == Self.framing)
        let http = try #require(GapAttribution(exchange: e[1].exchange, connection: e[1].connection, estimator: .http, level: .payload))
        #expect(http.gap == 0 && http.byCause.values.allSatisfy { $0 == 0 })
    }

    /// At IP level the network causes: 40-byte headers (IPv4 20 + TCP 20) on each payload packet, the
    /// pure ACK after each response, handshake to the first exchange and teardown to the last.
    @Test func networkCausesAtIPAndFrameLevel() throws {
        let e = try Self.exchanges()
        for (level, perPacket) in [(WireLevel.ip, 40), (.frame, 54)] {
            let gaps = try e.map { try #require(GapAttribution(exchange: $0.exchange, connection: $0.connection, estimator: .http, level: level)) }
            #expect(gaps.map { $0.byCause["tcp_ip_headers"] } == [2 * perPacket, 2 * perPacket])
            #expect(gaps.map { $0.byCause["pure_acks"] } == [perPacket, perPacket])
            #expect(gaps.map { $0.byCause["setup_teardown"] } == [3 * perPacket, 3 * perPacket])
            #expect(gaps.allSatisfy { $0.causeTotal == $0.gap && $0.gap == $0.wire - $0.estimated })
        }
    }

    /// Bodies not retained completely: gzip of the retained prefix scaled to the decoded size; nothing
    /// retained: the size as sent. Both flagged `approximated`.
    @Test func rebuiltApproximatesWithoutTheWholeBody() throws {
        let partial = try Self.exchanges(retain: 100)
        let prefixSize = try #require(Gzip.compressedSize(Array(Self.text.prefix(100))))
        let scaled = Int((Double(prefixSize) * Double(Self.text.count) / 100).rounded())
        let breakdown = try #require(Estimator.rebuilt.breakdown(partial[0].exchange))
        #expect(breakdown.approximated && breakdown.down.body == scaled)
        let none = try Self.exchanges(retain: 0)
        let unretained = try #require(Estimator.rebuilt.breakdown(none[0].exchange))
        #expect(unretained.approximated && unretained.down.body == Self.sentText.count && unretained.up.body == Self.sentJSON.count)
    }

    /// Per-request error: signed median, p95 of the absolute percent, worst by absolute bytes.
    @Test func reportStatistics() throws {
        let e = try Self.exchanges()
        var report = EstimatorReport(estimator: .naive, level: .payload)
        for (exchange, connection) in e { report.add(exchange, connection) }
        let wire1 = Double(Self.request1.count + Self.response1.count), wire2 = Double(Self.request2.count + Self.response2.count)
        let pct1 = 100 * (Double(Self.json.count) - wire1) / wire1, pct2 = 100 * (5 - wire2) / wire2
        #expect(abs(report.medianErrorPercent! - (pct1 + pct2) / 2) < 1e-9)
        #expect(abs(report.p95ErrorPercent! - max(abs(pct1), abs(pct2))) < 1e-9)
        #expect(report.worst.map(\.url) == ["http://api.example/api/items?x=1&y=2", "http://api.example/plain"])
        #expect(report.worst.map(\.method) == ["POST", "GET"])
        let json = report.json
        #expect(json.int("up.estimated") == Self.json.count && json.int("down.estimated") == 5)
        #expect(json.int("up.wire") == Self.request1.count + Self.request2.count)
        #expect(json.int("total.error_bytes") == Self.json.count + 5 - Int(wire1 + wire2))
        #expect(json["per_request"]?["median_error_pct"] == .number(EstimatorReport.format((pct1 + pct2) / 2)))
    }

    @Test func gzipMatchesZlibDefault() throws {
        for data in Self.gzipSamples {
            let ours = try #require(Gzip.compress(data))
            #expect(ours.count == Compression.compress(data, .gzip, level: 6).count)
            #expect(ours.prefix(2) == [0x1f, 0x8b])
        }
    }

    @Test(.requires(.python3))
    func gzipMatchesPython() throws {
        for data in Self.gzipSamples {
            let ours = try #require(Gzip.compress(data))
            #expect(ours.count == (try Self.pythonGzipSize(data)))
        }
    }

    static let gzipSamples: [[UInt8]] = [json, text, [], ascii("a")]

    /// `len(gzip.compress(data, 6))` from python3.
    static func pythonGzipSize(_ data: [UInt8]) throws -> Int {
        let output = try ExternalProgram.output(
            "python3", ["-c", "import sys, gzip; print(len(gzip.compress(sys.stdin.buffer.read(), 6)))"], input: Data(data))
        let text = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return try #require(Int(text), "python3 printed \(text)")
    }

    /// A header's `name: value\r\n` length is what its strings hold: ASCII and valid UTF-8 bytes as
    /// they are, an invalid byte as the replacement character (three bytes), as when headers were
    /// strings from the parse on.
    @Test func formattedHeaderLengthIsTheStringsLength() {
        var fields = HTTPHeaderFields()
        for (name, value) in [([UInt8]("X-A".utf8), [UInt8]("abc".utf8)), ([UInt8]("X-B".utf8), [UInt8]("caf\u{e9}".utf8)),
                              ([UInt8]("X-C".utf8), [0x61, 0xFF, 0x62])] {
            name.withUnsafeBytes { name in value.withUnsafeBytes { fields.append(name: name, value: $0) } }
        }
        #expect(Estimator.fmt(fields, at: 0) == 3 + 2 + 3 + 2)
        #expect(Estimator.fmt(fields, at: 1) == 3 + 2 + 5 + 2)
        #expect(Estimator.fmt(fields, at: 2) == 3 + 2 + 5 + 2)
        for position in fields.indices {
            let header = fields[position]
            #expect(Estimator.fmt(fields, at: position) == header.name.utf8.count + 2 + header.value.utf8.count + 2)
        }
    }
}

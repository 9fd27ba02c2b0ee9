import Foundation
import Testing
@testable import WireTally

/// The report's data against the records `analyze` writes (which other tests tie to tshark, nginx and
/// curl), and its escaping of hostile captures.
@Suite struct ReportModelTests {
    static let captures = ["nginx-curl-keepalive.pcap", "runaway.pcap", "tls13-http1.pcap", "dns-http.pcap",
                           "nginx-chunked-gzip.pcap", "lossy.pcap"]

    @Test(arguments: captures)
    func rowsEqualTheAnalyzeRecords(_ name: String) throws {
        let file = TestPaths.capture(name)
        let (records, result) = CollectingWriter.analyze([file])
        Conservation.check(records, result)
        let model = ReportRun(files: [file]).run()

        let rows = ReportFixture.rows(model, "exchanges")
        #expect(rows.count == records.exchanges.count)
        let byID = Dictionary(uniqueKeysWithValues: rows.map { ($0["id"]?.plainText ?? "", $0) })
        for record in records.exchanges {
            let row = try #require(byID[String(record.int("id") ?? -1)])
            #expect(row["up"] == record["wire"]?["up"]?["ip_bytes"])
            #expect(row["down"] == record["wire"]?["down"]?["ip_bytes"])
            #expect(row["status"] == (record["response"]?["status"] ?? .null))
            #expect(row["conn"] == record["conn"]?["id"])
            #expect(row["flags"] == record["flags"])
            for phase in ReportModel.phases + ["total"] { #expect(row[phase] == record["timing"]?[phase], "\(phase)") }
            if case let .string(target)? = record["request"]?["target"] { #expect(row["target"] == .string(target)) }
        }
        // sorted by start
        let starts = rows.compactMap { Double($0["start_ms"]?.plainText ?? "") }
        #expect(starts.count == rows.count && starts == starts.sorted())

        let sum = { (list: [JSONValue], key: String) in list.reduce(0) { $0 + ($1.int(key) ?? 0) } }
        let totals = model.totals
        #expect(totals.requests == records.exchanges.count)
        #expect(totals.upIPBytes == sum(records.connections, "up.ip_bytes") + sum(records.flows, "up.ip_bytes"))
        #expect(totals.downIPBytes == sum(records.connections, "down.ip_bytes") + sum(records.flows, "down.ip_bytes"))
        #expect(totals.upIPBytes + totals.downIPBytes == result.summary.inConnections.ipBytes + result.summary.inFlows.ipBytes)
        #expect(totals.httpUpIPBytes == sum(records.exchanges, "wire.up.ip_bytes"))
        #expect(totals.httpDownIPBytes == sum(records.exchanges, "wire.down.ip_bytes"))
        let messages = records.exchanges.reduce(0) { total, record in
            let estimated = record.flagNames.contains("estimated")
            return ["request", "response"].reduce(total) { total, side in
                total + (record.int("\(side).bytes.total") ?? 0) - (estimated ? record.int("\(side).bytes.framing") ?? 0 : 0)
            }
        }
        #expect(totals.messageBytes == messages)
        #expect(totals.overheadBytes == totals.upIPBytes + totals.downIPBytes - messages)
        #expect(totals.overheadShare > 0 && totals.overheadShare < 1)

        #expect(ReportFixture.rows(model, "connections").count == records.connections.count)
        let dnsRows = ReportFixture.rows(model, "dns")
        #expect(dnsRows.map { $0["dns_id"] } == records.dns.map { $0["dns_id"] })
        #expect(dnsRows.map { $0["ip_bytes"] } == records.dns.map { $0["wire"]?["ip_bytes"] })
        #expect(model.json["summary"] == records.summary)
    }

    /// A connection picked up mid-stream (a response without its request): the row's version is the
    /// response's.
    @Test func versionComesFromTheResponseWithoutARequest() throws {
        let path = try LimitTestSupport.write(HARSyntheticValidationTests.responseOnlyCapture(), name: "report-response-only.pcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let rows = ReportFixture.rows(ReportRun(files: [path]).run(), "exchanges")
        #expect(rows.count == 1)
        #expect(rows.first?["version"] == .string("HTTP/1.1"))
    }

    /// HTTP/2 (with the key log where the capture has one): every stream is a row with its stream id,
    /// the stream that pushed it and the connection-level bytes it was given; the rows of a connection
    /// come together, in start order, the groups by their first start; and streams of one connection run
    /// at the same time (their rows overlap on the time axis).
    @Test(arguments: [("h2-nghttp", 3), ("h2-h2load", 4), ("h2-python", 3)])
    func http2StreamsAreRowsGroupedUnderTheirConnection(_ name: String, _ connections: Int) throws {
        let options = try HTTP2CompareTests.options(name)
        let file = TestPaths.capture(name + ".pcap")
        let (records, _) = CollectingWriter.analyze([file], options: options)
        let rows = ReportFixture.rows(ReportRun(files: [file], options: options).run(), "exchanges")
        #expect(rows.count == records.exchanges.count)
        let byID = Dictionary(uniqueKeysWithValues: rows.map { ($0["id"]?.plainText ?? "", $0) })
        var pushes = 0
        for record in records.exchanges {
            let row = try #require(byID[String(record.int("id") ?? -1)])
            let http2 = try #require(record["http2"], "\(name): every exchange is HTTP/2")
            #expect(row["version"] == .string("HTTP/2"))
            #expect(row["stream"] == http2["stream_id"] && row["stream"] != .null)
            #expect(row["pushed_by"] == http2["pushed_by"])
            #expect(row["share_up"] == http2["connection_share"]?["up"] && row["share_down"] == http2["connection_share"]?["down"])
            if row["pushed_by"] != .null { pushes += 1 }
        }
        #expect(pushes == ["h2-nghttp": 2, "h2-python": 4][name] ?? 0)

        // grouped: one run of rows per connection, in start order; runs ordered by their first start
        let start = { (row: [String: JSONValue]) in Double(row["start_ms"]?.plainText ?? "") ?? -1 }
        var runs: [(connection: String, rows: [[String: JSONValue]])] = []
        for row in rows {
            let connection = row["conn"]?.plainText ?? ""
            if runs.last?.connection == connection { runs[runs.count - 1].rows.append(row) } else { runs.append((connection, [row])) }
        }
        #expect(runs.count == connections, "\(name): \(runs.map(\.connection))")
        #expect(Set(runs.map(\.connection)).count == runs.count)
        for run in runs { #expect(run.rows.map(start) == run.rows.map(start).sorted()) }
        let firsts = runs.map { start($0.rows[0]) }
        #expect(firsts == firsts.sorted())

        // concurrent: on every connection with several streams, some stream starts before another ended
        let total = { (row: [String: JSONValue]) in Double(row["total"]?.plainText ?? "") ?? 0 }
        for run in runs where run.rows.count > 1 {
            let overlapping = run.rows.indices.contains { i in
                run.rows.indices.contains { j in j > i && start(run.rows[j]) < start(run.rows[i]) + total(run.rows[i]) }
            }
            #expect(overlapping, "\(name): connection \(run.connection)")
        }
    }

    /// Client → server and back, straight from tshark's frames of the TCP-only captures.
    @Test(arguments: ["nginx-curl-keepalive", "runaway", "nginx-uploads"])
    func wireTotalsEqualTshark(_ name: String) throws {
        let conversations = try TsharkConversation.load(TestPaths.capture(name + ".frames.tsv"))
        let model = ReportRun(files: [TestPaths.capture(name + ".pcap")]).run()
        #expect(model.totals.upIPBytes == conversations.reduce(0) { $0 + $1.fromA[2] })
        #expect(model.totals.downIPBytes == conversations.reduce(0) { $0 + $1.fromB[2] })
    }

    @Test func endpointsAreTheSummaryOnes() throws {
        let model = ReportRun(files: [TestPaths.capture("runaway.pcap")]).run()
        guard case let .array(endpoints)? = model.json["endpoints"] else { Issue.record("no endpoints"); return }
        let status = try #require(endpoints.first { $0["path"] == .string("/api/status") })
        #expect(status["flags"] == .array([.string("runaway")]))
        #expect(status["key"] == .string("GET 10.77.0.2/api/status"))
        // every exchange row names an endpoint of the list, and the counts agree
        let keys = endpoints.compactMap { $0["key"]?.plainText }
        let rows = ReportFixture.rows(model, "exchanges")
        for endpoint in endpoints {
            let key = endpoint["key"]?.plainText ?? ""
            #expect(rows.filter { $0["endpoint"]?.plainText == key }.count == endpoint.int("requests"))
        }
        #expect(rows.allSatisfy { keys.contains($0["endpoint"]?.plainText ?? "") })
    }

    /// Past the aggregator's endpoint cap, exchanges are filtered under its "(other)" endpoint.
    @Test func exchangesBeyondTheEndpointCapAreOther() throws {
        let cap = EndpointAggregator.Options().maxEndpoints, extra = 5
        let path = try ReportFixture.manyHostsCapture(cap + extra)
        let model = ReportRun(files: [path]).run()
        guard case let .array(endpoints)? = model.json["endpoints"] else { Issue.record("no endpoints"); return }
        #expect(endpoints.count == cap + 1)
        let other = try #require(endpoints.first { $0["path"] == .string(EndpointAggregator.otherPath) })
        #expect(other.int("requests") == extra)
        let rows = ReportFixture.rows(model, "exchanges")
        #expect(rows.count == cap + extra)
        #expect(rows.filter { $0["endpoint"] == other["key"] }.count == extra)
        let keys = Set(endpoints.compactMap { $0["key"]?.plainText })
        #expect(rows.allSatisfy { keys.contains($0["endpoint"]?.plainText ?? "") })
    }

    @Test func hostileCaptureCannotBreakOutOfThePage() throws {
        let capture = try ReportFixture.hostileCapture()
        let written = try ReportFixture.write([capture])
        let html = written.html
        // the three script elements close where they should, and nothing else opens a tag or comment
        #expect(html.lowercased().components(separatedBy: "</script").count - 1 == 3)
        #expect(!html.lowercased().contains("<img"))
        #expect(!html.lowercased().contains("<svg"))
        #expect(!html.contains("<!--"))
        #expect(!html.contains("\u{2028}"))
        #expect(html.contains("<title>wiretally report — wiretally-") && html.contains("-&lt;script&gt;x.pcap</title>"))
        // the data block still holds the exact strings
        let start = try #require(html.range(of: "<script type=\"application/json\" id=\"report-data\">"))
        let end = try #require(html[start.upperBound...].range(of: "</script>"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(html[start.upperBound..<end.lowerBound].utf8)) as? [String: Any])
        let exchanges = try #require(object["exchanges"] as? [String: Any])
        let row = try #require((exchanges["rows"] as? [[Any]])?.first)
        let columns = try #require(exchanges["columns"] as? [String])
        #expect(row[try #require(columns.firstIndex(of: "target"))] as? String == ReportFixture.hostileTarget)
        #expect(row[try #require(columns.firstIndex(of: "host"))] as? String == ReportFixture.hostileHost)
        #expect((object["files"] as? [String]) == [capture])
    }

    @Test func htmlEscaping() {
        #expect(ReportDocument.escapeHTML("<a href=\"x\">&'") == "&lt;a href=&quot;x&quot;&gt;&amp;&#39;")
        #expect(ReportDocument.scriptSafeJSON(.string("</script><!--&\u{2028}")) == "\"\\u003c/script\\u003e\\u003c!--\\u0026\\u2028\"")
    }

    @Test func accuracyOnlyWhenAsked() throws {
        let file = TestPaths.capture("nginx-curl-keepalive.pcap"), log = TestPaths.capture("nginx-curl-keepalive.curl.jsonl")
        #expect(ReportRun(files: [file]).run().json["accuracy"] == .null)
        let withLog = ReportRun(files: [file], appLogs: [log]).run().json["accuracy"]
        guard case let .array(logs)? = withLog?["app_logs"], case let .array(estimators)? = withLog?["estimators"] else {
            Issue.record("no accuracy"); return
        }
        #expect(logs.count == 1 && estimators.isEmpty)
        let compared = CompareRun(files: [file], appLogs: [log]).run().json(level: .ip, files: [file])
        guard case let .array(compareLogs)? = compared["app_logs"] else { Issue.record("no compare app logs"); return }
        #expect(logs[0]["total"] == compareLogs[0]["total"])
        #expect(logs[0]["gap_by_cause"] == compareLogs[0]["gap_by_cause"])
        let withEstimators = ReportRun(files: [file], estimators: true).run().json["accuracy"]
        #expect(withEstimators?["estimators"] == compared["estimators"])
    }
}

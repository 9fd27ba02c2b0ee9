import Foundation
import Testing
@testable import WireTally

/// Reports of recorded captures loaded in a real browser (headless Chromium): the page runs without
/// script or console errors, fetches nothing, and shows the numbers of the independent truths (nginx's
/// log, tshark's frames, the DNS truth file) — read back from the rendered DOM.
@Suite(.requires(.chromium))
struct ReportBrowserTests {
    /// Loads the report of `files` and checks what every page must satisfy.
    static func render(_ files: [String], appLogs: [String] = [], estimators: Bool = false,
                       sourceLocation: SourceLocation = #_sourceLocation) throws -> (DumpedDOM, ReportFixture.Written) {
        let written = try ReportFixture.write(files, appLogs: appLogs, estimators: estimators)
        let page = try HeadlessChromium.load(written.path)
        let dom = DumpedDOM(html: page.dom)
        #expect(dom.tag(id: "script-errors")?.contains(" hidden") == true, "script errors shown", sourceLocation: sourceLocation)
        #expect(!page.dom.contains("<li>") || dom.text(id: "script-errors") == "", sourceLocation: sourceLocation)
        #expect(page.console.isEmpty, "console: \(page.console)", sourceLocation: sourceLocation)
        #expect(page.dom.contains("data-rendered=\"true\""), "the script ran to its end", sourceLocation: sourceLocation)
        #expect(page.requestedURLs.allSatisfy(HeadlessChromium.isBrowserHousekeeping), "\(page.requestedURLs)", sourceLocation: sourceLocation)
        // nothing in the file points outside it
        #expect(written.html.firstMatch(of: /(?i)(src|href|action)\s*=\s*["']?\s*(https?:|\/\/)/) == nil, sourceLocation: sourceLocation)
        return (dom, written)
    }

    /// The requests of `captures/NAME.nginx.jsonl`.
    static func nginxRequests(_ name: String) throws -> Int {
        try String(contentsOfFile: TestPaths.capture(name + ".nginx.jsonl"), encoding: .utf8)
            .split(separator: "\n").filter { !$0.isEmpty }.count
    }

    /// Waterfall rows: (id, up, down) of every row element.
    static func waterfallRows(_ dom: DumpedDOM) -> [(id: Int, up: Int, down: Int)] {
        dom.tags { $0.hasPrefix("<div class=\"wf-row\"") }.compactMap { tag in
            guard let id = DumpedDOM.attribute("data-id", of: tag).flatMap(Int.init),
                  let up = DumpedDOM.attribute("data-up", of: tag).flatMap(Int.init),
                  let down = DumpedDOM.attribute("data-down", of: tag).flatMap(Int.init) else { return nil }
            return (id, up, down)
        }
    }

    @Test func keepaliveSummaryAndWaterfallShowTheTruth() throws {
        let name = "nginx-curl-keepalive"
        let file = TestPaths.capture(name + ".pcap")
        let (dom, _) = try Self.render([file])
        let (records, result) = CollectingWriter.analyze([file])
        Conservation.check(records, result)
        let tshark = try TsharkConversation.load(TestPaths.capture(name + ".frames.tsv"))

        #expect(dom.value(id: "summary-requests") == String(try Self.nginxRequests(name)))
        #expect(dom.value(id: "summary-up") == String(tshark.reduce(0) { $0 + $1.fromA[2] }))
        #expect(dom.value(id: "summary-down") == String(tshark.reduce(0) { $0 + $1.fromB[2] }))
        #expect(dom.value(id: "summary-connections") == String(tshark.count))
        #expect(dom.value(id: "summary-input-errors") == "0")
        #expect(dom.value(id: "summary-http-errors") == "1")  // the 404 of /missing.html
        #expect(dom.value(id: "summary-duration") == records.summary?["duration_ms"]?.plainText)

        let rows = Self.waterfallRows(dom)
        #expect(rows.count == records.exchanges.count)
        #expect(DumpedDOM.attribute("data-total", of: dom.tag(id: "waterfall-rows") ?? "") == String(records.exchanges.count))
        for record in records.exchanges {
            let row = try #require(rows.first { $0.id == record.int("id") })
            #expect(row.up == record.int("wire.up.ip_bytes") && row.down == record.int("wire.down.ip_bytes"))
        }
        #expect(rows.reduce(0) { $0 + $1.up + $1.down } == records.exchanges.reduce(0) { $0 + ($1.int("wire.up.ip_bytes") ?? 0) + ($1.int("wire.down.ip_bytes") ?? 0) })
        try Self.checkScreenshot(of: file)
    }

    /// HTTP/2 (`h2-nghttp`: three h2c connections, nginx's two pushes): each connection's header row,
    /// then its streams, each with its stream id; the rows are nginx's requests, pushes included.
    @Test func http2StreamsUnderTheirConnection() throws {
        let name = "h2-nghttp"
        let file = TestPaths.capture(name + ".pcap")
        let (dom, _) = try Self.render([file])
        let (records, _) = CollectingWriter.analyze([file])
        #expect(Self.waterfallRows(dom).count == (try Self.nginxRequests(name)))
        let tags = dom.tags { $0.hasPrefix("<div class=\"wf-row\"") || $0.hasPrefix("<div class=\"wf-group\"") }
        var group: String?
        var streamsSeen: [String: Int] = [:]
        for tag in tags {
            if tag.hasPrefix("<div class=\"wf-group\"") {
                group = DumpedDOM.attribute("data-conn", of: tag)
                #expect(streamsSeen[group ?? ""] == nil, "one header per connection")
                streamsSeen[group ?? ""] = 0
                continue
            }
            let id = DumpedDOM.attribute("data-id", of: tag).flatMap(Int.init)
            let record = try #require(records.exchanges.first { $0.int("id") == id })
            #expect(DumpedDOM.attribute("data-conn", of: tag) == group, "a stream row under its connection's header")
            #expect(DumpedDOM.attribute("data-stream", of: tag) == record["http2"]?["stream_id"]?.plainText)
            #expect(DumpedDOM.attribute("data-pushed-by", of: tag) == record["http2"]?["pushed_by"].flatMap { $0 == .null ? nil : $0.plainText })
            streamsSeen[group ?? "", default: 0] += 1
        }
        #expect(streamsSeen == ["1": 8, "2": 3, "3": 2])
        for header in dom.tags(where: { $0.hasPrefix("<div class=\"wf-group\"") }) {
            let connection = DumpedDOM.attribute("data-conn", of: header) ?? ""
            #expect(DumpedDOM.attribute("data-streams", of: header) == streamsSeen[connection].map(String.init))
        }
    }

    /// The waterfall's filters, set from the URL fragment a filtered view is linked by.
    @Test func waterfallFilters() throws {
        let file = TestPaths.capture("nginx-curl-keepalive.pcap")
        let written = try ReportFixture.write([file])
        let (records, _) = CollectingWriter.analyze([file])
        func rows(_ fragment: String) throws -> [Int] {
            let page = try HeadlessChromium.load(written.path, fragment: fragment)
            #expect(page.console.isEmpty, "\(page.console)")
            return Self.waterfallRows(DumpedDOM(html: page.dom)).map(\.id)
        }
        let notModified = records.exchanges.filter { $0.int("response.status") == 304 }.compactMap { $0.int("id") }
        #expect(!notModified.isEmpty)
        #expect(try rows("filter:status=3xx") == notModified)
        let index = records.exchanges.filter { $0.string("request.target") == "/index.html" && $0.string("request.method") == "GET" }
        #expect(try rows("filter:endpoint=GET%2010.77.0.2%2Findex.html").count == index.count)
        #expect(try rows("filter:q=missing&host=10.77.0.2").count == 1)
        #expect(try rows("filter:host=elsewhere.test").count == records.exchanges.count)  // not a host of the capture: no filter
    }

    @Test func runawayEndpointIsFlagged() throws {
        let name = "runaway"
        let (dom, _) = try Self.render([TestPaths.capture(name + ".pcap")])
        #expect(dom.value(id: "summary-requests") == String(try Self.nginxRequests(name)))
        #expect(Self.waterfallRows(dom).count == (try Self.nginxRequests(name)))
        let endpoints = dom.tags { $0.hasPrefix("<tr") && $0.contains("data-endpoint=") }
        #expect(endpoints.count == 2)
        let status = try #require(endpoints.first { $0.contains("data-endpoint=\"GET 10.77.0.2/api/status\"") })
        let config = try #require(endpoints.first { $0.contains("data-endpoint=\"GET 10.77.0.2/api/config\"") })
        #expect(DumpedDOM.attribute("data-flags", of: status) == "runaway")
        #expect(DumpedDOM.attribute("data-flags", of: config) == "")
        #expect(dom.html.contains("<span class=\"badge runaway\">runaway</span>"))
        try Self.checkScreenshot(of: TestPaths.capture(name + ".pcap"))
    }

    /// The DNS table against the truth file tshark wrote for the capture.
    @Test(arguments: ["dns-http", "tls13-http1"])
    func dnsTableMatchesTheTruthFile(_ name: String) throws {
        let (dom, _) = try Self.render([TestPaths.capture(name + ".pcap")])
        let lines = try String(contentsOfFile: TestPaths.capture(name + ".dns.tsv"), encoding: .utf8)
            .split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        let header = lines[0]
        func column(_ field: String) throws -> Int { try #require(header.firstIndex(of: field)) }
        let id = try column("dns.id"), response = try column("dns.flags.response"), query = try column("dns.qry.name"),
            type = try column("dns.qry.type")
        let typeNames = ["1": "A", "28": "AAAA", "5": "CNAME", "65": "HTTPS"]
        var truth = Set<String>()
        for fields in lines.dropFirst() where fields.count > type && fields[response] == "0" {
            truth.insert("\(Int(fields[id].dropFirst(2), radix: 16) ?? -1) \(fields[query]) \(typeNames[fields[type]] ?? fields[type])")
        }
        let rows = dom.tags { $0.hasPrefix("<tr") && $0.contains("data-dns-id=") }.map { tag in
            ["data-dns-id", "data-query", "data-qtype"].map { DumpedDOM.attribute($0, of: tag) ?? "" }.joined(separator: " ")
        }
        #expect(!truth.isEmpty)
        #expect(rows.count == truth.count)
        #expect(Set(rows) == truth)
        #expect(dom.value(id: "summary-dns") == String(truth.count))
    }

    /// `compare`'s accuracy table with curl's own log and the built-in estimators.
    @Test func accuracyWithTheCurlLog() throws {
        let name = "nginx-curl-keepalive"
        let file = TestPaths.capture(name + ".pcap"), log = TestPaths.capture(name + ".curl.jsonl")
        let (dom, _) = try Self.render([file], appLogs: [log], estimators: true)
        let sources = dom.tags { $0.hasPrefix("<tr") && $0.contains("data-source=") }.compactMap { DumpedDOM.attribute("data-source", of: $0) }
        #expect(sources == Estimator.allCases.map(\.rawValue) + [log])
        let transfers = try CurlTransfer.load(name)
        #expect(dom.html.contains("\(transfers.count) of \(transfers.count) entries matched"))
        let compared = CompareRun(files: [file], appLogs: [log]).run().json(level: .ip, files: [file])
        guard case let .array(logs)? = compared["app_logs"] else { Issue.record("no app log in compare"); return }
        let wire = try #require(logs.first?.int("total.wire"))
        #expect(dom.html.contains("data-value=\"\(wire)\""))
        #expect(dom.tag(id: "accuracy-absent") == nil)
    }

    @Test func hostileCaptureRendersAsText() throws {
        let (dom, _) = try Self.render([try ReportFixture.hostileCapture()])
        #expect(dom.tags { $0.hasPrefix("<img") || $0.hasPrefix("<svg onload") }.isEmpty)
        // no element got an event-handler attribute (attribute values, where the text is, removed first)
        let attributeNames = dom.tags { _ in true }.map { $0.replacing(/"[^"]*"/, with: "\"\"") }
        #expect(!attributeNames.contains { $0.contains(/\son[a-z]+\s*=/) })
        #expect(dom.html.contains("&lt;/script&gt;&lt;img/src=x/onerror=alert(1)&gt;"))
        #expect(Self.waterfallRows(dom).count == 1)
    }

    /// A big capture stays usable: the DOM holds a page of the waterfall and the biggest endpoints,
    /// the data all of them.
    @Test func bigCaptureIsCapped() throws {
        let count = 12_000
        let (dom, written) = try Self.render([try ReportFixture.manyHostsCapture(count)])
        #expect(ReportFixture.rows(written.model, "exchanges").count == count)
        #expect(DumpedDOM.attribute("data-total", of: dom.tag(id: "waterfall-rows") ?? "") == String(count))
        #expect(Self.waterfallRows(dom).count == 1000)
        #expect(dom.tag(id: "waterfall-more")?.contains(" hidden") == false)
        #expect(dom.tags { $0.hasPrefix("<tr") && $0.contains("data-endpoint=") }.count == 2000)
        #expect(dom.tag(id: "endpoints-capped") != nil)
        #expect(dom.value(id: "summary-requests") == String(count))
    }

    /// Control for the no-fetch check: a page that loads an image is caught in the net log.
    @Test func netLogSeesAFetch() throws {
        let path = TestScratch.folder.appendingPathComponent("wiretally-fetch-\(UUID().uuidString).html").path
        try "<!DOCTYPE html><img src=\"https://example.invalid/pixel.png\">".write(toFile: path, atomically: true, encoding: .utf8)
        let page = try HeadlessChromium.load(path)
        #expect(page.requestedURLs.contains("https://example.invalid/pixel.png"))
        #expect(!page.requestedURLs.allSatisfy(HeadlessChromium.isBrowserHousekeeping))
    }

    /// Control for the screenshot check: a blank page's PNG stays under the size a report's exceeds.
    @Test func blankPageScreenshotIsSmall() throws {
        let path = TestScratch.folder.appendingPathComponent("wiretally-blank-\(UUID().uuidString).html").path
        try "<!DOCTYPE html><title>blank</title>".write(toFile: path, atomically: true, encoding: .utf8)
        try HeadlessChromium.screenshot(path, to: path + ".png")
        let size = try Data(contentsOf: URL(fileURLWithPath: path + ".png")).count
        #expect(size > 0 && size < Self.minimumReportPNGBytes)
    }

    static let minimumReportPNGBytes = 60_000

    /// A 1400 × 2000 PNG with content (a blank page compresses to a few kB).
    static func checkScreenshot(of file: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let written = try ReportFixture.write([file])
        let png = written.path + ".png"
        try HeadlessChromium.screenshot(written.path, to: png)
        let data = try Data(contentsOf: URL(fileURLWithPath: png))
        #expect(data.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), sourceLocation: sourceLocation)
        let size = data.count > 24 ? data[16..<24].map { Int($0) } : []
        #expect(size == [0, 0, 0x05, 0x78, 0, 0, 0x07, 0xD0], "1400 × 2000", sourceLocation: sourceLocation)
        #expect(data.count > minimumReportPNGBytes, "\(data.count) bytes", sourceLocation: sourceLocation)
    }
}

import Foundation
import Testing
@testable import WireTally

/// Exchanges against the reports of the load and download tools that made them: ab's transferred
/// byte totals (`nginx-ab.ab.txt`), wrk's request count and bytes read (`nginx-wrk.wrk.txt`) and
/// wget's per-response server headers and saved sizes (`nginx-wget.wget.log`).
@Suite struct LoadToolReportTests {
    /// The number after `label` on its line of a tool's report (`Total transferred:      26100 bytes`).
    static func number(after label: String, in text: String) throws -> Double {
        let line = try #require(text.split(separator: "\n").first { $0.contains(label) }, "no '\(label)' line")
        let rest = line[line.range(of: label)!.upperBound...].drop { $0 == " " }
        return try #require(Double(rest.prefix { $0.isNumber || $0 == "." }), "no number after '\(label)'")
    }

    /// ab: `Complete requests` is our number of exchanges, `Total transferred` the sum of our
    /// response bytes (status line + headers + body) and `HTML transferred` the sum of bodies.
    @Test func abTotalsEqualOurExchanges() throws {
        let report = try String(contentsOfFile: TestPaths.capture("nginx-ab.ab.txt"), encoding: .utf8)
        let (writer, _) = CollectingWriter.analyze([TestPaths.capture("nginx-ab.pcap")])
        #expect(writer.exchanges.count == Int(try Self.number(after: "Complete requests:", in: report)))
        #expect(try Self.number(after: "Failed requests:", in: report) == 0)
        #expect(writer.exchanges.reduce(0) { $0 + ($1.int("response.bytes.total") ?? 0) }
                == Int(try Self.number(after: "Total transferred:", in: report)))
        #expect(writer.exchanges.reduce(0) { $0 + ($1.int("response.bytes.body") ?? 0) }
                == Int(try Self.number(after: "HTML transferred:", in: report)))
    }

    /// wrk: `N requests in …` counts the responses it completed (ours with a complete response) and
    /// `X KB read` is every byte it read (our server-to-client payload, all connections), rounded by wrk
    /// to 1/100 KiB.
    @Test func wrkSummaryEqualsOurExchanges() throws {
        let report = try String(contentsOfFile: TestPaths.capture("nginx-wrk.wrk.txt"), encoding: .utf8)
        let match = try #require(report.firstMatch(of: /(\d+) requests in [\d.]+s, ([\d.]+)KB read/), "wrk summary line")
        let (writer, _) = CollectingWriter.analyze([TestPaths.capture("nginx-wrk.pcap")])
        let completed = writer.exchanges.filter { $0["response"] != .null && !$0.flagNames.contains("response_incomplete") }
        #expect(completed.count == Int(match.1)!)
        let read = writer.connections.reduce(0) { $0 + ($1.int("down.categories.payload.payload_bytes") ?? 0) }
        #expect(String(format: "%.2f", Double(read) / 1024) == String(match.2), "wrk's KB read (\(read) bytes)")
    }

    /// wget `-S -nv`: per response the server headers it printed and the saved size (`[N]`, decoded):
    /// same order, status, path, Content-Length (body), chunked framing, Content-Encoding and, with
    /// decoding on, the decoded size.
    @Test func wgetLogEqualsOurExchanges() throws {
        struct Download { var status = 0; var headers: [String: String] = [:]; var url = ""; var saved = -1 }
        var downloads: [Download] = [], current = Download()
        for line in try String(contentsOfFile: TestPaths.capture("nginx-wget.wget.log"), encoding: .utf8).split(separator: "\n") {
            if line.hasPrefix("  HTTP/") {
                current = Download(status: Int(line.split(separator: " ")[1])!)
            } else if line.hasPrefix("  "), let colon = line.firstIndex(of: ":") {
                current.headers[line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()] =
                    line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            } else if let match = line.firstMatch(of: /URL:(\S+) \[(\d+)(?:\/\d+)?\]/) {
                current.url = String(match.1)
                current.saved = Int(match.2)!
                downloads.append(current)
            }
        }
        var options = CaptureAnalyzer.Options()
        options.http.decodeBodies = true
        let (writer, _) = CollectingWriter.analyze([TestPaths.capture("nginx-wget.pcap")], options: options)
        let ours = writer.exchanges.sorted { ($0.time("request.ts_first") ?? 0) < ($1.time("request.ts_first") ?? 0) }
        #expect(downloads.count == 4)
        #expect(ours.count == downloads.count)
        for (download, exchange) in zip(downloads, ours) {
            let label = download.url
            #expect(exchange.int("response.status") == download.status, "\(label)")
            #expect(URL(string: download.url)?.path == exchange.string("request.target"), "\(label)")
            #expect(URL(string: download.url)?.port ?? 80 == exchange.port("conn.server"), "\(label)")
            if let length = download.headers["content-length"] { #expect(exchange.int("response.bytes.body") == Int(length), "\(label)") }
            #expect(((exchange.int("response.bytes.framing") ?? 0) > 0) == (download.headers["transfer-encoding"] == "chunked"), "\(label)")
            #expect(exchange.string("response.content_encoding") == download.headers["content-encoding"], "\(label)")
            #expect((exchange.int("response.decoded_body") ?? exchange.int("response.bytes.body")) == download.saved, "\(label): saved bytes")
        }
    }
}

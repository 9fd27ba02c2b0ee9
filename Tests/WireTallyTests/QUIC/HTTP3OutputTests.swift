import Foundation
import Testing
@testable import WireTally

/// The outputs on the aioquic recordings with their key logs: the CSV's HTTP/3 columns equal the JSONL
/// records; HAR entries are HTTP/3 with the client's URLs, statuses and body sizes and validate against
/// the HAR 1.2 schema; `--summary` counts every
/// request of its endpoint with its exchange's wire bytes; the report's waterfall groups each
/// connection's streams under it.
@Suite struct HTTP3OutputTests {
    static func options(_ name: String) throws -> CaptureAnalyzer.Options {
        var options = CaptureAnalyzer.Options()
        options.tlsKeys = try TLSKeyStore.reading(files: [TestPaths.capture(name + ".keys")])
        return options
    }

    @Test(.requires(.jsonschema), arguments: QUICRecordingTests.recordings)
    func harEntriesAreTheClientsRequests(_ name: String) throws {
        let (path, log) = try HARTestSupport.har([TestPaths.capture(name + ".pcap")], name: name + "-h3", base: try Self.options(name))
        let entries = HARTestSupport.entries(log)
        let requests = try QUICRecordingTests.clientLog(name).requests
        #expect(entries.count == requests.count)
        for request in requests {
            let url = "https://\(request["authority"] as? String ?? "")\(request["path"] as? String ?? "")"
            let matching = entries.filter { $0.string("request.url") == url && $0.string("request.method") == request["method"] as? String }
            #expect(!matching.isEmpty, "\(name) \(url)")
            #expect(matching.allSatisfy { $0.string("request.httpVersion") == "HTTP/3" && $0.string("response.httpVersion") == "HTTP/3" })
            if request["outcome"] as? String == "complete" {
                #expect(matching.contains { $0.int("response.status") == request["status"] as? Int
                    && $0.int("response.bodySize") == request["response_body_bytes"] as? Int }, "\(name) \(url)")
            }
        }
        let check = try HARTestSupport.check(["schema", HARTestSupport.schema], files: [path])
        #expect(check.results[path]?["valid"] as? Bool == true, "\(name): \(check.output)")
    }

    @Test(.requires(.wiretallyBinary)) func summaryCountsEveryRequestOfItsEndpoint() throws {
        let name = "quic-concurrent"
        let run = try CommandLineTests.run(["analyze", TestPaths.capture(name + ".pcap"), "--keylog", TestPaths.capture(name + ".keys"),
                                            "--summary", "--format", "json"])
        #expect(run.status == 0)
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let endpoints = try #require(summary["endpoints"] as? [[String: Any]])
        let requests = try QUICRecordingTests.clientLog(name).requests
        #expect(summary["exchanges"] as? Int == requests.count)
        #expect(endpoints.reduce(0) { $0 + ($1["requests"] as? Int ?? 0) } == requests.count)
        let (writer, _) = CollectingWriter.analyze([TestPaths.capture(name + ".pcap")], options: try Self.options(name))
        let wire = writer.exchanges.reduce(0) { $0 + ($1.int("wire.up.ip_bytes") ?? 0) + ($1.int("wire.down.ip_bytes") ?? 0) }
        #expect(endpoints.reduce(0) { $0 + ($1["up_ip_bytes"] as? Int ?? 0) + ($1["down_ip_bytes"] as? Int ?? 0) } == wire)
    }

    @Test(arguments: QUICRecordingTests.recordings)
    func reportRowsAreStreamsGroupedUnderTheirConnection(_ name: String) throws {
        let file = TestPaths.capture(name + ".pcap")
        let options = try Self.options(name)
        let (records, _) = CollectingWriter.analyze([file], options: options)
        let rows = ReportFixture.rows(ReportRun(files: [file], options: options).run(), "exchanges")
        #expect(rows.count == records.exchanges.count)
        let byID = Dictionary(uniqueKeysWithValues: rows.map { ($0["id"]?.plainText ?? "", $0) })
        for record in records.exchanges {
            let row = try #require(byID[String(record.int("id") ?? -1)])
            #expect(row["version"] == .string("HTTP/3"))
            #expect(row["stream"] == record["http3"]?["stream_id"] && row["stream"] != .null)
        }
        var runs: [String] = []
        for row in rows where runs.last != row["conn"]?.plainText { runs.append(row["conn"]?.plainText ?? "") }
        #expect(runs.count == records.quicConnections.count, "\(name): one run of rows per connection \(runs)")
    }

    @Test(.requires(.wiretallyBinary), arguments: ["quic-sequential", "quic-cancel"])
    func csvColumnsEqualTheRecords(_ name: String) throws {
        let run = try CommandLineTests.run(["analyze", TestPaths.capture(name + ".pcap"), "--keylog", TestPaths.capture(name + ".keys"),
                                            "--format", "csv"])
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n")
        let header = HTTP2CSVTests.cells(try #require(lines.first))
        let columns = ["request_version", "request_stream_id", "request_bytes_headers", "request_bytes_body", "request_bytes_framing",
                       "request_bytes_headers_decoded", "request_bytes_qpack_ratio", "response_status", "response_bytes_total",
                       "response_bytes_qpack_ratio", "http3_stream_id", "http3_scheme", "http3_reset_error_code", "http3_reset_by",
                       "http3_stop_sending_error_code", "http3_stop_sending_by", "http3_qpack_blocked", "http3_frames", "flags"]
        for column in columns { #expect(header.contains(column), "\(name): column \(column)") }
        let rows = lines.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, HTTP2CSVTests.cells($0))) }
        let (writer, _) = CollectingWriter.analyze([TestPaths.capture(name + ".pcap")], options: try Self.options(name))
        #expect(rows.count == writer.exchanges.count && rows.count > 0)
        for (row, record) in zip(rows, writer.exchanges) {
            let flat = Dictionary(record.flattened(), uniquingKeysWith: { first, _ in first })
            for column in columns where column != "flags" {
                #expect(row[column] == (flat[column] ?? ""), "\(name) id \(row["id"] ?? "?") \(column): csv \(row[column] ?? "-") vs \(flat[column] ?? "-")")
            }
            #expect(row["request_version"] == "HTTP/3" && row["http2_stream_id"] == "")
        }
    }
}

import Foundation
import Testing
@testable import WireTally

/// `compare` on the aioquic recordings with their key logs: the client's own log of each request
/// (`NAME.h3client.jsonl`: URL, method, status, body bytes it wrote and received, its ports), written as
/// a wiretally app log with no header counts, is matched request by request by URL and connection; its
/// gap adds up exactly and is explained by `qpack` (the whole field sections the client did not count),
/// `http3_framing` (the frame headers), `quic_overhead`, UDP/IP headers, ACKs and the handshake — never
/// by the body, which the client counted exactly.
@Suite struct HTTP3CompareTests {
    /// The client's requests as a wiretally app log; returns its path.
    static func appLog(_ name: String) throws -> String {
        let log = try QUICRecordingTests.clientLog(name)
        var lines: [String] = []
        for request in log.requests {
            let authority = request["authority"] as? String ?? ""
            let object: [String: Any] = [
                "url": "https://\(authority)\(request["path"] as? String ?? "")", "method": request["method"] as? String ?? "",
                "status": request["status"] as? Int ?? 0, "start": request["start"] as? Double ?? 0,
                "request_header_bytes": 0, "request_body_bytes": request["request_body_bytes"] as? Int ?? 0,
                "response_header_bytes": 0, "response_body_bytes": request["response_body_bytes"] as? Int ?? 0,
                "local_port": request["local_port"] as? Int ?? 0, "remote_port": request["server_port"] as? Int ?? 0,
            ]
            lines.append(String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self))
        }
        let path = TestScratch.folder.appendingPathComponent(name + ".applog.jsonl").path
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(arguments: QUICRecordingTests.recordings)
    func clientLogGapIsQPACKFramingAndQUIC(_ name: String) throws {
        var options = CaptureAnalyzer.Options()
        options.tlsKeys = try TLSKeyStore.reading(files: [TestPaths.capture(name + ".keys")])
        let run = CompareRun(files: [TestPaths.capture(name + ".pcap")], appLogs: [try Self.appLog(name)], options: options)
        let result = run.run()
        let log = try #require(result.appLogs.first)
        let requests = try QUICRecordingTests.clientLog(name).requests
        #expect(log.report.result.matches.count == requests.count, "\(name): every request matched")
        #expect(log.report.result.unmatchedEntries.isEmpty && log.report.result.unmatchedWire.isEmpty, "\(name)")
        CompareRunTests.gapAddsUp(log.estimates.json)
        let causes = log.estimates.gapByCause
        // the client counted the bodies exactly; a cancelled transfer's body is what it received — the
        // data that reached it after its STOP_SENDING included, which `after_cancel` takes out of the
        // body cause (an app that dropped the task never sees it): there the body cause is minus that
        // body (`cancelledDownloadLeavesOnlyItsBodyAfterTheStopToTheBodyCause`), less than the bytes moved
        // to `after_cancel`; 0 when no body came after the stop (`quic-cancel`: the server's last STREAM
        // frame on the stopped stream precedes the STOP_SENDING)
        let compression = causes["compression_estimate"] ?? 0, afterCancel = causes["after_cancel"] ?? 0
        #expect(compression <= 0 && -compression < max(afterCancel, 1), "\(name): \(causes)")
        #expect(causes["body_length"] == 0, "\(name): \(causes)")
        #expect(causes["qpack"]! > 0 && causes["http3_framing"]! > 0 && causes["quic_overhead"]! > 0, "\(name): \(causes)")
        #expect(causes["hpack"] == 0 && causes["http2_framing"] == 0 && causes["tls_overhead"] == 0 && causes["chunk_framing"] == 0,
                "\(name): \(causes)")
    }

    /// The download of `quic-cancel-inflight` after the client's STOP_SENDING, as tshark decrypted it:
    /// the new bytes of its response stream (stream 0, from the server) in the datagrams after the stop,
    /// and the DATA payload bytes among them — the stream's HTTP/3 frames being those the server's qlog
    /// says it created (`qlog-h3.tsv`: HEADERS, then DATA frames of 16,384 bytes), each after its type
    /// and length varints (RFC 9000 §16).
    static func downloadAfterTheStop() throws -> (stream: Int, body: Int) {
        let name = HTTP3CancelTests.name
        func varintSize(_ value: Int) -> Int { value < 64 ? 1 : value < 16384 ? 2 : value < 1 << 30 ? 4 : 8 }
        var bodyOffsets = IndexSet(), end = 0
        for row in try TruthTable.read(TestPaths.capture(name + ".qlog-h3.tsv")).rows
        where row["vantage"] == "server" && row["event"] == "frame_created" && row.int("stream_id") == 0 {
            let length = try #require(row.int("length"))
            let type = row["frame_type"] == "data" ? 0x00 : 0x01
            let payload = end + varintSize(type) + varintSize(length)
            if type == 0x00 { bodyOffsets.insert(integersIn: payload ..< payload + length) }
            end = payload + length
        }
        let frames = try TruthTable.read(TestPaths.capture(name + ".quic-frames.tsv")).rows
        let stop = try #require(frames.first { $0.int("udp.dstport") == 443 && $0["frame_name"] == "STOP_SENDING" && $0.int("stream_id") == 0 })
        var seen = IndexSet(), after = IndexSet()
        for row in frames where row.int("udp.srcport") == 443 && row["frame_name"] == "STREAM" && row.int("stream_id") == 0 {
            let offset = row.int("offset") ?? 0, data = offset ..< offset + (row.int("length") ?? 0)
            var new = IndexSet(integersIn: data)
            new.subtract(seen)
            seen.formUnion(new)
            if HTTP3CancelTests.time(row) > HTTP3CancelTests.time(stop) { after.formUnion(new) }
        }
        return (after.count, after.intersection(bodyOffsets).count)
    }

    /// The cancelled download's bytes after the stop leave the body cause only as body: the client's
    /// log (it counted the body that reached it after its stop) gets a body cause of exactly minus the
    /// DATA payload tshark shows after the stop; per estimator, `metrics` (what the app read) has no
    /// body cause left and `http` (the response as sent) minus that body, the HTTP/3 frame headers in
    /// flight leave `http3_framing`, the packet headers, tags and other frames `quic_overhead` — at every
    /// level, the causes adding up to the gap.
    @Test func cancelledDownloadLeavesOnlyItsBodyAfterTheStopToTheBodyCause() throws {
        let name = HTTP3CancelTests.name
        let truth = try Self.downloadAfterTheStop()
        #expect(truth.stream == 39_839 && truth.stream - truth.body == 10, "two DATA frame headers among the stream bytes after the stop: \(truth)")
        var options = CaptureAnalyzer.Options()
        options.tlsKeys = try TLSKeyStore.reading(files: [TestPaths.capture(name + ".keys")])
        let result = CompareRun(files: [TestPaths.capture(name + ".pcap")], appLogs: [try Self.appLog(name)], options: options).run()
        let log = try #require(result.appLogs.first)
        CompareRunTests.gapAddsUp(log.estimates.json)
        #expect(log.estimates.gapByCause["compression_estimate"] == -truth.body, "\(log.estimates.gapByCause)")

        let collector = EstimatorCollector.analyze([TestPaths.capture(name + ".pcap")], options: options)
        let download = try #require(collector.allExchanges.first { $0.exchange.response?.http3?.streamID == 0 })
        #expect(download.exchange.cancelledAt != nil)
        for level in WireLevel.allCases {
            for estimator in [Estimator.metrics, .http] {
                let gap = try #require(GapAttribution(exchange: download.exchange, connection: download.connection, estimator: estimator, level: level))
                let causes = gap.byCause
                #expect(gap.causeTotal == gap.gap && causes["after_cancel"]! > 0, "\(level) \(estimator)")
                let body = causes["compression_estimate"]! + causes["body_length"]!
                #expect(body == (estimator == .metrics ? 0 : -truth.body), "\(level) \(estimator): \(causes)")
                if estimator == .http { #expect(causes["http3_framing"] == truth.body - truth.stream, "\(level): \(causes)") }
                #expect(causes["quic_overhead"]! > 0, "\(level) \(estimator): \(causes)")
            }
        }
    }
}

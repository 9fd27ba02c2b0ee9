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
        // body cause (an app that dropped the task never sees it): there the body cause is negative, at
        // most the bytes moved to `after_cancel` (GapAttribution.moveAfterCancel moves the new payload,
        // over QUIC with its packets' headers and tags)
        let compression = causes["compression_estimate"] ?? 0, afterCancel = causes["after_cancel"] ?? 0
        #expect(afterCancel == 0 ? compression == 0 : compression < 0 && -compression <= afterCancel, "\(name): \(causes)")
        #expect(causes["body_length"] == 0, "\(name): \(causes)")
        #expect(causes["qpack"]! > 0 && causes["http3_framing"]! > 0 && causes["quic_overhead"]! > 0, "\(name): \(causes)")
        #expect(causes["hpack"] == 0 && causes["http2_framing"] == 0 && causes["tls_overhead"] == 0 && causes["chunk_framing"] == 0,
                "\(name): \(causes)")
    }
}

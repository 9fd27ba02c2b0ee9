import Foundation
import Testing
import WireTally

/// The same check without the right to capture: a capture recorded with tcpdump and the counts the
/// client logged while it was recorded — here wiretally's bundled `nginx-curl-keepalive` recording and
/// curl's `--write-out '%{json}'` lines (its own request, header and body sizes).
@Suite struct RecordedCaptureTests {
    static let captures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("captures")

    /// The fields of a curl `%{json}` line this check reads.
    struct CurlTransfer: Decodable {
        var url_effective: String
        var method: String
        var http_code: Int
        var size_request: Int
        var size_upload: Int
        var size_header: Int
        var size_download: Int
        var local_port: Int
    }

    @Test func curlsCountsAreWithinToleranceOfTheWire() throws {
        let analysis = try Capture.analyze(files: [Self.captures.appendingPathComponent("nginx-curl-keepalive.pcap").path])
        let lines = try String(contentsOf: Self.captures.appendingPathComponent("nginx-curl-keepalive.curl.jsonl"), encoding: .utf8)
        let appLog = try lines.split(separator: "\n").map { line in
            let transfer = try JSONDecoder().decode(CurlTransfer.self, from: Data(line.utf8))
            return AppRequest(
                url: transfer.url_effective, method: transfer.method, status: transfer.http_code,
                requestHeaderBytes: transfer.size_request, requestBodyBytes: transfer.size_upload,
                responseHeaderBytes: transfer.size_header, responseBodyBytes: transfer.size_download,
                localPort: transfer.local_port)
        }
        // curl counts what it wrote and read on the socket, except the chunk framing of a chunked body
        // (it counts the body de-chunked): at payload level that is the only difference.
        let payload = try Comparison.run(analysis, appLog: appLog, level: .payload)
        #expect(payload.requests.count == appLog.count, "\(payload)")
        for request in payload.requests {
            #expect(request.errorBytes == -request.gapByCause["chunk_framing", default: 0], "\(request.request.url):\n\(payload)")
        }
        // At IP level the packet headers, ACKs, handshake and teardown are what curl cannot see either.
        let ip = try Comparison.run(analysis, appLog: appLog, level: .ip)
        let unseen: Set = ["chunk_framing", "tcp_ip_headers", "pure_acks", "setup_teardown", "retransmissions", "dns"]
        for request in ip.requests {
            #expect(request.gapByCause.allSatisfy { unseen.contains($0.key) || $0.value == 0 }, "\(request.request.url):\n\(ip)")
            #expect(abs(request.errorPercent ?? 100) < 50, "\(request.request.url):\n\(ip)")
        }
    }
}

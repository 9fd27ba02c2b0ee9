import Foundation
import Testing

@testable import WireTally

/// wiretally's HAR against what the other ends logged themselves, never against wiretally's own
/// records: nginx's `$request_length`/`$bytes_sent`/`$body_bytes_sent`, curl's `%{json}` sizes and
/// timers, and the HAR Chromium wrote of the same traffic (`captures/browser-har.har`).
@Suite struct HARIndependentTruthTests {
    /// The HAR entries of `captures/NAME.pcap` (written once by `HARCaptureTests`).
    static func entries(_ name: String) throws -> [[String: Any]] {
        let document = try #require(HARCaptureTests.documents.first { $0.capture.hasSuffix("/\(name).pcap") })
        return HARTestSupport.entries(document.log)
    }

    /// The entries of the connection with client port `port`, exchange `index` on it, oldest first (a
    /// reused port has one connection after another).
    static func entries(_ entries: [[String: Any]], port: Int, index: Int) -> [[String: Any]] {
        entries.filter { $0.string("_connection.client")?.hasSuffix(":\(port)") == true && $0.int("_connection.index") == index }
            .sorted { ($0.string("startedDateTime") ?? "") < ($1.string("startedDateTime") ?? "") }
    }

    static func flags(_ entry: [String: Any]) -> [String] { entry.at("_flags") as? [String] ?? [] }

    /// Captures whose every request went to nginx over plain HTTP/1.x.
    static let plainNginxCaptures = HTTPWireTruthTests.withNginxLog.filter { !$0.hasPrefix("tls") }

    /// Exchanges in a capture that nginx did not serve (captures/README.md): `resets` case 5, python's
    /// `/reset` and `/reset-mid` on port 8001.
    static let exchangesBesideNginx = ["resets": 2]

    /// Every nginx log line has its HAR entry, and the entry's sizes are nginx's: request
    /// `headersSize + bodySize` = `$request_length`, `response._transferSize` = `headersSize + bodySize`
    /// = `$bytes_sent`, `bodySize` = `$body_bytes_sent` less an interim `100 Continue` (nginx counts it
    /// in the body, the HAR in the response head).
    @Test(arguments: plainNginxCaptures)
    func sizesEqualNginx(_ name: String) throws {
        let entries = try Self.entries(name)
        let log = try NginxLog.load(TestPaths.capture(name + ".nginx.jsonl"))
        #expect(!log.isEmpty)
        #expect(entries.count == log.count + Self.exchangesBesideNginx[name, default: 0], "\(name): one entry per nginx line")
        var compared = 0
        for (position, line) in log.enumerated() {
            let label = "\(name) \(line.method) \(line.uri) from \(line.clientPort)"
            let sameConnectionBefore = log[..<position].filter {
                $0.clientPort == line.clientPort && $0.connectionRequests == line.connectionRequests
            }.count
            let candidates = Self.entries(entries, port: line.clientPort, index: line.connectionRequests - 1)
            guard sameConnectionBefore < candidates.count else {
                Issue.record("\(label): no HAR entry")
                continue
            }
            let entry = candidates[sameConnectionBefore]
            compared += 1
            #expect(entry.string("request.method") == line.method, "\(label)")
            #expect(entry.string("request.url")?.hasSuffix(line.uri) == true, "\(label)")
            let requestSize = (entry.int("request.headersSize") ?? 0) + (entry.int("request.bodySize") ?? 0)
            let responseSize = (entry.int("response.headersSize") ?? 0) + (entry.int("response.bodySize") ?? 0)
            if line.status == 444 {
                // `return 444`: no response, and nginx counted the header block only (the body it never read).
                #expect(entry.int("response.status") == 0 && entry.int("response._transferSize") == 0, "\(label)")
                #expect(entry.int("request.headersSize") == line.requestLength, "\(label)")
                continue
            }
            #expect(entry.int("response.status") == line.status, "\(label)")
            #expect(requestSize == line.requestLength, "\(label): request")
            if Self.flags(entry).contains("response_incomplete") {
                // The client went away: nginx counts what it handed to its kernel (captures/README.md).
                #expect((entry.int("response._transferSize") ?? -1) <= line.bytesSent, "\(label)")
                continue
            }
            #expect(entry.int("response._transferSize") == line.bytesSent, "\(label): _transferSize")
            #expect(responseSize == line.bytesSent, "\(label): response")
            let interim = line.expect == "100-continue" ? 25 : 0
            #expect(entry.int("response.bodySize") == line.bodyBytesSent - interim, "\(label): bodySize")
        }
        #expect(compared == log.count, "\(name): every nginx line compared")
    }
}

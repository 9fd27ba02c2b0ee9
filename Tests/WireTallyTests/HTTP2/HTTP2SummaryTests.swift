import Foundation
import Testing
@testable import WireTally

/// `--summary` on HTTP/2: every stream is a request of its endpoint (method, `:authority` as host,
/// `:path`), with the wire bytes of its exchange.
@Suite struct HTTP2SummaryTests {
    /// h2load's 260 streams on h2c and TLS connections: per endpoint, the requests nginx logged
    /// (`http_host`, `request_uri`) and the IP bytes of the exchanges (from the JSONL records).
    @Test(.requires(.wiretallyBinary)) func endpointsCountEveryStream() throws {
        let name = "h2-h2load"
        let run = try CommandLineTests.run(["analyze", TestPaths.capture(name + ".pcap"), "--keylog", TestPaths.capture(name + ".keys"),
                                            "--summary", "--format", "json"])
        #expect(run.status == 0)
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let endpoints = try #require(summary["endpoints"] as? [[String: Any]])
        let log = try NginxLog.load(TestPaths.capture(name + ".nginx.jsonl"))
        let logged = Dictionary(grouping: log, by: { "\($0.method) \($0.host)\($0.uri)" }).mapValues(\.count)
        let counted = Dictionary(uniqueKeysWithValues: endpoints.map {
            ("\($0["method"] as? String ?? "") \($0["host"] as? String ?? "")\($0["path"] as? String ?? "")", $0["requests"] as? Int ?? -1)
        })
        #expect(counted == logged)
        #expect(summary["exchanges"] as? Int == log.count)
        // the endpoints' bytes are their exchanges' wire bytes
        let exchanges = try HTTP2Recordings.analysis(name).writer.exchanges
        let wire = exchanges.reduce(0) { $0 + ($1.int("wire.up.ip_bytes") ?? 0) + ($1.int("wire.down.ip_bytes") ?? 0) }
        let summed = endpoints.reduce(0) { $0 + ($1["up_ip_bytes"] as? Int ?? 0) + ($1["down_ip_bytes"] as? Int ?? 0) }
        #expect(summed == wire)
    }
}

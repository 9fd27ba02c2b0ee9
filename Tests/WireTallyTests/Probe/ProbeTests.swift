import Foundation
import Testing
@testable import WireTally

@Suite struct ProbeOtherTests {
    @Test func probe() throws {
        var out = ""
        for name in EstimatorCaptureTests.all {
            let collector = EstimatorCollector.analyze([TestPaths.capture(name + ".pcap")])
            for level in WireLevel.allCases {
                for report in collector.run(level: level).reports() {
                    out += "\(name) \(level) \(report.name) req=\(report.requestCount) skip=\(report.skipped) other=\(report.gapByCause["other"] ?? -999)\n"
                }
            }
            // per exchange other for non-rebuilt
            for c in collector.exchanges {
                for est in [Estimator.http, .metrics, .naive] {
                    if let g = GapAttribution(exchange: c.exchange, connection: c.connection, estimator: est, level: .payload), g.byCause["other"] != 0 {
                        let o: Int = g.byCause["other"] ?? 0
                        let line: String = "   EX " + name + " \(est) conn \(c.connection.id) #\(c.exchange.index) other=\(o)\n"
                        out += line
                    }
                }
            }
            let logs = TestPaths.files(in: TestPaths.captures, endingWith: [".jsonl", ".har"]).filter { $0.hasPrefix(name + ".") && !$0.contains("nginx") }
            for log in logs {
                let r = CompareRun(files: [TestPaths.capture(name + ".pcap")], appLogs: [TestPaths.capture(log)], level: .payload).run()
                for l in r.appLogs {
                    out += "  LOG \(log) entries=\(l.report.log.entries.count) matched=\(l.report.result.matches.count) causes=\(l.estimates.gapByCause.filter { $0.value != 0 })\n"
                }
                if !r.errors.isEmpty { out += "  ERR \(log) \(r.errors)\n" }
            }
        }
        try out.write(toFile: "/tmp/wtc-probe.txt", atomically: true, encoding: .utf8)
    }
}

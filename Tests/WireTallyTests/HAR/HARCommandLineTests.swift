import Foundation
import Testing

@testable import WireTally

/// `wiretally analyze --format har` through the binary.
@Suite struct HARCommandLineTests {
    @Test(.requires(.wiretallyBinary))
    func formatHarWritesOneDocument() throws {
        let run = try CommandLineTests.run(["analyze", TestPaths.capture("nginx-curl-keepalive.pcap"), "--format", "har"])
        #expect(run.status == 0, "\(run.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let log = try #require(document["log"] as? [String: Any])
        #expect(log.string("version") == "1.2")
        #expect(HARTestSupport.entries(log).count == 8)
        #expect(log.int("_summary.connections") != nil)
    }
}

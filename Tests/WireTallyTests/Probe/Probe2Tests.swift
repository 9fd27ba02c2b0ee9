import Foundation
import Testing
@testable import WireTally

@Suite struct ProbeDetailTests {
    @Test(arguments: ["nginx-pipelining", "resets"]) func detail(_ name: String) throws {
        let collector = EstimatorCollector.analyze([TestPaths.capture(name + ".pcap")])
        var out = ""
        for c in collector.exchanges {
            let wire = c.connection.ledger.exchange(c.exchange.index)
            let b = Estimator.http.breakdown(c.exchange)!
            for d in FlowDirection.allCases {
                let t = wire.tally(d)
                let m = d == .up ? b.up : b.down
                let resent = t.retransmittedPayloadBytes - t.retransmission.payloadBytes - t.setup.payloadBytes - t.teardown.payloadBytes
                let s1 = "conn \(c.connection.id) port \(c.connection.clientPort) #\(c.exchange.index) \(d) payloadBytes=\(t.payload.payloadBytes) retransPB=\(t.retransmittedPayloadBytes) "
                let s2 = "retr.pb=\(t.retransmission.payloadBytes) setup.pb=\(t.setup.payloadBytes) teardown.pb=\(t.teardown.payloadBytes) resent=\(resent) msgwire=\(m.wire) "
                let msg = d == .up ? c.exchange.request : c.exchange.response
                let s3 = "bytes=\(String(describing: msg?.bytes))\n"
                out += s1 + s2 + s3
            }
        }
        try out.write(toFile: "/tmp/wtc-detail-\(name).txt", atomically: true, encoding: .utf8)
    }
}

import Foundation
import Testing
@testable import WireTally

/// The analyzer's answer index on a real browsing capture: each HTTP connection is named by the
/// resolution that preceded its SYN, which is the name its requests' Host header asks for.
@Suite struct DNSAnswerIndexCaptureTests {
    @Test(.requires(.publicCaptures))
    func wikipediaConnectionsAreNamedByTheirResolution() throws {
        let capture = try Requirement.publicCapture("zeek__wikipedia.pcap")
        var connections: [TCPConnection] = []
        var hosts: [Int: String] = [:]
        let analyzer = CaptureAnalyzer { record in
            switch record {
            case let .connection(connection): connections.append(connection)
            case let .exchange(exchangeRecord):
                if let request = exchangeRecord.exchange.request {
                    hosts[exchangeRecord.connection.id] = RecordEncoding.host(of: request, fallback: "")
                }
            default: break
            }
        }
        let source = MergedPacketSource(paths: [capture])
        while let packet = try source.nextPacket() { analyzer.process(packet) }
        _ = analyzer.finish(timestampDigits: 6)

        var named = 0
        for connection in connections where connection.serverPort == 80 {
            let byAddress = analyzer.dnsAnswers.lookup(address: connection.server, before: connection.firstTimestamp)
            guard let host = hosts[connection.id] else { continue }
            let byName = analyzer.dnsAnswers.lookup(name: host, before: connection.firstTimestamp)
            if let byAddress {
                #expect(byAddress.name == host, "connection \(connection.id)")
                #expect(byName == byAddress, "connection \(connection.id)")
                #expect(byAddress.answerTimestamp <= connection.firstTimestamp)
                #expect(byAddress.queryTimestamp.map { $0 < byAddress.answerTimestamp } == true)
                named += 1
            } else {
                // www.wikipedia.org and bits.wikimedia.org were resolved before the capture started.
                #expect(["www.wikipedia.org", "bits.wikimedia.org"].contains(host), "connection \(connection.id)")
                #expect(byName == nil)
            }
        }
        #expect(named == 7)
        // The latest of the four upload.wikimedia.org answers before the last connection opened.
        let last = try #require(connections.filter { $0.server == IPAddress("208.80.152.3")! }.max { $0.firstTimestamp < $1.firstTimestamp })
        #expect(analyzer.dnsAnswers.lookup(address: last.server, before: last.firstTimestamp)?.transactionID == 12)
    }
}

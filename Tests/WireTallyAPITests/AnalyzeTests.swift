import Foundation
import Testing
import WireTally

/// `Capture.analyze` on recorded captures, against what nginx logged for the same requests.
@Suite struct AnalyzeTests {
    /// The exchange nginx logged as request `entry.connection_requests` of the connection from
    /// client port `entry.remote_port`.
    static func exchange(for entry: Captures.NginxEntry, in analysis: Analysis) -> Exchange? {
        analysis.exchanges.first {
            $0.client.hasSuffix(":\(entry.remote_port)") && $0.index == entry.connection_requests - 1
        }
    }

    @Test func cleartextExchangesEqualNginxCounts() throws {
        let analysis = try Capture.analyze(files: [Captures.path("nginx-curl-keepalive.pcap")])
        let log = try Captures.nginxLog("nginx-curl-keepalive")
        #expect(analysis.exchanges.count == log.count)
        for entry in log {
            let exchange = try #require(Self.exchange(for: entry, in: analysis), "\(entry.request_uri)")
            #expect(exchange.method == entry.request_method)
            #expect(exchange.url == "\(entry.scheme)://\(entry.http_host)\(entry.request_uri)")
            #expect(exchange.status == entry.status)
            #expect(exchange.request?.totalBytes == entry.request_length, "\(entry.request_uri): $request_length")
            #expect(exchange.response?.totalBytes == entry.bytes_sent, "\(entry.request_uri): $bytes_sent")
            #expect(exchange.wire.bytes(.up, level: .payload) >= entry.request_length)
            #expect(exchange.wire.bytes(.down, level: .payload) >= entry.bytes_sent)
            #expect(exchange.phases.total != nil && exchange.phases.wait != nil)
            #expect(exchange.flags.isEmpty, "\(exchange.flags)")
        }
    }

    /// Per connection: its exchanges' wire (a DNS-over-TCP connection: its lookups') plus its
    /// unattributed packets equal its wire, at every level; and every packet read is in one outcome.
    @Test(arguments: ["nginx-curl-keepalive.pcap", "nginx-pipelining.pcap", "lossy.pcap", "dns-http.pcap", "quic-sequential.pcap"])
    func bytesAreConserved(capture: String) throws {
        let analysis = try Capture.analyze(files: [Captures.path(capture)])
        #expect(analysis.summary.isConserved)
        #expect(analysis.summary.inputErrors.isEmpty)
        #expect(!analysis.connections.isEmpty)
        for connection in analysis.connections {
            let lookups = analysis.dns.filter { $0.connectionID == connection.id }
            if !lookups.isEmpty {
                for level in WireLevel.allCases {
                    let unattributed = level.value(connection.unattributed.up) + level.value(connection.unattributed.down)
                    #expect(lookups.map { level.value($0.wire) }.reduce(0, +) + unattributed == connection.wire.bytes(level: level))
                }
                continue
            }
            let exchanges = analysis.exchanges(onConnection: connection.id)
            #expect(exchanges.count == connection.exchangeCount)
            for direction in FlowDirection.allCases {
                for level in WireLevel.allCases {
                    let attributed = exchanges.map { $0.wire.bytes(direction, level: level) }.reduce(0, +)
                    let unattributed = level.value(direction == .up ? connection.unattributed.up : connection.unattributed.down)
                    #expect(attributed + unattributed == connection.wire.bytes(direction, level: level),
                            "\(capture) connection \(connection.id) \(direction) \(level)")
                }
            }
        }
        let attributedIP = analysis.exchanges.map { $0.wire.bytes(level: .ip) }.reduce(0, +)
        #expect(attributedIP == analysis.summary.attributedIPBytes)
    }

    /// Every value the API hands out is a `Sendable` value type (checked by the compiler), named
    /// without clashing with Foundation (this file imports it).
    @Test func valuesAreSendable() {
        func sendable<Value: Sendable>(_: Value.Type) {}
        sendable(Analysis.self); sendable(AnalysisOptions.self); sendable(Exchange.self); sendable(Connection.self)
        sendable(DNSLookup.self); sendable(Summary.self); sendable(Wire.self); sendable(Phases.self); sendable(Record.self)
        sendable(RecordStream.self); sendable(AppRequest.self); sendable(ComparisonReport.self)
        sendable(RequestComparison.self); sendable(WireTallyError.self)
    }

    @Test func dnsLookupsAreReported() throws {
        let analysis = try Capture.analyze(files: [Captures.path("dns-http.pcap")])
        #expect(analysis.dns.count == analysis.summary.dnsLookups)
        let www = try #require(analysis.dns.first { $0.query == "www.wt.test" && $0.queryType == "A" })
        #expect(www.addresses == ["10.77.0.2"])
        #expect(www.responseCode == "NOERROR")
        #expect(analysis.exchanges.contains { $0.dnsIPBytes > 0 })
    }
}

import Foundation
import Testing
@testable import WireTally

/// A TCP exchange's record carries its connection as it was when the record was made
/// (`ExchangeConnection.snapshot`): checked against the connection itself once it has ended — its id,
/// endpoints and first timestamp, the exchange's share of its ledger (`wire`, final once sealed), its
/// TLS session (a snapshot of the analysis's: none for cleartext, the same server name otherwise), and
/// the protection the analysis gives its exchanges: cleartext HTTP (the h2c connections of a TLS
/// capture too), TLS decrypted with the key log, TLS estimated without it.
struct ExchangeRecordSnapshotTests {
    @Test(arguments: [
        ("nginx-curl-keepalive.pcap", nil, ExchangeConnection.Protection.cleartext),
        ("tls13-http1.pcap", "tls13-http1.keys", .decrypted),
        ("tls13-http1.pcap", nil, .estimated),
        ("h2-curl.pcap", "h2-curl.keys", .decrypted),
    ])
    func theRecordsConnectionIsTheConnections(capture: String, keys: String?, protection: ExchangeConnection.Protection) throws {
        var options = CaptureAnalyzer.Options()
        options.keepsReportedExchanges = true  // the ledger still holds every exchange's wire at the end
        if let keys {
            options.tlsKeys = TLSKeyStore([TLSKeyLog([UInt8](try Data(contentsOf: URL(fileURLWithPath: TestPaths.capture(keys)))))])
        }
        var records: [ExchangeRecord] = []
        var connections: [Int: TCPConnection] = [:]
        let source = MergedPacketSource(paths: [TestPaths.capture(capture)])
        let analyzer = CaptureAnalyzer(options: options) { record in
            switch record {
            case let .exchange(exchangeRecord): records.append(exchangeRecord)
            case let .connection(connection): connections[connection.id] = connection
            default: break
            }
        }
        while let packet = try source.nextPacket() { analyzer.process(packet) }
        _ = analyzer.finish(timestampDigits: source.timestampDigits)

        #expect(records.contains { $0.connection.protection == protection })
        for record in records {
            let snapshot = record.connection
            let connection = try #require(connections[snapshot.id], "exchange record \(record.id)")
            let tls = (connection.consumer as? ApplicationLayerAnalysis)?.tls
            #expect(snapshot.transport == .tcp)
            #expect(snapshot.clientEndpoint == connection.clientEndpoint && snapshot.serverEndpoint == connection.serverEndpoint)
            #expect(snapshot.firstTimestamp == connection.firstTimestamp)
            #expect(snapshot.wire == connection.ledger.exchange(record.exchange.index), "exchange record \(record.id)")
            #expect((snapshot.tlsSession == nil) == (tls == nil))
            #expect(snapshot.tlsSession?.info.sni == tls?.session.sni)
            #expect(snapshot.protection == (tls == nil ? .cleartext : protection), "exchange record \(record.id)")
            #expect(snapshot.owner == nil)  // no packet of these captures names an owner
        }
    }
}

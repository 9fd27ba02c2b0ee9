import Foundation
import Testing
@testable import WireTally

@Suite struct TLSDispatcherTests {
    /// Every connection of the files through the default `ApplicationLayerAnalysis`.
    static func analyze(_ paths: [String]) throws -> [TCPConnection] {
        var connections: [TCPConnection] = []
        let source = MergedPacketSource(paths: paths)
        var options = CaptureAnalyzer.Options()
        options.keepsReportedExchanges = true  // `checkConservation` reads every exchange's ledger entry
        let analyzer = CaptureAnalyzer(
            options: options,
            emit: { record in if case let .connection(connection) = record { connections.append(connection) } })
        while let packet = try source.nextPacket() { analyzer.process(packet) }
        _ = analyzer.finish(timestampDigits: source.timestampDigits)
        return connections
    }

    static func checkConservation(_ connection: TCPConnection, exchangeCount: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        let ledger = connection.ledger
        #expect(ledger.isConserved, sourceLocation: sourceLocation)
        #expect(ledger.exchanges.count <= exchangeCount, sourceLocation: sourceLocation)
        for direction in FlowDirection.allCases {
            var owned = ledger.unattributed(direction)
            for index in 0 ..< exchangeCount { owned = owned + ledger.exchange(index).tally(direction).total }
            #expect(owned == ledger.tally(direction).total, sourceLocation: sourceLocation)
        }
    }

    @Test(.requires(.publicCaptures))
    func picksTLSOrHTTPPerConnection() throws {
        let tlsPath = try Requirement.publicCapture("zeek__tls__tls-1.2-stream-keylog.pcap")
        let httpPath = try Requirement.publicCapture("zeek__http__get.pcap")
        for paths in [[tlsPath], [httpPath]] {
            let connections = try Self.analyze(paths)
            #expect(!connections.isEmpty)
            for connection in connections {
                let dispatcher = try #require(connection.consumer as? ApplicationLayerAnalysis)
                if paths == [tlsPath] {
                    let tls = try #require(dispatcher.tls)
                    #expect(tls.exchangeCount == 16)
                    Self.checkConservation(connection, exchangeCount: tls.exchangeCount)
                } else {
                    let http = try #require(dispatcher.http)
                    #expect(http.exchangeCount >= 1)
                    Self.checkConservation(connection, exchangeCount: http.exchangeCount)
                }
            }
        }
    }

    @Test func decidesOnSplitFirstBytesAndReplaysThem() {
        let hello = TLSBytes.record(22, TLSBytes.clientHello(sni: "dispatch.example"))
        let dispatcher = ApplicationLayerAnalysis()
        var offset: Int64 = 0
        for (index, byte) in hello.enumerated() {
            [byte].withUnsafeBytes {
                dispatcher.streamData($0, offset: offset, direction: .up, origin: PacketOrigin(frameNumber: index + 1, timestamp: Timestamp(nanoseconds: 0)))
            }
            offset += 1
            #expect((dispatcher.layer != nil) == (index >= 5))
        }
        let tls = dispatcher.tls
        #expect(tls?.session.sni == "dispatch.example")
        #expect(tls?.session.clientHelloOrigin?.frameNumber == 1)

        let http = ApplicationLayerAnalysis()
        Array("GET / HTTP/1.1\r\n\r\n".utf8).withUnsafeBytes {
            http.streamData($0, offset: 0, direction: .up, origin: PacketOrigin(frameNumber: 1, timestamp: Timestamp(nanoseconds: 0)))
        }
        #expect(http.http != nil)
        #expect(http.exchangeCount == 1)
    }
}

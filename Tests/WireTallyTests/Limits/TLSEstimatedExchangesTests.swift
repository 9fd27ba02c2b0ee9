import Foundation
import Testing
@testable import WireTally

/// One TLS keep-alive connection carrying a great many request/response record bursts: each estimated
/// exchange is final once the server's records of the next exchange begin, then written and dropped,
/// so the connection keeps a few at any time (they used to stay until the connection ended).
@Suite(.serialized) struct TLSEstimatedExchangesTests {
    static let exchangeCount = 20_000

    /// A TLS 1.2 handshake (`TLS12Conversation`), then per exchange one application-data record each
    /// way (the request 100 + `index % 7` bytes of plaintext, the response 300) and the client's ACK;
    /// then FIN both ways.
    static func writeTLSKeepAlive(to path: String, exchanges: Int) throws {
        let connection = try StreamedConnectionWriter(path: path, server: "10.1.0.2:443")
        try connection.handshake()
        for (direction, bytes) in TLS12Conversation.steps.prefix(4) { try connection.send(direction, bytes) }
        for index in 0..<exchanges {
            try connection.send(.up, TLSBytes.record(23, [UInt8](repeating: 1, count: 100 + index % 7)))
            try connection.send(.down, TLSBytes.record(23, [UInt8](repeating: 2, count: 300)))
            try connection.acknowledge(from: .up)
        }
        try connection.close()
    }

    /// Checks each exchange record as it comes (without keeping it) and what the connection kept.
    final class CheckingWriter: RecordWriter {
        var exchanges = 0, connections = 0, keptExchanges = Int.max, conserved = false, recordsAsExpected = true
        func write(_ record: AnalysisRecord, timestampDigits: Int) {
            switch record {
            case let .exchange(exchangeRecord):
                let (exchange, connection) = (exchangeRecord.exchange, exchangeRecord.connection)
                let expected = 5 + 100 + exchanges % 7
                if exchange.index != exchanges || exchange.request?.bytes.total != expected
                    || exchange.response?.bytes.total != 305
                    // (exchange 0 also owns the handshake)
                    || exchange.index > 0
                    && connection.wire.tally(.up).payload.payloadBytes != expected
                {
                    recordsAsExpected = false
                }
                exchanges += 1
            case let .connection(connection):
                connections += 1
                keptExchanges = (connection.consumer as? ApplicationLayerAnalysis)?.exchanges.count ?? -1
                conserved = connection.ledger.isConserved
            default:
                break
            }
        }
        func finish(summary: CaptureSummary, files: [String]) {}
    }

    @Test func finalEstimatedExchangesAreDropped() throws {
        let path = LimitTestSupport.temporaryPath("tls-keep-alive.pcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Self.writeTLSKeepAlive(to: path, exchanges: Self.exchangeCount)
        let writer = CheckingWriter()
        let result = AnalysisRun(files: [path]).run(writer: writer)
        #expect(result.summary.errors.isEmpty && result.summary.isConserved)
        #expect(result.summary.exchanges == Self.exchangeCount)
        #expect(writer.exchanges == Self.exchangeCount && writer.recordsAsExpected)
        #expect(writer.connections == 1)
        // (and those of the last linger: at most one per frame within it)
        let lingering = StreamedConnectionWriter.framesWithinLinger
        #expect(writer.keptExchanges <= 2 + lingering, "kept \(writer.keptExchanges) exchanges")
        #expect(writer.conserved)
    }
}

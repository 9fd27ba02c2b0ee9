import Foundation
import Testing
@testable import WireTally

/// One keep-alive connection carrying a great many small request/response pairs (an app polling for
/// hours, or a hostile capture): each exchange is dropped from the connection once its record is
/// written, so the connection keeps a few exchanges at any time and memory does not grow with them.
@Suite(.serialized) struct KeepAliveExchangesTests {
    static let exchangeCount = 50_000

    /// Writes the connection: handshake, then per exchange a request, its response (acknowledging the
    /// request) and the client's ACK, 100 µs apart; then FIN both ways. With `clientAcknowledges`
    /// false the client never acknowledges a response (no ACK, its requests acknowledge nothing) until
    /// its FIN.
    static func writeKeepAlive(to path: String, exchanges: Int, clientAcknowledges: Bool = true) throws {
        let connection = try StreamedConnectionWriter(path: path)
        try connection.handshake()
        for index in 0..<exchanges {
            try connection.send(
                .up, Array("GET /poll/\(index) HTTP/1.1\r\nHost: example.test\r\nAccept: */*\r\n\r\n".utf8),
                acknowledging: clientAcknowledges)
            try connection.send(.down, Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}".utf8))
            if clientAcknowledges { try connection.acknowledge(from: .up) }
        }
        try connection.close()
    }

    /// Checks each exchange record as it comes (without keeping it) and what the connection kept.
    final class CheckingWriter: RecordWriter {
        var exchanges = 0, connections = 0
        var keptExchanges = Int.max, keptWireEntries = Int.max, reportedExchangeCount = 0
        var conserved = false, indicesInOrder = true
        func write(_ record: AnalysisRecord, timestampDigits: Int) {
            switch record {
            case let .exchange(exchangeRecord):
                let (exchange, connection) = (exchangeRecord.exchange, exchangeRecord.connection)
                if exchange.index != exchanges || exchange.response?.status != 200 { indicesInOrder = false }
                // Read as the outputs do, while the record is written.
                if connection.wire.tally(.up).payload.packets != 1 { indicesInOrder = false }
                exchanges += 1
            case let .connection(connection):
                connections += 1
                let application = connection.consumer as? ApplicationLayerAnalysis
                keptExchanges = application?.exchanges.count ?? -1
                reportedExchangeCount = application?.exchangeCount ?? -1
                keptWireEntries = connection.ledger.exchanges.count
                conserved = connection.ledger.isConserved
            default:
                break
            }
        }
        func finish(summary: CaptureSummary, files: [String]) {}
    }

    @Test func reportedExchangesAreDropped() throws {
        let path = LimitTestSupport.temporaryPath("keep-alive.pcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Self.writeKeepAlive(to: path, exchanges: Self.exchangeCount)

        // In process: every exchange reported in order with its wire; at the end the connection keeps
        // only the last one, still counts them all and is conserved.
        let writer = CheckingWriter()
        let result = AnalysisRun(files: [path]).run(writer: writer)
        #expect(result.summary.errors.isEmpty)
        #expect(result.summary.isConserved)
        #expect(result.summary.exchanges == Self.exchangeCount)
        #expect(writer.exchanges == Self.exchangeCount && writer.indicesInOrder)
        #expect(writer.connections == 1)
        #expect(writer.reportedExchangeCount == Self.exchangeCount)
        // (and those of the last linger: at most one per frame within it)
        let lingering = StreamedConnectionWriter.framesWithinLinger
        #expect(writer.keptExchanges <= 2 + lingering, "kept \(writer.keptExchanges) exchanges")
        #expect(writer.keptWireEntries <= 2 + lingering, "kept \(writer.keptWireEntries) ledger entries")
        #expect(writer.conserved)

        // The binary: peak memory under 48 MB (20-30 MB for any count; keeping every exchange took about
        // 1.4 KB each, 70 MB more here).
        let output = LimitTestSupport.temporaryPath("keep-alive.jsonl")
        defer { try? FileManager.default.removeItem(atPath: output) }
        let run = try SYNFloodTests.runMeasured(["analyze", "--format", "jsonl", path], output: output)
        #expect(run.status == 0)
        #expect(run.peakKilobytes < 48 << 10, "peak RSS \(run.peakKilobytes / 1024) MB")
    }
}

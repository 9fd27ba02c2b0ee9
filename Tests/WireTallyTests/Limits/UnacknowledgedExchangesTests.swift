import Foundation
import Testing
@testable import WireTally

/// A keep-alive connection whose client never acknowledges a response (a hostile capture, or one
/// whose ACKs were lost): sealing waits for acknowledgments, so every completed exchange would stay
/// until the connection ends. Past `ConnectionLedger.maxUnsealedExchanges` the oldest is sealed
/// without waiting: the records come out in order, each with its own request packet, and the
/// connection keeps at most that many.
@Suite struct UnacknowledgedExchangesTests {
    static let exchangeCount = 3 * ConnectionLedger.maxUnsealedExchanges

    @Test func neverAcknowledgedExchangesAreSealedPastTheCap() throws {
        let path = LimitTestSupport.temporaryPath("never-acknowledged.pcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try KeepAliveExchangesTests.writeKeepAlive(to: path, exchanges: Self.exchangeCount, clientAcknowledges: false)
        let writer = KeepAliveExchangesTests.CheckingWriter()
        let result = AnalysisRun(files: [path]).run(writer: writer)
        #expect(result.summary.errors.isEmpty && result.summary.isConserved)
        #expect(writer.exchanges == Self.exchangeCount && writer.indicesInOrder)
        #expect(writer.connections == 1 && writer.conserved)
        #expect(writer.keptExchanges <= ConnectionLedger.maxUnsealedExchanges, "kept \(writer.keptExchanges) exchanges")
        #expect(writer.keptWireEntries <= ConnectionLedger.maxUnsealedExchanges, "kept \(writer.keptWireEntries) ledger entries")
    }
}

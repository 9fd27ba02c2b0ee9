import Foundation
import Testing
@testable import WireTally

/// The linger before a final exchange is sealed (issue 17 §3, `ConnectionLedger.linger(roundTrip:)`):
/// two round trips of the connection's handshake after the last packet it owns (and after its cancel).
@Suite struct LingerTests {
    /// The lossy recordings (loss, duplication and reordering through the impairment bridge; TLS and
    /// HTTP/2 ones with their key logs) have no packet left that went to the unattributed rest because
    /// its exchange had been sealed: h2-lossy's spurious retransmission of a finished stream's bytes,
    /// 3.7 ms after the last response on a 10.7 ms round trip, is now that exchange's. Conservation holds.
    @Test(arguments: ["lossy", "tls-lossy", "h2-lossy"])
    func lossyRecordingsHaveNoLateAfterSeal(_ name: String) throws {
        var options = CaptureAnalyzer.Options()
        let keys = TestPaths.capture(name + ".keys")
        if FileManager.default.fileExists(atPath: keys) { options.tlsKeys = try TLSKeyStore.reading(files: [keys]) }
        let (writer, result) = CollectingWriter.analyze([TestPaths.capture(name + ".pcap")], options: options)
        Conservation.check(writer, result)
        #expect(!writer.connections.isEmpty)
        for connection in writer.connections {
            #expect(!connection.flagNames.contains("late_after_seal"), "\(name) \(connection.string("client") ?? "")")
        }
    }

    /// Two round trips, within 5 ms and 1 s; 200 ms without a handshake.
    @Test func lingerFollowsTheRoundTrip() {
        #expect(ConnectionLedger.linger(roundTrip: 10_690_000) == 21_380_000)
        #expect(ConnectionLedger.linger(roundTrip: 50_000) == 5_000_000)
        #expect(ConnectionLedger.linger(roundTrip: 2_000_000_000) == 1_000_000_000)
        #expect(ConnectionLedger.linger(roundTrip: nil) == 200_000_000)
    }

    /// A handshake whose timestamps are damaged or far apart (FuzzRegressionTests'
    /// pcapngTimestampsFarApartDoNotOverflowDurations trapped in `2 × roundTrip`) or go backwards
    /// still gives a linger within its bounds.
    @Test func absurdRoundTripsStayWithinTheBounds() {
        #expect(ConnectionLedger.linger(roundTrip: .max) == 1_000_000_000)
        #expect(ConnectionLedger.linger(roundTrip: Int64.max / 2 + 1) == 1_000_000_000)
        #expect(ConnectionLedger.linger(roundTrip: .min) == 5_000_000)
        #expect(ConnectionLedger.linger(roundTrip: -1) == 5_000_000)
    }
}

import Foundation
import Testing
@testable import WireTally

/// QUIC with a key log that grows while capturing (`live --keylog`): the client writes a secret when it
/// derives it, and the capture can see the packets it protects first. The connection's datagrams wait
/// for the secrets (`QUICHeldDatagrams`) and are read once they are there: the records equal those of
/// a run with the key log from the start; keys that never come leave the datagrams read as without
/// keys after the wait. quic-sequential packet by packet, through the analyzer.
@Suite struct QUICGrowingKeyLogTests {
    /// quic-sequential packet by packet, its key log added to a growing store after `keysAfter` packets.
    static func analyze(keysAfter: Int?, firstLines: ((Substring) -> Bool)? = nil) throws -> CollectingWriter {
        try GrowingKeyStoreTests.analyze("quic-sequential", keysAfter: keysAfter, firstLines: firstLines)
    }

    /// Keys logged after the handshake and the first requests (packet 12): everything decrypts and the
    /// records equal those of the run with the keys from the start.
    @Test(arguments: [12, 40])
    func secretsLoggedLateDecryptEverything(_ keysAfter: Int) throws {
        let late = try Self.analyze(keysAfter: keysAfter)
        let early = try Self.analyze(keysAfter: 0)
        #expect(late.exchanges.count == 8 && late.exchanges.allSatisfy { $0.flagNames.contains("decrypted") })
        #expect(late.exchanges.map { $0["request"] } == early.exchanges.map { $0["request"] })
        #expect(late.exchanges.map { $0["response"] } == early.exchanges.map { $0["response"] })
        #expect(late.exchanges.map { $0["wire"] } == early.exchanges.map { $0["wire"] })
        #expect(late.quicConnections.map { $0["tls"]?["decryption"] } == [.string("decrypted")])
    }

    /// The handshake secrets first, the application ones later: the datagrams wait for both.
    @Test func applicationSecretsLoggedAfterTheHandshakeOnesDecryptEverything() throws {
        let late = try Self.analyze(keysAfter: 12, firstLines: { $0.contains("HANDSHAKE_TRAFFIC_SECRET") })
        let early = try Self.analyze(keysAfter: 0)
        #expect(late.exchanges.map { $0["request"] } == early.exchanges.map { $0["request"] })
        #expect(late.exchanges.map { $0["wire"] } == early.exchanges.map { $0["wire"] })
    }

    /// Keys that never come: after the wait the datagrams are read without keys — the exchanges are
    /// estimated exactly as in a run without a key log.
    @Test func secretsThatNeverComeLeaveTheKeylessEstimate() throws {
        let never = try Self.analyze(keysAfter: nil)
        let (keyless, _) = CollectingWriter.analyze([TestPaths.capture("quic-sequential.pcap")])
        #expect(never.exchanges.count == keyless.exchanges.count)
        for (ours, theirs) in zip(never.exchanges, keyless.exchanges) {
            #expect(ours["wire"] == theirs["wire"] && ours["request"] == theirs["request"] && ours["response"] == theirs["response"])
        }
    }
}

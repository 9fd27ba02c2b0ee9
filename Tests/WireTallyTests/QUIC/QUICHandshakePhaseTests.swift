import Foundation
import Testing
@testable import WireTally

/// QUIC's handshake phases (issue 17 §3) on the aioquic recordings against the client's own qlog, cut
/// as curl cuts HTTP/3 (`time_connect` at the server's first byte, `time_appconnect` at the end of the
/// handshake): a connection's first exchange has `connect` from the client's first datagram to the
/// server's first one (the first `received` in the client's qlog) and `ssl` from there to the client's
/// TLS Finished (its first Handshake packet with CRYPTO in its qlog); the connection's
/// `tls.handshake_ms` is `connect + ssl`. Without keys the end is the client's first Handshake packet,
/// which is the same datagram for aioquic. After a Version Negotiation the handshake is the one in the
/// version the server offered (the client's Initial in an unknown version is a UDP flow of its own). Capture and qlog times come from one clock (same machine,
/// capture on the client's side): within 1 ms.
@Suite struct QUICHandshakePhaseTests {
    /// Per client connection (odcid): when the client sent its first datagram, received the server's
    /// first and sent its Finished, in seconds.
    static func qlogHandshakes(_ name: String) throws -> [String: [Double]] {
        var times: [String: [Double?]] = [:]
        for row in try TruthTable.read(TestPaths.capture(name + ".qlog-packets.tsv")).rows where row["vantage"] == "client" {
            guard let ms = Double(row["time_ms"]) else { continue }
            let odcid = row["odcid"]
            // a Version Negotiation: the connection starts again with the client's next Initial
            let restarts = row["event"] == "received" && row["packet_type"] == "version_negotiation"
            var handshake = restarts ? [nil, nil, nil] : times[odcid] ?? [nil, nil, nil]
            if row["event"] == "sent", handshake[0] == nil { handshake[0] = ms / 1000 }
            if row["event"] == "received", !restarts, handshake[1] == nil { handshake[1] = ms / 1000 }
            if row["event"] == "sent", handshake[2] == nil, row["packet_type"] == "handshake",
               row["frames"].split(separator: ",").contains("crypto") {
                handshake[2] = ms / 1000
            }
            times[odcid] = handshake
        }
        return times.compactMapValues { handshake in handshake.allSatisfy { $0 != nil } ? handshake.compactMap { $0 } : nil }
    }

    @Test(arguments: QUICRecordingTests.recordings)
    func connectAndSSLAreCurlsSplitOfTheHandshake(_ name: String) throws {
        let handshakes = try Self.qlogHandshakes(name)
        let (keyed, _) = try HTTP3RecordingTests.analyze(name)
        let (keyless, _) = CollectingWriter.analyze([TestPaths.capture(name + ".pcap")])
        for logged in try QUICRecordingTests.clientLog(name).connections {
            let port = try #require(logged["local_port"] as? Int), odcid = try #require(logged["odcid"] as? String)
            let label = "\(name) connection \(odcid)"
            let qlog = try #require(handshakes[odcid], "\(label): no Finished in the client's qlog")
            let expected = [(qlog[1] - qlog[0]) * 1000, (qlog[2] - qlog[1]) * 1000]
            for (writer, keys) in [(keyed, "with keys"), (keyless, "without keys")] {
                let onConnection = writer.exchanges.filter { $0.string("conn.client")?.hasSuffix(":\(port)") == true }
                let first = onConnection.filter { (HTTP3RecordingTests.number($0["timing"]?["connect"]) ?? -1) >= 0 }
                #expect(first.count == 1 && onConnection.count > 0, "\(label) \(keys): one exchange with connect")
                guard let record = first.first, let connect = HTTP3RecordingTests.number(record["timing"]?["connect"]) else { continue }
                let ssl = HTTP3RecordingTests.number(record["timing"]?["ssl"]) ?? -1
                #expect(abs(connect - expected[0]) < 1 && abs(ssl - expected[1]) < 1,
                        "\(label) \(keys): connect \(connect) ms, ssl \(ssl) ms; the client's qlog \(expected) ms")
                for later in onConnection where later != record {
                    #expect(HTTP3RecordingTests.number(later["timing"]?["connect"]) == -1, "\(label) \(keys)")
                    #expect(HTTP3RecordingTests.number(later["timing"]?["ssl"]) == -1, "\(label) \(keys)")
                }
                let connection = writer.quicConnections.first { $0.string("client")?.hasSuffix(":\(port)") == true }
                let handshake = HTTP3RecordingTests.number(connection?["tls"]?["handshake_ms"])
                #expect(handshake.map { abs($0 - connect - ssl) < 0.002 } == true, "\(label) \(keys): tls.handshake_ms \(String(describing: handshake))")
            }
        }
    }
}

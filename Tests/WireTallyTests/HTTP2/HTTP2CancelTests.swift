import Foundation
import Testing
@testable import WireTally

/// HTTP/2 streams the client cancelled (issue 17 §2) against tshark, nginx and the client's own log, on
/// the recorded `h2-cancel` capture: over one TLS connection to nginx through a 30 ms round trip,
/// scripts/lib/h2-peer.py's client resets /cancel/blob.bin (RST_STREAM CANCEL) once 100,000 body bytes
/// arrived, and on a second stream once 40,000 did, waiting 0.5 s after each reset (nginx's DATA in
/// flight keeps arriving), then fetches /text.txt to its end on the same connection.
@Suite struct HTTP2CancelTests {
    static let name = "h2-cancel"

    static func time(_ row: TruthTable.Row) -> Double { Double(row["frame.time_epoch"]) ?? .nan }

    /// The cancel is the client's RST_STREAM on the exchange's stream (tshark's decrypted frames); until
    /// the client's next request every HTTP/2 frame tshark shows is the server's DATA on that stream, so
    /// every packet of the connection in that window is the cancelled exchange's (its data, the client's
    /// acknowledgments of it): `after_cancel` per direction is those packets (count, IP, frame and TCP
    /// payload bytes), the connection has no `late_after_seal`, and conservation holds.
    @Test func afterCancelIsWhatTsharkSawAfterTheReset() throws {
        let (writer, result) = try HTTP2Recordings.analysis(Self.name)
        Conservation.check(writer, result)
        let packets = try TruthTable.load(Self.name, "frames.tsv").rows
        let h2 = try TruthTable.load(Self.name, "h2frames.tsv").rows
        var cancelled: [Int] = []
        for record in writer.exchanges {
            let connection = try #require(writer.connections.first { $0.int("id") == record.int("conn.id") })
            #expect(!connection.flagNames.contains("late_after_seal"))
            let port = try #require(connection.port("client"))
            let stream = try #require(record.streamID)
            guard CancelChecks.isCancelled(record, "stream \(stream)") else { continue }
            cancelled.append(stream)
            #expect(record.string("cancel.by") == "client")
            #expect(record.flagNames.contains("response_incomplete") && record.flagNames.contains("reset"), "\(record.flagNames)")
            let reset = try #require(h2.first { $0.int("tcp.srcport") == port && $0.int("streamid") == stream && $0.int("type") == 3 })
            let cancelTime = Self.time(reset)
            let ts = try #require(Double(record["cancel"]?["ts"]?.plainText ?? ""))
            #expect(abs(ts - cancelTime) < 1e-6, "stream \(stream): cancel at \(ts), tshark's RST_STREAM at \(cancelTime)")
            let next = h2.first { Self.time($0) > cancelTime && $0.int("tcp.srcport") == port && $0.int("type") == 1 }.map(Self.time) ?? .infinity
            let inFlight = h2.filter { Self.time($0) > cancelTime && Self.time($0) < next }
            #expect(!inFlight.isEmpty && inFlight.allSatisfy { $0.int("tcp.dstport") == port && $0.int("streamid") == stream && $0.int("type") == 0 },
                    "stream \(stream): after the reset only its DATA, until the next request")
            let window = packets.filter {
                ($0.int("tcp.srcport") == port || $0.int("tcp.dstport") == port) && Self.time($0) > cancelTime && Self.time($0) < next
            }
            for (direction, fromClient) in [("up", true), ("down", false)] {
                let after = window.filter { ($0.int("tcp.srcport") == port) == fromClient }
                let expected = [after.count, after.reduce(0) { $0 + ($1.int("ip.len") ?? 0) },
                                after.reduce(0) { $0 + ($1.int("frame.len") ?? 0) }, after.reduce(0) { $0 + ($1.int("tcp.len") ?? 0) }]
                let ours = ["packets", "ip_bytes", "frame_bytes", "payload_bytes"].map { record.int("wire.\(direction).after_cancel.\($0)") ?? -1 }
                #expect(ours == expected, "stream \(stream) \(direction): after_cancel \(ours), tshark after the reset \(expected)")
            }
        }
        #expect(cancelled == [1, 3])
    }

    /// Each stream's response, the cancelled ones with their DATA in flight after the reset, is what
    /// nginx says it sent (`$bytes_sent`: frames with their headers; `$body_bytes_sent`) and what the
    /// client logged it received on that stream (Σ 9 + length of the frames, DATA payload), in stream
    /// order (nginx logs each request when its stream ends: the resets, then /text.txt).
    @Test func responsesAreWhatNginxSentAndTheClientReceived() throws {
        let (writer, _) = try HTTP2Recordings.analysis(Self.name)
        let nginx = try JSONLines.load(TestPaths.capture(Self.name + ".nginx.jsonl"))
        let client = try JSONLines.load(TestPaths.capture(Self.name + ".h2client.jsonl")).filter { ($0["stream"] as? Int ?? 0) > 0 }
        let exchanges = writer.exchanges.sorted { ($0.streamID ?? 0) < ($1.streamID ?? 0) }
        #expect(exchanges.count == 3 && nginx.count == 3 && client.count == 3)
        for (record, (line, logged)) in zip(exchanges, zip(nginx, client)) {
            let stream = record.streamID ?? -1
            #expect(logged["stream"] as? Int == stream)
            #expect(record.int("response.bytes.total") == line["bytes_sent"] as? Int, "stream \(stream)")
            #expect(record.int("response.bytes.body") == line["body_bytes_sent"] as? Int, "stream \(stream)")
            #expect(record.int("response.status") == line["status"] as? Int, "stream \(stream)")
            let received = logged["in"] as? [String: Any]
            #expect(record.int("response.bytes.total") == received?["frame_bytes"] as? Int, "stream \(stream)")
            #expect(record.int("response.bytes.body") == logged["response_body_bytes"] as? Int, "stream \(stream)")
        }
    }
}

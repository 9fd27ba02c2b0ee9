import Foundation
import Testing
@testable import WireTally

/// HTTP/3 requests the client cancelled (issue 17 §2) against tshark's decrypted QUIC frames and the
/// client's own log, on the recorded `quic-cancel-inflight` capture: through a 30 ms round trip,
/// scripts/lib/h3-peer.py's `cancel` script sends STOP_SENDING on a slow 262,144-byte download once
/// 40,000 body bytes arrived (aioquic's server answers RESET_STREAM; its STREAM frames sent meanwhile
/// still arrive), abandons an upload with RESET_STREAM + STOP_SENDING, then makes a GET on the same
/// connection.
@Suite struct HTTP3CancelTests {
    static let name = "quic-cancel-inflight"

    static func time(_ row: TruthTable.Row) -> Double { Double(row["frame.time_epoch"]) ?? .nan }

    /// One datagram of tshark's view: its time, sender and sizes, and its QUIC frames.
    struct Datagram {
        var time: Double
        var fromClient: Bool
        var ipBytes: Int, frameBytes: Int, payloadBytes: Int
        var frames: [(name: String, stream: Int?)]
    }

    static func datagrams() throws -> [Datagram] {
        var byNumber: [Int: Datagram] = [:]
        for row in try TruthTable.read(TestPaths.capture(name + ".quic-frames.tsv")).rows {
            guard let number = row.int("frame.number"), let udp = row.int("udp.length"), let frame = row.int("frame.len") else { continue }
            let frameEntry = (name: row["frame_name"], stream: row.int("stream_id"))
            if byNumber[number] == nil {
                // Ethernet (14) + IPv4 header (20) precede the UDP header in these captures
                byNumber[number] = Datagram(time: time(row), fromClient: row.int("udp.dstport") == 443, ipBytes: frame - 14,
                                            frameBytes: frame, payloadBytes: udp - 8, frames: [])
            }
            byNumber[number]?.frames.append(frameEntry)
        }
        return byNumber.keys.sorted().compactMap { byNumber[$0] }
    }

    static func totals(_ datagrams: [Datagram]) -> [Int] {
        [datagrams.count, datagrams.reduce(0) { $0 + $1.ipBytes }, datagrams.reduce(0) { $0 + $1.frameBytes },
         datagrams.reduce(0) { $0 + $1.payloadBytes }]
    }

    static func afterCancel(_ record: JSONValue, _ direction: String) -> [Int] {
        ["packets", "ip_bytes", "frame_bytes", "payload_bytes"].map { record.int("wire.\(direction).after_cancel.\($0)") ?? -1 }
    }

    /// The download (stream 0) and the upload (stream 4) are cancelled by the client, at the datagram
    /// carrying its first STOP_SENDING / RESET_STREAM on the stream (tshark's time); the GET after them
    /// (stream 8) is not, and owns nothing after a cancel.
    @Test func cancelsAreTheClientsStopSendingAndResetStream() throws {
        let (writer, result) = try HTTP3RecordingTests.analyze(Self.name)
        Conservation.check(writer, result)
        let datagrams = try Self.datagrams()
        var cancelled: [Int] = []
        for record in writer.exchanges {
            let stream = try #require(record.int("request.stream_id") ?? record.int("response.stream_id"))
            guard CancelChecks.isCancelled(record, "stream \(stream)") else { continue }
            cancelled.append(stream)
            #expect(record.string("cancel.by") == "client")
            let cancel = try #require(datagrams.first { datagram in
                datagram.fromClient && datagram.frames.contains { ($0.name == "STOP_SENDING" || $0.name == "RESET_STREAM") && $0.stream == stream }
            })
            let ts = try #require(Double(record["cancel"]?["ts"]?.plainText ?? ""))
            #expect(abs(ts - cancel.time) < 1e-6, "stream \(stream): cancel at \(ts), tshark's frame at \(cancel.time)")
        }
        #expect(cancelled == [0, 4])
    }

    /// Between the client's STOP_SENDING on the download and its next request every datagram of the
    /// connection is the download's (the server's STREAM frames still in flight, its RESET_STREAM, the
    /// client's acknowledgments): `after_cancel` holds all of them per direction (count, IP, frame and
    /// UDP payload bytes), plus at most the acknowledgment-only datagrams that follow and the share of
    /// the datagram opening the next request that acknowledges the download's packets; the response
    /// keeps every STREAM byte tshark saw (its body is what the client counted, in-flight data
    /// included).
    @Test func inFlightDataAfterTheStopIsTheDownloadsAfterCancel() throws {
        let (writer, _) = try HTTP3RecordingTests.analyze(Self.name)
        let datagrams = try Self.datagrams()
        let record = try #require(writer.exchanges.first { $0.int("request.stream_id") == 0 })
        let cancel = try #require(Double(record["cancel"]?["ts"]?.plainText ?? ""))
        let next = try #require(datagrams.first { $0.time > cancel && $0.fromClient && $0.frames.contains { $0.name == "STREAM" && $0.stream == 4 } })
        let window = datagrams.filter { $0.time > cancel && $0.time < next.time }
        let inFlight = window.filter { !$0.fromClient && $0.frames.contains { $0.name == "STREAM" && $0.stream == 0 } }
        #expect(inFlight.count > 10, "the server's STREAM frames after the stop: \(inFlight.count) datagrams")
        let ackOnlyAfter = datagrams.filter { $0.time > next.time && $0.frames.allSatisfy { $0.name == "ACK" } }
        for (direction, fromClient) in [("up", true), ("down", false)] {
            let least = Self.totals(window.filter { $0.fromClient == fromClient })
            var extra = ackOnlyAfter.filter { $0.fromClient == fromClient }
            if fromClient { extra.append(next) }
            let most = zip(least, Self.totals(extra)).map(+)
            let ours = Self.afterCancel(record, direction)
            #expect(zip(ours, least).allSatisfy(>=) && zip(ours, most).allSatisfy(<=),
                    "\(direction): after_cancel \(ours), tshark between the stop and the next request \(least), at most \(most)")
        }
        let log = try JSONLines.load(TestPaths.capture(Self.name + ".h3client.jsonl"))
        let download = try #require(log.first { $0["record"] as? String == "request" && $0["stream_id"] as? Int == 0 })
        #expect(record.int("response.bytes.body") == download["response_body_bytes"] as? Int)
    }

    /// Without keys (the same capture, no key log) STOP_SENDING and RESET_STREAM are encrypted, and
    /// nothing outside them says that a request was given up — the server's data stops a round trip
    /// after a small client datagram as it does after a complete response — so no estimated exchange
    /// claims a cancel (no `cancelled` flag, `cancel` null, no `after_cancel`), conservation holds, and
    /// the connection's datagrams are tshark's, per direction at every level.
    @Test func withoutKeysNoEstimatedExchangeClaimsACancel() throws {
        let (writer, result) = CollectingWriter.analyze([TestPaths.capture(Self.name + ".pcap")])
        Conservation.check(writer, result)
        #expect(!writer.exchanges.isEmpty)
        for record in writer.exchanges {
            #expect(record.flagNames.contains("estimated"), "\(record.flagNames)")
            #expect(!CancelChecks.isCancelled(record, "estimated exchange \(record.int("conn.index") ?? -1)"))
        }
        let connection = try #require(writer.quicConnections.first)
        #expect(writer.quicConnections.count == 1)
        let datagrams = try Self.datagrams()
        // the data in flight after the stop stays the estimated download's: its response runs past the
        // server's last STREAM frame on stream 0, and the next estimated request begins with the upload
        #expect(writer.exchanges.count == 2, "the upload the server never answered and the GET after it are one estimate")
        let lastData = try #require(datagrams.last { !$0.fromClient && $0.frames.contains { $0.name == "STREAM" && $0.stream == 0 } })
        let upload = try #require(datagrams.first { $0.fromClient && $0.frames.contains { $0.name == "STREAM" && $0.stream == 4 } })
        let responseEnd = try #require(Double(writer.exchanges[0]["response"]?["ts_last"]?.plainText ?? ""))
        let nextRequest = try #require(Double(writer.exchanges[1]["request"]?["ts_first"]?.plainText ?? ""))
        #expect(responseEnd >= lastData.time - 1e-6 && abs(nextRequest - upload.time) < 1e-6,
                "download's response ends \(responseEnd), last data \(lastData.time); next request \(nextRequest), upload \(upload.time)")
        for (direction, fromClient) in [("up", true), ("down", false)] {
            let ours = ["packets", "ip_bytes", "frame_bytes", "payload_bytes"].map { connection.int("\(direction).\($0)") ?? -1 }
            #expect(ours == Self.totals(datagrams.filter { $0.fromClient == fromClient }), "\(direction)")
        }
    }
}

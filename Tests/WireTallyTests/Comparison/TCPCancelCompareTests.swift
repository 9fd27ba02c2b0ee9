import Foundation
import Testing
@testable import WireTally

/// `compare` after a cancel over TCP (issue 17 §2): of the new payload a cancelled exchange got after the
/// client gave up, only the body read after the cancel leaves the body's cause; the rest of the message
/// bytes read after it (HTTP/2 frame headers, chunk framing) leave the framing's cause, the rest of the
/// payload (TLS record headers and tags) `tls_overhead` — as over QUIC (`HTTP3CompareTests`). Truth:
/// tshark's decrypted HTTP/2 frames after each RST_STREAM (`h2-cancel`), its TLS records after the
/// python client's RST (`tls-cancel`, HTTP/1.1 over TLS 1.3), its TCP payload after the client's FIN/RST
/// (`cancel`, clear HTTP/1.1).
@Suite struct TCPCancelCompareTests {
    /// Of a cancelled exchange, the response's bytes after the cancel: on its stream, and body among them.
    struct AfterCancel: Equatable, CustomStringConvertible {
        var stream: Int
        var body: Int
        var description: String { "stream \(stream), body \(body)" }
    }

    /// The server's records on the connection of client port `port` as tshark decrypted them with the
    /// key log (`NAME.tls-records-decrypted.tsv`: a record is listed in the packet completing it): per
    /// application-data record (inner content type 23), when it was complete and its plaintext — the
    /// length as sent less TLS 1.3's AEAD tag (16) and inner content type (1; OpenSSL adds no padding).
    static func serverPlaintext(_ name: String, port: Int) throws -> [(time: Double, bytes: Int)] {
        var records: [(time: Double, bytes: Int)] = []
        for row in try TruthTable.load(name, "tls-records-decrypted.tsv").rows where row.int("tcp.dstport") == port {
            let types = row["tls.record.content_type"].split(separator: ","), lengths = row["tls.record.length"].split(separator: ",")
            for (type, length) in zip(types, lengths) where type == "23" { records.append((CancelTests.time(row), (Int(length) ?? 0) - 17)) }
        }
        return records
    }

    /// `h2-cancel`, per cancelled stream: the bytes of its frames from the server that tshark's decrypted
    /// records delivered after the client's RST_STREAM — the server's plaintext laid out as tshark's
    /// HTTP/2 frames (`h2frames.tsv`, in order from the first byte), cut where the records complete
    /// after the reset (a frame one record began before it counts from there); DATA frames only,
    /// unpadded: body = their payload bytes after the cut.
    static func h2Truth() throws -> [Int: AfterCancel] {
        let name = "h2-cancel", port = 50734
        let frames = try TruthTable.load(name, "h2frames.tsv").rows
        let records = try serverPlaintext(name, port: port)
        #expect(records.reduce(0) { $0 + $1.bytes }
                == frames.filter { $0.int("tcp.srcport") == 8443 }.reduce(0) { $0 + 9 + ($1.int("length") ?? 0) },
                "the server's plaintext is its HTTP/2 frames")
        var truth: [Int: AfterCancel] = [:]
        for reset in frames where reset.int("type") == 3 && reset.int("tcp.srcport") == port {
            let stream = try #require(reset.int("streamid"))
            let cut = records.filter { $0.time < CancelTests.time(reset) }.reduce(0) { $0 + $1.bytes }
            var offset = 0, after = AfterCancel(stream: 0, body: 0)
            for frame in frames where frame.int("tcp.srcport") == 8443 {
                let start = offset, end = offset + 9 + (frame.int("length") ?? 0)
                offset = end
                guard frame.int("streamid") == stream, end > cut else { continue }
                #expect(frame.int("type") == 0 && (frame.int("pad_length") ?? 0) == 0, "stream \(stream): unpadded DATA after the reset")
                after.stream += end - max(start, cut)
                after.body += end - max(start + 9, cut)
            }
            truth[stream] = after
        }
        return truth
    }

    /// `tls-cancel`, the connection of client port `port`: the plaintext of the server's records tshark
    /// decrypted after the client's first FIN/RST; the response's head came before: all of it is body.
    static func tlsTruth(port: Int) throws -> AfterCancel {
        let close = try CancelTests.clientClose("tls-cancel", port: port)
        let plaintext = try serverPlaintext("tls-cancel", port: port).filter { $0.time > close }.reduce(0) { $0 + $1.bytes }
        return AfterCancel(stream: plaintext, body: plaintext)
    }

    /// `cancel`, the connection of client port `port`: the server's TCP payload after the client's first
    /// FIN/RST (no retransmission in the recording); the responses have a Content-Length: all body.
    static func clearTruth(port: Int) throws -> AfterCancel {
        let close = try CancelTests.clientClose("cancel", port: port)
        let payload = try CancelTests.frames("cancel", port: port)
            .filter { $0.int("tcp.srcport") == 80 && CancelTests.time($0) > close }.reduce(0) { $0 + ($1.int("tcp.len") ?? 0) }
        return AfterCancel(stream: payload, body: payload)
    }

    static func collect(_ name: String, keys: Bool) throws -> EstimatorCollector {
        var options = CaptureAnalyzer.Options()
        if keys { options.tlsKeys = try TLSKeyStore.reading(files: [TestPaths.capture(name + ".keys")]) }
        return EstimatorCollector.analyze([TestPaths.capture(name + ".pcap")], options: options)
    }

    /// One cancelled exchange against its truth: its bytes after the cancel, `metrics`' unread bytes, and
    /// per level the causes adding up to the gap: `metrics` (what the app read) has no body cause; for
    /// `http` (the response as sent) the packets after the cancel move out of the causes they fall under
    /// without it — the body after the cancel out of the body's cause, the rest of the message bytes
    /// after it out of `framing`, the rest of their payload out of `carrier` (`tls_overhead`, `other`
    /// on clear TCP).
    static func check(_ collected: (exchange: HTTPExchange, connection: ExchangeConnection), _ truth: AfterCancel,
                      framing: String, carrier: String, _ label: String) throws {
        let exchange = collected.exchange
        #expect(exchange.cancelledAt != nil, "\(label)")
        let ours = AfterCancel(stream: exchange.afterCancelStreamBytes.down, body: exchange.afterCancelBodyBytes.down)
        #expect(ours == truth, "\(label): ours \(ours), tshark \(truth)")
        #expect(exchange.unreadResponseBytes == truth.body, "\(label)")
        #expect(exchange.afterCancelStreamBytes.up == 0, "\(label): the request was over before the cancel")
        var notCancelled = exchange
        notCancelled.cancelledAt = nil
        let after = collected.connection.wire.afterClientClose.down
        let payloadAfter = after.payload.payloadBytes - after.duplicateBytesInPayloadPackets
        for level in WireLevel.allCases {
            for estimator in [Estimator.metrics, .http] {
                let gap = try #require(GapAttribution(exchange: exchange, connection: collected.connection, estimator: estimator, level: level))
                let causes = gap.byCause
                #expect(gap.causeTotal == gap.gap && causes["after_cancel"]! > 0, "\(label) \(level) \(estimator)")
                let body = causes["compression_estimate"]! + causes["body_length"]!
                #expect(body == (estimator == .metrics ? 0 : -truth.body), "\(label) \(level) \(estimator): \(causes)")
                guard estimator == .http else { continue }
                let plain = try #require(GapAttribution(exchange: notCancelled, connection: collected.connection, estimator: .http, level: level)).byCause
                #expect(causes[framing]! - plain[framing]! == truth.body - truth.stream, "\(label) \(level): \(causes) vs \(plain)")
                #expect(causes[carrier]! - plain[carrier]! == truth.stream - payloadAfter, "\(label) \(level): \(causes) vs \(plain)")
            }
        }
    }

    /// HTTP/2 over TLS: the DATA frames after each RST_STREAM — the frame headers leave `http2_framing`,
    /// the payload the body's cause, the record headers and tags `tls_overhead`. Fails on the code
    /// before: the whole new payload left the body's cause.
    @Test func http2CancelLeavesOnlyTheDataPayloadToTheBodyCause() throws {
        let truth = try Self.h2Truth()
        #expect(truth.count == 2 && truth.values.allSatisfy { $0.body > 0 }, "\(truth)")
        let collector = try Self.collect("h2-cancel", keys: true)
        for (stream, after) in truth {
            let collected = try #require(collector.allExchanges.first { $0.exchange.response?.http2?.streamID == UInt32(stream) })
            try Self.check(collected, after, framing: "http2_framing", carrier: "tls_overhead", "stream \(stream)")
        }
    }

    /// HTTP/1.1 over TLS 1.3: the python client's RST with unread data, nginx's records still arriving —
    /// their plaintext is body, the record headers and tags leave `tls_overhead`. curl's cancel (FIN
    /// after nginx's last burst) has no payload after it.
    @Test func tlsCancelLeavesOnlyThePlaintextToTheBodyCause() throws {
        let client = try JSONLines.load(TestPaths.capture("tls-cancel.ssl-client.jsonl"))
        let collector = try Self.collect("tls-cancel", keys: true)
        let port = try #require(client.first?["local_port"] as? Int)
        let truth = try Self.tlsTruth(port: port)
        #expect(truth.body > 10_000, "\(truth)")
        let collected = try #require(collector.allExchanges.first { $0.connection.transport == .tcp && $0.connection.clientPort == UInt16(port) })
        try Self.check(collected, truth, framing: "chunk_framing", carrier: "tls_overhead", ":\(port)")
    }

    /// Clear HTTP/1.1 (`cancel`): the python client's RST with unread data — nginx's payload after it is
    /// body (Content-Length), nothing is left to `other`.
    @Test func clearCancelLeavesThePayloadToTheBodyCause() throws {
        let collector = try Self.collect("cancel", keys: false)
        let truth = try Self.clearTruth(port: 44124)
        #expect(truth.body > 10_000, "\(truth)")
        let collected = try #require(collector.allExchanges.first { $0.connection.transport == .tcp && $0.connection.clientPort == 44124 })
        try Self.check(collected, truth, framing: "chunk_framing", carrier: "other", ":44124")
    }
}

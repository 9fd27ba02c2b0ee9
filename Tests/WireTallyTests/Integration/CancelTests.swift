import Foundation
import Testing
@testable import WireTally

/// Cancelled requests (issue 17 §2) against tshark and the programs' own logs, on the recorded `cancel`
/// capture — through a 30 ms round trip, curl `--max-time 1` gives up on a rate-limited 1 MB download
/// (FIN after its last read: only the teardown follows) and a python client closes with unread data
/// (its kernel's RST; a round trip of nginx's data still arrives, each segment drawing another RST) —
/// on `resets` (curl `--max-time`, a python client's RST with `SO_LINGER 0`), and on `tls-cancel` (the
/// python client over TLS 1.3, decrypted with the key log).
@Suite struct CancelTests {
    /// The exchanges each capture has cancelled, by the client's port: every other exchange is not.
    static let cancelledPorts: [String: Set<Int>] = ["cancel": [37090, 44124], "resets": [54698, 54700], "tls-cancel": [39608]]

    /// tshark's frames of the TCP connection on client port `port`, in capture order.
    static func frames(_ name: String, port: Int) throws -> [TruthTable.Row] {
        try TruthTable.load(name, "frames.tsv").rows.filter { $0.int("tcp.srcport") == port || $0.int("tcp.dstport") == port }
    }

    static func time(_ row: TruthTable.Row) -> Double { Double(row["frame.time_epoch"]) ?? .nan }

    /// The time of the client's first FIN or RST on the connection of client port `port` (tshark's frames).
    static func clientClose(_ name: String, port: Int) throws -> Double {
        time(try #require(try frames(name, port: port).first { row in
            row.int("tcp.srcport") == port && (Int(row["tcp.flags"].dropFirst(2), radix: 16) ?? 0) & 0x5 != 0  // FIN or RST
        }))
    }

    /// The cancel is the client's first FIN or RST; `after_cancel` per direction is every frame tshark
    /// shows after it (packets, IP, frame and TCP payload bytes); the exchange keeps them (no
    /// `late_after_seal`), and conservation holds.
    @Test(arguments: ["cancel", "resets", "tls-cancel"])
    func afterCancelIsWhatTsharkSawAfterTheCancel(_ name: String) throws {
        var options = CaptureAnalyzer.Options()
        let keys = TestPaths.capture(name + ".keys")
        if FileManager.default.fileExists(atPath: keys) { options.tlsKeys = try TLSKeyStore.reading(files: [keys]) }
        let (writer, result) = CollectingWriter.analyze([TestPaths.capture(name + ".pcap")], options: options)
        Conservation.check(writer, result)
        var cancelled: Set<Int> = []
        for record in writer.exchanges {
            let connection = try #require(writer.connections.first { $0.int("id") == record.int("conn.id") })
            let port = try #require(connection.string("client")?.split(separator: ":").last.flatMap { Int($0) })
            #expect(!connection.flagNames.contains("late_after_seal"), "\(name) :\(port)")
            guard CancelChecks.isCancelled(record, "\(name) :\(port)") else { continue }
            cancelled.insert(port)
            #expect(record.string("cancel.by") == "client")
            #expect(record.flagNames.contains("response_incomplete"), "\(name) :\(port): a cancelled response is incomplete")
            let rows = try Self.frames(name, port: port)
            let cancelTime = try Self.clientClose(name, port: port)
            let ts = try #require(Double(record["cancel"]?["ts"]?.plainText ?? ""))
            #expect(abs(ts - cancelTime) < 1e-6, "\(name) :\(port): cancel at \(ts), tshark's first client FIN/RST at \(cancelTime)")
            for (direction, fromClient) in [("up", true), ("down", false)] {
                let after = rows.filter { Self.time($0) > cancelTime && ($0.int("tcp.srcport") == port) == fromClient }
                let expected = [after.count, after.reduce(0) { $0 + ($1.int("ip.len") ?? 0) },
                                after.reduce(0) { $0 + ($1.int("frame.len") ?? 0) }, after.reduce(0) { $0 + ($1.int("tcp.len") ?? 0) }]
                let ours = ["packets", "ip_bytes", "frame_bytes", "payload_bytes"].map { record.int("wire.\(direction).after_cancel.\($0)") ?? -1 }
                #expect(ours == expected, "\(name) :\(port) \(direction): after_cancel \(ours), tshark after the cancel \(expected)")
            }
        }
        #expect(cancelled == Self.cancelledPorts[name], "\(name): cancelled \(cancelled.sorted())")
    }

    /// The cancelled downloads of `cancel`: the response's bytes are nginx's `$bytes_sent` (what it
    /// wrote, in-flight data included, more than the client read: curl's `size_download`, the python
    /// client's `bytes_received`), status 200, `$request_length` the request.
    @Test func cancelledResponsesMatchNginx() throws {
        let (writer, _) = CollectingWriter.analyze([TestPaths.capture("cancel.pcap")])
        let nginx = try JSONLines.load(TestPaths.capture("cancel.nginx.jsonl"))
        var read: [Int: Int] = [:]
        for line in try JSONLines.load(TestPaths.capture("cancel.curl.jsonl")) {
            if let port = line["local_port"] as? Int, let size = line["size_download"] as? Int { read[port] = size }
        }
        for line in try JSONLines.load(TestPaths.capture("cancel.client.jsonl")) {
            if let port = line["local_port"] as? Int, let size = line["bytes_received"] as? Int { read[port] = size }
        }
        var compared = 0
        for record in writer.exchanges where record.flagNames.contains("cancelled") {
            let connection = try #require(writer.connections.first { $0.int("id") == record.int("conn.id") })
            let port = try #require(connection.string("client")?.split(separator: ":").last.flatMap { Int($0) })
            let line = try #require(nginx.first { $0["remote_port"] as? Int == port })
            #expect(record.int("response.bytes.total") == line["bytes_sent"] as? Int, ":\(port)")
            #expect(record.int("request.bytes.total") == line["request_length"] as? Int, ":\(port)")
            #expect(record.int("response.status") == line["status"] as? Int, ":\(port)")
            // what the client read: the headers and the body it counted, at most what was sent
            let body = try #require(read[port])
            #expect(body <= (record.int("response.bytes.body") ?? 0), ":\(port)")
            compared += 1
        }
        #expect(compared == 2)
        // the python client closed with unread data: nginx's data kept arriving after its RST
        let python = try #require(writer.exchanges.first { record in
            writer.connections.first { $0.int("id") == record.int("conn.id") }?.string("client")?.hasSuffix(":44124") == true
        })
        #expect((python.int("wire.down.after_cancel.payload_bytes") ?? 0) > 10_000)
    }

    /// `compare`'s `after_cancel` cause: per estimator and level, the cancelled exchange's bytes after
    /// the cancel (its `after_cancel` at that level), taken out of the other causes so the sum is still
    /// the gap; 0 for exchanges that were not cancelled.
    @Test func compareNamesTheBytesAfterTheCancel() throws {
        let collector = EstimatorCollector.analyze([TestPaths.capture("cancel.pcap")])
        var cancelled = 0
        for level in WireLevel.allCases {
            for estimator in Estimator.allCases {
                for collected in collector.allExchanges {
                    guard let gap = GapAttribution(exchange: collected.exchange, connection: collected.connection,
                                                   estimator: estimator, level: level) else { continue }
                    #expect(gap.causeTotal == gap.gap)
                    let wire = collected.connection.wire
                    let after = collected.exchange.cancelledAt == nil ? 0
                        : level.value(wire.afterClientClose.up.total) + level.value(wire.afterClientClose.down.total)
                    #expect(gap.byCause["after_cancel"] == after, "\(level) \(estimator) #\(collected.exchange.index)")
                    if after > 0 { cancelled += 1 }
                }
            }
        }
        #expect(cancelled > 0)
    }

    /// With a settle time (`live`, `--settle`), the python client's cancelled download is written once
    /// nginx's in-flight data has stopped arriving for that long, before the later transfers — not 60 s
    /// after (the closed-connection linger) — with the same `after_cancel` as offline.
    @Test func settledCancelIsWrittenWhenTheServersPacketsStop() throws {
        var options = CaptureAnalyzer.Options()
        options.limits.settleNanoseconds = 300_000_000
        let (settled, result) = CollectingWriter.analyze([TestPaths.capture("cancel.pcap")], options: options)
        Conservation.check(settled, result)
        let (offline, _) = CollectingWriter.analyze([TestPaths.capture("cancel.pcap")])
        let order = settled.exchanges.map { $0.string("request.target") ?? "" }
        #expect(order == ["/cancel/blob.bin", "/cancel/blob.bin", "/text.txt"])
        #expect(settled.exchanges.map(\.flagNames) == offline.exchanges.map(\.flagNames))
        for direction in ["up", "down"] {
            #expect(settled.exchanges.map { $0.int("wire.\(direction).after_cancel.ip_bytes") }
                    == offline.exchanges.map { $0.int("wire.\(direction).after_cancel.ip_bytes") })
        }
        // the settled python download's record came before the close-delimited transfer began
        let python = try #require(settled.exchanges.firstIndex { ($0.int("response.bytes.total") ?? 0) == 164_099 })
        #expect(python == 1)
    }

    /// The close-delimited gzip response of `cancel` (curl `--http1.0`, 30 ms round trip) ends with
    /// nginx's FIN: `receive` and `total` reach the FIN frame, and the exchange is not cancelled (the
    /// client's FIN came after the server's).
    @Test func closeDelimitedResponseEndsAtTheServersFIN() throws {
        let (writer, _) = CollectingWriter.analyze([TestPaths.capture("cancel.pcap")])
        let record = try #require(writer.exchanges.first { $0.flagNames.contains("response_close_delimited") })
        let connection = try #require(writer.connections.first { $0.int("id") == record.int("conn.id") })
        let port = try #require(connection.string("client")?.split(separator: ":").last.flatMap { Int($0) })
        let rows = try Self.frames("cancel", port: port)
        let fin = try #require(rows.first { $0.int("tcp.dstport") == port && (Int($0["tcp.flags"].dropFirst(2), radix: 16) ?? 0) & 0x1 != 0 })
        let first = try #require(Double(record["response"]?["ts_first"]?.plainText ?? ""))
        let receive = try #require(Double(record["timing"]?["receive"]?.plainText ?? ""))
        #expect(abs(first + receive / 1000 - Self.time(fin)) < 2e-6, "receive ends at \(first + receive / 1000), the FIN came at \(Self.time(fin))")
        #expect(!record.flagNames.contains("cancelled"))
    }
}

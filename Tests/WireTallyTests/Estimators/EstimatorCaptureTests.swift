import Foundation
import Testing
@testable import WireTally

/// The estimators on the recorded captures: `http` against nginx's own counts, and the gap by cause
/// adding up exactly for every request, estimator and level.
@Suite struct EstimatorCaptureTests {
    static let all = TestPaths.recordedCaptures(beside: ".pcap")

    @Test(arguments: HTTPWireTruthTests.withNginxLog)
    func httpEstimatorEqualsNginx(_ name: String) throws {
        let collector = EstimatorCollector.analyze([TestPaths.capture(name + ".pcap")])
        let index = HTTPWireTruthTests.Indexed(collector.records)
        let log = try NginxLog.load(TestPaths.capture(name + ".nginx.jsonl"))
        // Documented exclusions (captures/README.md): HTTP/2 requests (nginx's HTTP/2 counters are not
        // the messages on the stream: `$request_length` has no frame headers, `$bytes_sent` no control
        // frames but the PUSH_PROMISEs sent on the stream; HTTP2TruthTests compares them with the
        // records) and nginx's `return 444` (no response; HTTPWireTruthTests checks its header bytes).
        // TLS 1.2 CBC (tls-ciphers, tls-lossy): the padding length of every record is encrypted, so the
        // keyless plaintext is an estimate (HTTPWireTruthTests, TLSRecordCipherRecordingTests).
        // TLS 1.3 0-RTT (tls-edge): the request read from early data and its response, which nginx sent
        // before the client's Finished, are not separable from the handshake without keys
        // (HTTPWireTruthTests names the measured difference).
        let excluded = log.filter { $0.isHTTP2 || $0.status == 444 || $0.isCBC || $0.earlyData }
        let excludedHTTP1 = excluded.filter { !$0.isHTTP2 }
        #expect(!log.isEmpty && (excludedHTTP1.isEmpty || ["resets", "tls-ciphers", "tls-lossy", "tls-edge"].contains(name)), "\(name): \(excludedHTTP1.count) excluded")
        let truth = try TLSRecordTruth.loadIfRecorded(name)
        var compared = 0
        for entry in log where !entry.isHTTP2 && entry.status != 444 && !entry.isCBC && !entry.earlyData {
            guard let record = index.find(port: entry.clientPort, index: entry.connectionRequests - 1, near: entry.time),
                  let id = record.int("id"), let (exchange, _) = collector.byID[id]
            else {
                Issue.record("\(name): no exchange for \(entry.uri) from port \(entry.clientPort)")
                continue
            }
            let estimate = try #require(Estimator.http.estimate(exchange))
            // HTTPS: records that are not HTTP ride in the keyless estimate's bursts, measured from the
            // truth files (TLSRecordTruth): TLS 1.3 NewSessionTickets sent after the request, KeyUpdates
            // (tls-ciphers: openssl s_client's start the next request, nginx's precede its response) and
            // the encrypted close_notify after the last response
            var tlsTruth: TLSRecordTruth?
            if entry.isTLS {
                let recorded: TLSRecordTruth = try #require(truth, "\(name): TLS truth files")
                tlsTruth = recorded
            }
            let notHTTPUp = tlsTruth?.requestKeyUpdatePlaintext(entry) ?? 0
            #expect(estimate.up == entry.requestLength + notHTTPUp, "\(name) \(entry.uri) up")
            let down = estimate.down
            if record.flagNames.contains("response_incomplete") || record.flagNames.contains("no_response") {
                #expect(down <= entry.bytesSent)  // nginx counts what it handed to its kernel
            } else {
                let notHTTPDown = try tlsTruth?.plaintextNotHTTP(in: entry, of: log) ?? 0
                #expect(down == entry.bytesSent + notHTTPDown, "\(name) \(entry.uri) from port \(entry.clientPort) #\(entry.connectionRequests) down")
            }
            compared += 1
        }
        #expect(compared == log.count - excluded.count, "\(name): every nginx line but the excluded compared")
    }

    /// `other` takes what no named cause explains, so `causeTotal == gap` (above) holds by construction
    /// and proves nothing about the causes. What `other` may hold is therefore pinned down per capture,
    /// from sources outside wiretally:
    /// - `naive`, `metrics`, `http`: zero, except payload a client kept sending after the server had
    ///   reset the connection (on the wire, never delivered to a parser: `resets`' 64 KB POST to nginx's
    ///   `return 444`), measured as TCP payload after the server's RST in tshark's `frames.tsv` (a
    ///   server's data after the client's reset is a cancelled response, read: `cancel`). On HTTP/2
    ///   connections parsed without keys (h2c) the frames that are no message's header block, body or
    ///   framing — the preface, connection-level frames (SETTINGS, PING, GOAWAY, stream-0
    ///   WINDOW_UPDATE, unknown types, frames of no open stream) and the streams' control frames
    ///   (WINDOW_UPDATE, RST_STREAM, PRIORITY), counted from tshark's `h2frames.tsv` — are not `other`
    ///   but `http2_framing`, exactly, for the `http` estimator (no estimator models them: an app never
    ///   sees them);
    /// - `rebuilt`: that, plus the documented start-line rebuild, checked where nginx logged every
    ///   request: per request `"{host} {method} {path} HTTP/1.1 {query}\n"` against the request line
    ///   (`−len(Host)`, one byte less without a query), per response +2 (the status line's CRLF is
    ///   not counted), with Host and URI from nginx's `$http_host` and `$request_uri`.
    @Test(arguments: all)
    func otherIsOnlyWhatNoCauseNames(_ name: String) throws {
        let collector = EstimatorCollector.analyze([TestPaths.capture(name + ".pcap")])
        let afterReset = try TsharkConversation.clientPayloadAfterServerReset(TestPaths.capture(name + ".frames.tsv"))
        #expect(afterReset == 0 || name == "resets", "\(name): \(afterReset) bytes after a reset")
        let http2 = try Self.http2BytesNoMessageHas(name, collector.records)
        let nginxPath = TestPaths.capture(name + ".nginx.jsonl")
        let nginx = FileManager.default.fileExists(atPath: nginxPath) ? try NginxLog.load(nginxPath) : []
        var rebuiltChecked = false
        for level in WireLevel.allCases {
            for report in collector.run(level: level).reports() where report.requestCount > 0 {
                let other = report.gapByCause["other"] ?? 0
                if report.estimator == .http {
                    // what the `http` estimator leaves of HTTP/2 is exactly its connection-level and control frames
                    #expect(report.gapByCause["http2_framing"] == http2, "\(name) \(level) http2_framing")
                }
                guard report.estimator == .rebuilt else {
                    #expect(other == afterReset, "\(name) \(level) \(report.name)")
                    continue
                }
                // Every exchange must be one nginx logged over HTTP/1.x, with a response, for the rebuild's
                // figure (its request line formula is HTTP/1's).
                guard nginx.count == report.requestCount, nginx.allSatisfy({ $0.status != 444 && !$0.isHTTP2 }) else { continue }
                let startLines = nginx.reduce(0) { $0 - $1.host.utf8.count - ($1.uri.contains("?") ? 0 : 1) + 2 }
                #expect(other == afterReset + startLines, "\(name) \(level) rebuilt")
                rebuiltChecked = true
            }
        }
        // The rebuild's figure is checked wherever nginx saw every request over plain HTTP.
        let plainNginx = !nginx.isEmpty && nginx.allSatisfy { !$0.isTLS && !$0.isHTTP2 && $0.status != 444 } && name != "resets"
        #expect(rebuiltChecked == plainNginx, "\(name)")
    }

    /// The bytes of the HTTP/2 connections we parsed without keys (h2c) that are no message's header
    /// block, body or framing, from tshark's frames (`TsharkH2Connection`).
    static func http2BytesNoMessageHas(_ name: String, _ records: CollectingWriter) throws -> Int {
        guard FileManager.default.fileExists(atPath: TestPaths.capture(name + ".h2frames.tsv")) else { return 0 }
        var bytes = 0
        for tshark in try TsharkH2Frames.load(name).connections {
            let exchanges = records.exchanges.filter { $0.port("conn.client") == tshark.clientPort }
            guard records.connections.contains(where: { $0.port("client") == tshark.clientPort }), !exchanges.isEmpty else { continue }
            let upgraded = exchanges.contains { $0.flagNames.contains("upgraded") }
            let owners = tshark.attribute(upgradedStream1: upgraded).owners
            for (frame, owner) in zip(tshark.frames, owners) where owner == nil || [2, 3, 8].contains(frame.type) {
                bytes += frame.size
            }
        }
        return bytes
    }

    /// A request line in three segments (synthetic): every byte is the request's exchange's, none is
    /// left unattributed, and `other` is zero.
    @Test func requestLineInThreeSegments() throws {
        let client = "10.9.0.1:40000", server = "10.9.0.2:80"
        let request = ascii("GET /index.html HTTP/1.1\r\nHost: a\r\n\r\n")
        let response = ascii("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi")
        var frames = [
            FrameBuilder.tcp(from: client, to: server, seq: 1000, flags: [.syn]),
            FrameBuilder.tcp(from: server, to: client, seq: 7000, ack: 1001, flags: [.syn, .ack]),
            FrameBuilder.tcp(from: client, to: server, seq: 1001, ack: 7001, flags: [.ack]),
        ]
        var seq: UInt32 = 1001
        for piece in [request[0..<7], request[7..<19], request[19...]] {
            frames.append(FrameBuilder.tcp(from: client, to: server, seq: seq, ack: 7001, flags: [.ack, .psh], payload: Array(piece)))
            frames.append(FrameBuilder.tcp(from: server, to: client, seq: 7001, ack: seq + UInt32(piece.count), flags: [.ack]))
            seq += UInt32(piece.count)
        }
        frames.append(FrameBuilder.tcp(from: server, to: client, seq: 7001, ack: seq, flags: [.ack, .psh], payload: response))
        let path = try EstimatorFixtures.write(FrameBuilder.pcap(frames: frames, link: .ethernet), name: "split-request-line")
        let collector = EstimatorCollector.analyze([path])
        let (exchange, connection) = try #require(collector.exchanges.first)
        #expect(collector.exchanges.count == 1)
        #expect(connection.wire.tally(.up).payload.payloadBytes == request.count)
        let ledger = try #require(collector.connections[connection.id]?.ledger)
        #expect(ledger.unattributed(.up).packets == 0)
        // The server's ACKs of the first two pieces wait for the verdict too: the exchange's.
        #expect(ledger.unattributed(.down).packets == 0)
        let gap = try #require(GapAttribution(exchange: exchange, connection: connection, estimator: .http, level: .ip))
        #expect(gap.byCause["other"] == 0)
    }

    /// The split-writes connection of `nginx-pipelining` sends its first request line in three segments
    /// (7, 12 and 26 bytes, `write_sizes` in the client log): all of them belong to exchange 0, whose
    /// stream bytes are the 102 bytes the client wrote for it (they went to the unattributed rest while
    /// the start line was incomplete).
    @Test func requestLineSplitOverSegmentsIsAttributedToItsExchange() throws {
        let collector = EstimatorCollector.analyze([TestPaths.capture("nginx-pipelining.pcap")])
        let nginx = try NginxLog.load(TestPaths.capture("nginx-pipelining.nginx.jsonl"))
        let port = try #require(nginx.last?.clientPort)
        let exchanges = collector.exchanges.filter { $0.connection.clientPort == port }
        #expect(exchanges.count == nginx.filter { $0.clientPort == port }.count)
        for (exchange, connection) in exchanges {
            let line = try #require(nginx.first { $0.clientPort == port && $0.connectionRequests == exchange.index + 1 })
            let wire = connection.wire.tally(.up)
            #expect(wire.payload.payloadBytes == line.requestLength, "#\(exchange.index)")
        }
        let connection = try #require(exchanges.first.flatMap { collector.connections[$0.connection.id] })
        #expect(connection.ledger.unattributed(.up).payloadBytes == 0)
    }

    /// The causes add up to the gap. This holds by construction (`other` takes the rest), so it only
    /// guards the bookkeeping; `otherIsOnlyWhatNoCauseNames` checks what `other` holds.
    @Test(arguments: all)
    func gapByCauseAddsUpExactly(_ name: String) throws {
        let collector = EstimatorCollector.analyze([TestPaths.capture(name + ".pcap")])
        for level in WireLevel.allCases {
            let run = collector.run(level: level)
            for report in run.reports() {
                for collected in collector.allExchanges {
                    guard let estimator = report.estimator, let gap = GapAttribution(
                        exchange: collected.exchange, connection: collected.connection, estimator: estimator, level: level)
                    else { continue }
                    #expect(gap.causeTotal == gap.gap, "\(name) \(level) \(estimator) #\(collected.exchange.index): \(gap.byCause)")
                }
                for request in report.worst { #expect(request.gap.gap == -request.errorBytes) }
                let total = report.gapByCause.values.reduce(0, +)
                // over up and down together (at IP level they include the DNS lookups)
                #expect(total == report.wireUp + report.wireDown - report.estimatedUp - report.estimatedDown)
                // The JSON says the same.
                let json = report.json
                let causes = GapAttribution.causes.compactMap { json["gap_by_cause"]?.int($0) }
                #expect(causes.count == GapAttribution.causes.count)
                #expect(causes.reduce(0, +) == -(json.int("total.error_bytes") ?? 0))
                #expect(json.int("requests") == report.requestCount)
                #expect(report.requestCount + report.skipped == collector.allExchanges.count)
                if level != .ip { #expect(report.dnsWire == 0) }
                if level == .payload {
                    #expect((report.gapByCause["tcp_ip_headers"] ?? 0) == 0 && (report.gapByCause["pure_acks"] ?? 0) == 0)
                }
            }
        }
    }

    /// Exchanges' wire at every level adds up (with the connections' unattributed rest) to the
    /// connections' totals: the estimators compare with exactly the ledger's figures. Both sides come
    /// from the ledger, so the totals are also set against tshark's IP bytes per direction
    /// (`frames.tsv`, recorded with the capture).
    @Test func wireTotalsAreTheLedgers() throws {
        let collector = EstimatorCollector.analyze([TestPaths.capture("nginx-curl-keepalive.pcap")])
        let report = try #require(collector.run(level: .ip).reports().first { $0.estimator == .http })
        let exchangeConnections = Set(collector.exchanges.map(\.connection.id))
        let connections = collector.connections.filter { exchangeConnections.contains($0.key) }
        let up = connections.values.reduce(0) { $0 + $1.ledger.tally(.up).total.ipBytes - $1.ledger.unattributed(.up).ipBytes }
        let down = connections.values.reduce(0) { $0 + $1.ledger.tally(.down).total.ipBytes - $1.ledger.unattributed(.down).ipBytes }
        #expect(report.wireUp == up && report.wireDown == down)
        let tshark = try TsharkConversation.load(TestPaths.capture("nginx-curl-keepalive.frames.tsv"))
        #expect(tshark.count == connections.count)
        let unattributedUp = connections.values.reduce(0) { $0 + $1.ledger.unattributed(.up).ipBytes }
        let unattributedDown = connections.values.reduce(0) { $0 + $1.ledger.unattributed(.down).ipBytes }
        // The client opens every connection: tshark's A side is the client.
        #expect(report.wireUp + unattributedUp == tshark.reduce(0) { $0 + $1.fromA[2] })
        #expect(report.wireDown + unattributedDown == tshark.reduce(0) { $0 + $1.fromB[2] })
    }

    /// The `http` estimator on cleartext: only network causes remain (nothing in the HTTP layer).
    @Test func httpEstimatorLeavesOnlyNetworkCauses() throws {
        let collector = EstimatorCollector.analyze([TestPaths.capture("nginx-curl-keepalive.pcap")])
        let report = try #require(collector.run(level: .ip).reports().first { $0.estimator == .http })
        let causes = report.gapByCause
        for cause in ["hidden_headers", "cookies", "compression_estimate", "body_length", "chunk_framing", "tls_overhead", "other", "dns"] {
            #expect(causes[cause] == 0, "\(cause)")
        }
        #expect(causes["tcp_ip_headers"]! > 0 && causes["setup_teardown"]! > 0 && causes["pure_acks"]! > 0)
        let payload = try #require(collector.run(level: .payload).reports().first { $0.estimator == .http })
        #expect(payload.gapByCause.values.allSatisfy { $0 == 0 })
    }

    @Test func lossyCaptureHasRetransmissions() throws {
        let collector = EstimatorCollector.analyze([TestPaths.capture("lossy.pcap")])
        for level in WireLevel.allCases {
            let report = try #require(collector.run(level: level).reports().first { $0.estimator == .metrics })
            #expect(report.gapByCause["retransmissions"]! > 0, "\(level)")
        }
    }

    @Test func dnsCaptureCountsTheLookup() throws {
        let collector = EstimatorCollector.analyze([TestPaths.capture("dns-http.pcap")])
        let report = try #require(collector.run(level: .ip).reports().first { $0.estimator == .naive })
        #expect(report.gapByCause["dns"]! > 0)
        #expect(report.dnsWire == collector.exchanges.reduce(0) { $0 + $1.exchange.dnsIPBytes })
        #expect(report.json.int("dns.wire") == report.dnsWire)
        // The lookups are inside up/down wire (queries up, answers down), so the causes add up over
        // up and down together, as the report contract says.
        let exchanges = collector.exchanges.filter { EstimateBreakdown.isEncrypted($0.exchange) == false }
        let ledger = exchanges.reduce(0) { total, collected in
            let wire = collected.connection.wire
            return total + wire.tally(.up).total.ipBytes + wire.tally(.down).total.ipBytes
        }
        #expect(report.wireUp + report.wireDown == ledger + report.dnsWire)
    }

    @Test(arguments: ["tls12-http1", "tls13-http1"])
    func tlsCapturesSplitTheRecordOverhead(_ name: String) throws {
        let collector = EstimatorCollector.analyze([TestPaths.capture(name + ".pcap")])
        #expect(collector.exchanges.count == (try NginxLog.load(TestPaths.capture(name + ".nginx.jsonl"))).count)
        let reports = collector.run(level: .ip).reports()
        let http = try #require(reports.first { $0.estimator == .http })
        #expect(http.gapByCause["tls_overhead"]! > 0 && http.skipped == 0)
        #expect(http.gapByCause["other"] == 0 && http.gapByCause["hidden_headers"] == 0)
        let naive = try #require(reports.first { $0.estimator == .naive })
        #expect(naive.requestCount == 0 && naive.skipped == collector.exchanges.count)
    }

    @Test func reportJSONShape() throws {
        let collector = EstimatorCollector.analyze([TestPaths.capture("nginx-chunked-gzip.pcap")])
        for report in collector.run(level: .ip).reports() {
            let json = report.json
            for key in ["name", "requests", "up", "down", "per_request", "gap_by_cause"] { #expect(json[key] != nil, "\(key)") }
            for key in ["estimated", "wire", "error_bytes", "error_pct"] { #expect(json["up"]?[key] != nil && json["down"]?[key] != nil) }
            #expect(json["per_request"]?["median_error_pct"] != nil && json["per_request"]?["p95_error_pct"] != nil)
            if case let .array(worst)? = json["per_request"]?["worst"] {
                #expect(worst.count == min(5, report.requestCount))
                let errors = worst.compactMap { $0.int("error_bytes") }.map(abs)
                #expect(errors == errors.sorted(by: >))
            } else {
                Issue.record("worst is not an array")
            }
        }
        // gzip responses: the rebuild re-gzips them, the re-gzip is exact (bodies retained).
        let rebuilt = try #require(collector.run(level: .ip).reports().first { $0.estimator == .rebuilt })
        #expect(rebuilt.json.int("approximated") == 0)
    }
}

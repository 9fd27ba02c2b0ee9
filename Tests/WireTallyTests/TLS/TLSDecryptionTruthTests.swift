import Foundation
import Testing
@testable import WireTally

/// HTTPS with the clients' key logs (issue 14) against what nginx, curl and tshark say: every HTTP/1.1
/// request over TLS parsed with nginx's exact `$request_length` and `$bytes_sent`, curl's sizes, the
/// plaintext tshark's `follow,tls` shows, every TLS record header counted once, and conservation.
@Suite struct TLSDecryptionTruthTests {
    /// The recorded TLS-over-TCP captures with a key log (`NAME.keys`, written by curl's SSLKEYLOGFILE).
    static let keyed = TestPaths.recordedTCPCaptures(beside: ".keys")

    static func analyze(_ name: String, keys: [String]? = nil) throws -> (CollectingWriter, AnalysisRun.Result) {
        var options = CaptureAnalyzer.Options()
        options.tlsKeys = try TLSKeyStore.reading(files: keys ?? [TestPaths.capture(name + ".keys")])
        return CollectingWriter.analyze([TestPaths.capture(name + ".pcap")], options: options)
    }

    @Test func everyRecordedKeyedCaptureIsListed() {
        // The list comes from the files: make sure it is not silently empty.
        #expect(Set(Self.keyed).isSuperset(of: ["latency", "tls12-http1", "tls13-h2", "tls13-http1"]))
    }

    @Test(arguments: keyed)
    func everyNginxRequestOverTLSIsExact(_ name: String) throws {
        let (writer, result) = try Self.analyze(name)
        Conservation.check(writer, result)
        let ours = HTTPWireTruthTests.Indexed(writer)
        // h2-python has no nginx (its server is scripts/lib/h2-peer.py: HTTP2TruthTests reads its logs).
        let nginxLog = TestPaths.capture(name + ".nginx.jsonl")
        let log = FileManager.default.fileExists(atPath: nginxLog) ? try NginxLog.load(nginxLog) : []
        var compared = 0
        for entry in log where entry.isTLS && !entry.isHTTP2 {
            guard let record = ours.find(port: entry.clientPort, index: entry.connectionRequests - 1, near: entry.time) else {
                Issue.record("\(name): no exchange for nginx request \(entry.uri) from port \(entry.clientPort) #\(entry.connectionRequests)")
                continue
            }
            let what = "\(name) \(entry.method) \(entry.uri) from port \(entry.clientPort) #\(entry.connectionRequests)"
            #expect(record.flagNames.contains("decrypted"), "\(what)")
            #expect(record["request"]?.string("method") == entry.method, "\(what)")
            #expect(record["request"]?.string("target") == entry.uri, "\(what)")
            #expect(record["request"]?.string("host") == entry.host, "\(what)")
            #expect(record["response"]?.int("status") == entry.status, "\(what)")
            #expect(record["request"]?.int("bytes.total") == entry.requestLength, "\(what): request = nginx $request_length")
            #expect(record["response"]?.int("bytes.total") == entry.bytesSent, "\(what): response = nginx $bytes_sent")
            // nginx's $body_bytes_sent counts chunk framing: our body plus framing.
            #expect(record["response"].map { $0.int("bytes.body")! + $0.int("bytes.framing")! } == entry.bodyBytesSent,
                    "\(what): body and chunk framing = nginx $body_bytes_sent")
            compared += 1
        }
        #expect(compared == log.count { $0.isTLS && !$0.isHTTP2 }, "\(name): nginx lines over TLS compared")
        // Every decrypted exchange is one nginx logged (where nginx was the server).
        if !log.isEmpty {
            #expect(writer.exchanges.count { $0.flagNames.contains("decrypted") } == log.count(where: \.isTLS), "\(name): decrypted exchanges")
        }
        // HTTP/2 inside TLS: decrypted, one exchange per stream nginx logged on the connection, with
        // nginx's HTTP/2 counters exact (`HTTP2NginxTruth`; HTTP2TruthTests compares h2c lines too).
        let h2 = log.filter { $0.isHTTP2 && $0.isTLS }
        #expect(HTTP2NginxTruth.compare(h2, writer.exchanges, name).count == h2.count, "\(name): HTTP/2 lines over TLS compared")
        let h2Ports = Set(h2.map(\.clientPort))
        for connection in writer.connections where h2Ports.contains(connection.port("client") ?? -1) {
            #expect(connection["tls"]?["decryption"] == .string("decrypted"))
            #expect(connection.int("exchanges") == log.count { $0.isHTTP2 && $0.clientPort == connection.port("client") })
        }
        for connection in writer.connections where connection["tls"] != nil && connection["tls"] != .null {
            #expect(connection["tls"]?["decryption"] == .string("decrypted"), "\(name) connection \(connection.int("id") ?? 0)")
        }
    }

    /// curl's `size_request`, `size_header` and `size_download` of every HTTP/1.1 transfer over TLS, and
    /// of every HTTP/2 transfer over TLS by HTTP/2's definitions of them (`HTTP2CurlTruth`).
    @Test(arguments: keyed.filter { FileManager.default.fileExists(atPath: TestPaths.capture($0 + ".curl.jsonl")) })
    func sizesAgreeWithCurlOverTLS(_ name: String) throws {
        let (writer, _) = try Self.analyze(name)
        let ours = HTTPWireTruthTests.Indexed(writer)
        var compared = 0
        let https = try CurlTransfer.load(name).filter { ($0.fields["scheme"] as? String)?.lowercased() == "https" && $0.completed }
        for (transfer, exchange) in HTTP2CurlTruth.exchanges(for: https.filter { $0.fields["http_version"] as? String == "2" }, in: writer.exchanges) {
            let what = "\(name) \(transfer.fields["url_effective"] ?? "") from port \(transfer.port)"
            let exchange = try #require(exchange, "\(what): no HTTP/2 exchange")
            HTTP2CurlTruth.compare(transfer, exchange, what)
            compared += 1
        }
        let transfers = https.filter { ($0.fields["http_version"] as? String) == "1.1" }
        for transfer in transfers where transfer.completed {
            let curl = transfer.fields
            let what = "\(name) \(curl["url_effective"] ?? "") from port \(transfer.port) #\(transfer.index)"
            let record = try #require(ours.find(port: transfer.port, index: transfer.index, near: 0), "\(what)")
            let request = try #require(record["request"]), response = try #require(record["response"])
            let head = request.int("bytes.start_line")! + request.int("bytes.headers")!
            #expect(curl["size_request"] as? Int == head + ((curl["size_upload"] as? Int ?? 0) > 0 ? request.int("bytes.body")! : 0)
                || curl["size_request"] as? Int == head, "\(what): size_request")
            #expect(curl["size_header"] as? Int == response.int("bytes.start_line")! + response.int("bytes.headers")!, "\(what): size_header")
            #expect(curl["size_download"] as? Int == response.int("bytes.body"), "\(what): size_download")
            compared += 1
        }
        #expect(compared == https.count && compared > 0, "\(name): every HTTPS transfer compared")
    }

    /// Per connection and direction, `tls.plaintext` equals the bytes tshark's `follow,tls` shows with
    /// the same key log (through the lossy path, tls-lossy and h2-lossy, with the option their truth
    /// files were made with: `tcp.reassemble_out_of_order`, without which tshark stops at the first
    /// out-of-order segment and decrypts none of the responses).
    @Test(.requires(.tshark), arguments: keyed)
    func plaintextEqualsTsharkFollowTLS(_ name: String) throws {
        let (writer, _) = try Self.analyze(name)
        let path = TestPaths.capture(name + ".pcap"), keys = TestPaths.capture(name + ".keys")
        let streams = try TruthTable.load(name, "tls-records.tsv").rows.reduce(into: [Int: Int]()) {
            if $0[$1.int("tcp.stream")!] == nil { $0[$1.int("tcp.stream")!] = $1.int("tcp.srcport")! }  // client port
        }
        var compared = 0
        for (stream, clientPort) in streams.sorted(by: { $0.key < $1.key }) {
            let follow = try Tshark.followTLS(path, stream: stream, keyLog: keys, clientPort: clientPort,
                                              options: RecordedTLSStreams.tsharkOptions(name))
            let connection = try #require(writer.connections.first { $0.port("client") == clientPort }, "\(name) stream \(stream)")
            #expect(connection.int("tls.plaintext.up") == follow.client, "\(name) stream \(stream) client plaintext")
            #expect(connection.int("tls.plaintext.down") == follow.server, "\(name) stream \(stream) server plaintext")
            compared += 1
        }
        #expect(compared == streams.count && compared > 0)
    }

    /// What each exchange owns adds up: its payload bytes are its plaintext (an HTTP/2 stream's own
    /// frames — for a pushed stream its request, the PUSH_PROMISE, is the server's, down — and its share
    /// of the connection-level frames) plus the record headers, protection, handshake and alert bytes it
    /// owns; over a connection, the record headers are 5 per record tshark lists (an HTTP/1.x exchange
    /// owns whole record headers; HTTP/2 streams share them: h2load's ten HEADERS in one record).
    @Test(arguments: keyed)
    func recordBytesAddUpToThePayload(_ name: String) throws {
        let (writer, _) = try Self.analyze(name)
        let truth = try TruthTable.load(name, "tls-records.tsv")
        var headerBytes: [Int: [String: Int]] = [:]  // client port → direction → record header bytes
        for exchange in writer.exchanges where exchange.flagNames.contains("decrypted") {
            for (direction, message) in [("up", "request"), ("down", "response")] {
                let tls = try #require(exchange["tls"]?[direction])
                let http2 = exchange.isHTTP2Exchange
                let plaintext = http2 ? exchange.http2Plaintext(direction) : (exchange[message]?.int("bytes.total") ?? 0)
                let sum = plaintext + tls.int("record_header_bytes")! + tls.int("protection_bytes")!
                    + tls.int("handshake_bytes")! + tls.int("alert_bytes")!
                let payload = exchange.int("wire.\(direction).payload_bytes")! - exchange.int("wire.\(direction).retransmitted_bytes")!
                let port = exchange.port("conn.client")!
                #expect(sum == payload, "\(name) exchange \(exchange.int("id") ?? 0) \(direction): ours \(sum), payload \(payload)")
                if !http2 { #expect(tls.int("record_header_bytes") == 5 * tls.int("records")!) }
                headerBytes[port, default: [:]][direction, default: 0] += tls.int("record_header_bytes")!
            }
        }
        var connectionsChecked = 0
        for (clientPort, byDirection) in headerBytes {
            guard let stream = truth.rows.first(where: { $0.int("tcp.srcport") == clientPort })?.int("tcp.stream") else {
                Issue.record("\(name): no tshark stream for port \(clientPort)")
                continue
            }
            let rows = truth.rows.filter { $0.int("tcp.stream") == stream }
            let up = rows.filter { $0.int("tcp.srcport") == clientPort }.reduce(0) { $0 + $1.list("tls.record.length").count }
            let down = rows.filter { $0.int("tcp.srcport") != clientPort }.reduce(0) { $0 + $1.list("tls.record.length").count }
            #expect(byDirection["up"] == 5 * up, "\(name) port \(clientPort): client record headers")
            #expect(byDirection["down"] == 5 * down, "\(name) port \(clientPort): server record headers")
            connectionsChecked += 1
        }
        #expect(connectionsChecked == Set(writer.exchanges.filter { $0.flagNames.contains("decrypted") }.compactMap { $0.port("conn.client") }).count)
    }

    // MARK: Lost records

    /// A server packet of the 40 KB response removed (editcap): the record it carried part of is lost,
    /// decryption finds the next record and its sequence number, the connection is `partial` with
    /// `tls_gap`, the response is flagged, and every other request of the connection is still exact.
    @Test(.requires(.tshark), arguments: [24, 44])  // in the response's first 16 KB record; in its second
    func lostPacketInsideTLSIsFlaggedAndTheRestStaysExact(_ frame: Int) throws {
        let lossy = TestScratch.folder.appendingPathComponent("tls13-http1-without-\(frame).pcap").path
        _ = try ExternalProgram.output("editcap", [TestPaths.capture("tls13-http1.pcap"), lossy, "\(frame)"])
        var options = CaptureAnalyzer.Options()
        options.tlsKeys = try TLSKeyStore.reading(files: [TestPaths.capture("tls13-http1.keys")])
        let (writer, result) = CollectingWriter.analyze([lossy], options: options)
        Conservation.check(writer, result)
        let log = try NginxLog.load(TestPaths.capture("tls13-http1.nginx.jsonl"))
        let hit = try #require(log.first { $0.uri == "/data.json" })
        let damaged = try #require(writer.connections.first { $0.port("client") == hit.clientPort })
        #expect(damaged["tls"]?["decryption"] == .string("partial"))
        #expect(damaged.flagNames.contains("tls_gap") && damaged.flagNames.contains("gap"))
        let ours = HTTPWireTruthTests.Indexed(writer)
        var compared = 0
        for entry in log {
            let record = try #require(ours.find(port: entry.clientPort, index: entry.connectionRequests - 1, near: entry.time))
            #expect(record["request"]?.string("target") == entry.uri)
            #expect(record["request"]?.int("bytes.total") == entry.requestLength, "\(entry.uri) request")
            if entry.uri == hit.uri && entry.clientPort == hit.clientPort {
                #expect(record.flagNames.contains("no_response") || record.flagNames.contains("response_gap"))
            } else {
                #expect(record["response"]?.int("bytes.total") == entry.bytesSent, "\(entry.uri) #\(entry.connectionRequests) after the loss")
            }
            compared += 1
        }
        #expect(compared == log.count && writer.exchanges.count == log.count)
    }

    // MARK: Keys inside the capture

    /// A pcapng carrying the key log in a Decryption Secrets Block — first (as `editcap
    /// --inject-secrets` writes it) or after every packet (as a live capture can only write it) — is
    /// decrypted without `--keylog`, exactly as with it.
    @Test(.requires(.tshark), arguments: [false, true])
    func decryptionSecretsBlocksAreReadWhereverTheyAre(afterPackets: Bool) throws {
        let path = TestScratch.folder.appendingPathComponent("tls13-http1-dsb-\(afterPackets).pcapng").path
        let keys = [UInt8](try Data(contentsOf: URL(fileURLWithPath: TestPaths.capture("tls13-http1.keys"))))
        if afterPackets {
            let plain = TestScratch.folder.appendingPathComponent("tls13-http1-plain.pcapng").path
            _ = try ExternalProgram.output("editcap", ["-F", "pcapng", TestPaths.capture("tls13-http1.pcap"), plain])
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: plain)))
            bytes += Self.decryptionSecretsBlock(keys)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        } else {
            _ = try ExternalProgram.output("editcap", ["--inject-secrets", "tls,\(TestPaths.capture("tls13-http1.keys"))",
                                                       TestPaths.capture("tls13-http1.pcap"), path])
        }
        let (inside, result) = CollectingWriter.analyze([path])
        Conservation.check(inside, result)
        let (given, _) = try Self.analyze("tls13-http1")
        #expect(inside.exchanges.count == 6 && inside.exchanges.allSatisfy { $0.flagNames.contains("decrypted") })
        #expect(inside.exchanges.map { $0["request"] } == given.exchanges.map { $0["request"] })
        #expect(inside.exchanges.map { $0["wire"] } == given.exchanges.map { $0["wire"] })
    }

    /// A little-endian pcapng Decryption Secrets Block of a TLS key log (pcapng spec §4.7), written
    /// here by hand as the independent encoding.
    static func decryptionSecretsBlock(_ keyLog: [UInt8]) -> [UInt8] {
        func le32(_ value: Int) -> [UInt8] { (0 ..< 4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        let padded = keyLog + [UInt8](repeating: 0, count: (4 - keyLog.count % 4) % 4)
        let total = 12 + 8 + padded.count
        return le32(0x0A) + le32(total) + le32(0x544C_534B) + le32(keyLog.count) + padded + le32(total)
    }

    // MARK: Keys that do not fit

    /// A key log whose secrets are all wrong: every connection is `failed`, flagged `decrypt_failed`,
    /// and estimated exactly as without keys.
    @Test func wrongKeysFallBackToTheKeylessEstimate() throws {
        let wrong = try String(contentsOfFile: TestPaths.capture("tls13-http1.keys"), encoding: .utf8)
            .split(separator: "\n").map { line -> String in
                var parts = line.split(separator: " ").map(String.init)
                guard parts.count == 3 else { return String(line) }
                parts[2] = String(parts[2].reversed())  // same length, other secret
                return parts.joined(separator: " ")
            }.joined(separator: "\n")
        let path = TestScratch.folder.appendingPathComponent("wrong.keys").path
        try wrong.write(toFile: path, atomically: true, encoding: .utf8)
        let (withWrongKeys, result) = try Self.analyze("tls13-http1", keys: [path])
        Conservation.check(withWrongKeys, result)
        let (keyless, _) = CollectingWriter.analyze([TestPaths.capture("tls13-http1.pcap")])
        let tlsConnections = withWrongKeys.connections.filter { $0["tls"] != nil && $0["tls"] != .null }
        #expect(tlsConnections.count == 2)
        for connection in tlsConnections {
            #expect(connection["tls"]?["decryption"] == .string("failed"))
            #expect(connection.flagNames.contains("decrypt_failed"))
        }
        #expect(withWrongKeys.exchanges.count == keyless.exchanges.count && !keyless.exchanges.isEmpty)
        for (ours, theirs) in zip(withWrongKeys.exchanges, keyless.exchanges) {
            #expect(ours["wire"] == theirs["wire"] && ours["request"] == theirs["request"] && ours["response"] == theirs["response"])
            #expect(ours.flagNames.contains("estimated"))
        }
    }

    /// A key log with secrets of other connections only: `no_key`, estimated as without keys.
    @Test func keysOfOtherConnectionsLeaveItUndecrypted() throws {
        let (writer, result) = try Self.analyze("tls13-http1", keys: [TestPaths.capture("tls12-http1.keys")])
        Conservation.check(writer, result)
        let tlsConnections = writer.connections.filter { $0["tls"] != nil && $0["tls"] != .null }
        #expect(tlsConnections.count == 2)
        #expect(tlsConnections.allSatisfy { $0["tls"]?["decryption"] == .string("no_key") && $0["tls"]?["plaintext"] == nil })
        #expect(writer.exchanges.allSatisfy { $0.flagNames.contains("estimated") })
    }

    /// Without `--keylog` nothing changes: no `decryption` member, exchanges estimated.
    @Test func withoutKeysNothingIsDecrypted() throws {
        let (writer, _) = CollectingWriter.analyze([TestPaths.capture("tls13-http1.pcap")])
        #expect(writer.connections.allSatisfy { $0["tls"]?["decryption"] == nil })
        #expect(writer.exchanges.allSatisfy { $0.flagNames.contains("estimated") })
    }
}

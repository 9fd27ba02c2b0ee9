import Foundation
import Testing
@testable import WireTally

/// HTTP exchanges of the recorded captures against what nginx and curl logged themselves, and
/// conservation of every connection over its exchanges.
@Suite struct HTTPWireTruthTests {
    static let withNginxLog = TestPaths.recordedCaptures(beside: ".nginx.jsonl")

    /// Our exchanges keyed by (client port, index on the connection), with the connection's time span.
    struct Indexed {
        var byPortAndIndex: [String: [JSONValue]] = [:]
        init(_ writer: CollectingWriter) {
            for record in writer.exchanges {
                let client = record.string("conn.client") ?? ""
                let port = client.split(separator: ":").last.map(String.init) ?? ""
                byPortAndIndex["\(port)/\(record.int("conn.index") ?? -1)", default: []].append(record)
            }
        }
        func find(port: Int, index: Int, near time: Double) -> JSONValue? {
            byPortAndIndex["\(port)/\(index)"]?.min {
                abs((Double($0["request"]?["ts_first"]?.plainText ?? "") ?? 0) - time)
                    < abs((Double($1["request"]?["ts_first"]?.plainText ?? "") ?? 0) - time)
            }
        }
    }

    @Test(arguments: withNginxLog)
    func requestAndResponseBytesEqualNginx(_ name: String) throws {
        let (writer, result) = CollectingWriter.analyze([TestPaths.capture(name + ".pcap")])
        Conservation.check(writer, result)
        let ours = Indexed(writer)
        let log = try NginxLog.load(TestPaths.capture(name + ".nginx.jsonl"))
        var compared = 0
        let tlsTruth = log.contains { $0.isTLS && !$0.isHTTP2 } ? try TLSRecordTruth.load(name) : nil
        for entry in log where entry.isTLS {
            // HTTPS: nginx counts plaintext; our exchanges are estimated from record bursts, and their
            // `body` is the plaintext estimate (record bytes minus record headers and AEAD overhead).
            guard !entry.isHTTP2 else { continue }  // h2: attributed per connection only
            guard let record = ours.find(port: entry.clientPort, index: entry.connectionRequests - 1, near: entry.time) else {
                Issue.record("\(name): no estimated exchange for nginx request \(entry.uri) from port \(entry.clientPort) #\(entry.connectionRequests)")
                continue
            }
            #expect(record.flagNames.contains("estimated") && record.flagNames.contains("encrypted"))
            compared += 1
            // TLS 1.2 CBC (tls-ciphers, tls-lossy): each record's padding length (1…16 bytes with the
            // length byte) is encrypted, so the keyless plaintext estimate (half a block of padding per
            // record) is not exact: the exchange is there; its record bytes are checked by
            // TLSRecordTruthTests, the plaintext of every record by TLSRecordCipherRecordingTests.
            guard !entry.isCBC else { continue }
            // TLS 1.3 0-RTT (tls-edge, nginx `$ssl_early_data` 1): without keys the request that travels
            // as early data is the client's type-23 record beside its ClientHello (ours: the record
            // minus its header, AEAD overhead included: 99 for nginx's 82), and nginx answers it before
            // the client's Finished, where a keyless reader cannot tell it from the server's encrypted
            // handshake flight: the response is counted as handshake and the early exchange's response
            // holds only the NewSessionTicket after it. The connection's next request is exact again;
            // with the key log every byte is checked (TLSDecryptionTruthTests).
            guard !entry.earlyData else { continue }
            let truth = try #require(tlsTruth)
            // A client's TLS 1.3 KeyUpdate (tls-ciphers: openssl s_client) starts the next request's burst.
            #expect(record["request"]?.int("bytes.body") == entry.requestLength + truth.requestKeyUpdatePlaintext(entry),
                    "\(name) \(entry.uri) from port \(entry.clientPort) #\(entry.connectionRequests): request plaintext (+ KeyUpdates)")
            let response = record["response"]?.int("bytes.body") ?? -1
            let notHTTP = try truth.plaintextNotHTTP(in: entry, of: log)
            // Without keys, records that are not HTTP but travel in a response's burst are counted in
            // it: the NewSessionTickets after the first request (TLS 1.3), the server's KeyUpdates and
            // the encrypted close_notify after the last response. The difference must be exactly their
            // plaintext.
            #expect(response == entry.bytesSent + notHTTP, "\(name) \(entry.uri) from port \(entry.clientPort) #\(entry.connectionRequests): response plaintext = nginx $bytes_sent + tickets + KeyUpdates + alert")
        }
        for entry in log where !entry.isTLS && !entry.isHTTP2 {
            guard let record = ours.find(port: entry.clientPort, index: entry.connectionRequests - 1, near: entry.time) else {
                Issue.record("\(name): no exchange for nginx request \(entry.method) \(entry.uri) from port \(entry.clientPort) #\(entry.connectionRequests)")
                continue
            }
            #expect(record["request"]?.string("method") == entry.method, "\(name) \(entry.uri)")
            #expect(record["request"]?.string("target") == entry.uri, "\(name) \(entry.uri)")
            if entry.status == 444 {
                // nginx's `return 444` closes without answering (no response on the wire) and without
                // reading the body: $request_length counts the header block only.
                #expect(record["response"] == .null)
                #expect((record["request"]?.int("bytes.start_line") ?? 0) + (record["request"]?.int("bytes.headers") ?? 0) == entry.requestLength)
                compared += 1
                continue
            }
            #expect(record["request"]?.int("bytes.total") == entry.requestLength, "\(name) \(entry.method) \(entry.uri) request")
            let responseIncomplete = record.flagNames.contains("response_incomplete") || record.flagNames.contains("no_response")
            if responseIncomplete {
                // The client went away: $bytes_sent is what nginx handed to its kernel, not what
                // reached the wire before the reset; ours can only be smaller.
                #expect((record["response"]?.int("bytes.total") ?? 0) <= entry.bytesSent)
            } else {
                #expect(record["response"]?.int("bytes.total") == entry.bytesSent, "\(name) \(entry.method) \(entry.uri) response")
            }
            compared += 1
        }
        // Every HTTP/1.x line is compared.
        #expect(!log.isEmpty)
        #expect(compared == log.count { !$0.isHTTP2 }, "\(name): nginx lines compared")
        // h2c (HTTP/2 without TLS, port 8082) is parsed without keys: each of its lines against nginx's
        // HTTP/2 counters (their meaning differs from HTTP/1's: `HTTP2NginxTruth`). HTTP/2 inside TLS
        // needs the key log: HTTP2TruthTests compares every HTTP/2 line with it.
        let h2c = log.filter { $0.isHTTP2 && !$0.isTLS }
        #expect(HTTP2NginxTruth.compare(h2c, writer.exchanges, name).count == h2c.count, "\(name): h2c lines compared")
        // …and we have no exchange with nginx that it did not log.
        let nginxPorts = Set([80, 8080, 443, 8443] + Array(4431 ... 4443))  // 4431-4440: tls-ciphers, tls-lossy; 4441-4443: tls-edge
        #expect(writer.exchanges.count { !$0.isHTTP2Exchange && nginxPorts.contains($0.port("conn.server") ?? -1) } == compared,
                "\(name): our HTTP/1.x exchanges with nginx")
        #expect(writer.exchanges.count { $0.isHTTP2Exchange && [8082, 8443].contains($0.port("conn.server") ?? -1) } == h2c.count,
                "\(name): our HTTP/2 exchanges with nginx (none over TLS without keys)")
        // h2 over TLS without keys: one session per connection, no estimated exchanges.
        let h2TLSPorts = Set(log.filter { $0.isHTTP2 && $0.isTLS }.map(\.clientPort))
        for connection in writer.connections where h2TLSPorts.contains(connection.port("client") ?? -1) {
            #expect(connection["tls"]?["mode"] == .string("session") && connection.int("exchanges") == 0, "\(name) \(connection.string("client") ?? "")")
        }
    }

    static let withCurlLog = TestPaths.recordedCaptures(beside: ".curl.jsonl")

    /// curl's own sizes: `size_request` is the request head, `size_upload` the body as sent (chunk
    /// framing included), `size_header` the response heads including interim 1xx responses,
    /// `size_download` the body as received before decoding, without chunk framing. Over h2c they are
    /// HTTP/2's (`HTTP2CurlTruth`: DATA payloads, headers as curl rebuilds them).
    @Test(arguments: withCurlLog)
    func sizesAgreeWithCurl(_ name: String) throws {
        let (writer, _) = CollectingWriter.analyze([TestPaths.capture(name + ".pcap")])
        let ours = Indexed(writer)
        var compared = 0
        // curl's sizes are plaintext HTTP; HTTPS exchanges are checked against nginx's plaintext counts.
        var http2: [CurlTransfer] = []
        for transfer in try CurlTransfer.load(name) where (transfer.fields["scheme"] as? String)?.lowercased() == "http" {
            // HTTP/2 over cleartext (h2c): curl's sizes mean other things there (`HTTP2CurlTruth`), below.
            guard transfer.fields["http_version"] as? String != "2" else {
                http2.append(transfer)
                continue
            }
            let curl = transfer.fields, port = transfer.port, index = transfer.index
            guard let record = ours.find(port: port, index: index, near: 0) else {
                Issue.record("\(name): no exchange for curl transfer \(curl["url_effective"] ?? "") from port \(port) #\(index)")
                continue
            }
            guard transfer.completed else {
                // curl gave up (exit code ≠ 0, e.g. 28 after --max-time): its sizes are partial, and the
                // wire holds an unfinished response.
                #expect(record.flagNames.contains("response_incomplete") || record.flagNames.contains("no_response"),
                        "\(name) \(curl["url_effective"] ?? ""): curl exit code \(curl["exitcode"] ?? "")")
                compared += 1
                continue
            }
            let request = try #require(record["request"]), response = try #require(record["response"])
            let head = request.int("bytes.start_line")! + request.int("bytes.headers")!
            // curl counts a small request body it sent together with the head in size_request too.
            let body = request.int("bytes.body")! + request.int("bytes.framing")!
            let sizeRequest = curl["size_request"] as? Int
            #expect(sizeRequest == head || sizeRequest == head + body, "\(name) \(curl["url_effective"] ?? "") size_request")
            #expect(request.int("bytes.body")! + request.int("bytes.framing")! == curl["size_upload"] as? Int, "\(name) size_upload")
            let responseHead = response.int("bytes.start_line")! + response.int("bytes.headers")! + response.int("interim.bytes")!
            #expect(responseHead == curl["size_header"] as? Int, "\(name) \(curl["url_effective"] ?? "") size_header")
            #expect(response.int("bytes.body") == curl["size_download"] as? Int, "\(name) \(curl["url_effective"] ?? "") size_download")
            #expect(response.int("status") == curl["http_code"] as? Int)
            compared += 1
        }
        // h2c transfers (prior knowledge, and the `Upgrade: h2c` of h2-upgrade: the transfer that
        // upgraded is stream 1's exchange): found by local port, method and target (curl writes its
        // lines in completion order, not stream order), compared by HTTP/2's definitions of curl's sizes.
        compared += HTTP2CurlTruth.compareEach(http2, in: writer.exchanges, name)
        // Count from the raw log, so a transfer the loader drops is noticed: every plain-HTTP transfer
        // that used a connection is compared (HTTPS ones are checked against nginx above; a name that
        // did not resolve has local_port 0 and no connection).
        let lines = try JSONLines.load(TestPaths.capture(name + ".curl.jsonl"))
        let connectedPlain = lines.count { ($0["local_port"] as? Int ?? 0) > 0 && ($0["scheme"] as? String)?.lowercased() == "http" }
        #expect(!lines.isEmpty)
        #expect(compared == connectedPlain, "\(name): curl transfers compared")
    }
}

import Foundation
import Testing
@testable import WireTally

/// Reassembled streams checked against truth from elsewhere: PcapPlusPlus's expected reassembly of a
/// capture with sequence wraparound, retransmissions and reordering; Zeek's and Suricata's overlap
/// evasion captures; and nginx's own byte counts for every connection of the lossy recording.
@Suite struct ReassemblyTruthTests {
    /// Collects every connection's stream events in call order.
    final class StreamLog: TCPStreamConsumer {
        var deliveries: [(FlowDirection, [UInt8])] = []
        var length: [Int64] = [0, 0]
        var missing: [Int64] = [0, 0]

        func streamData(_ data: UnsafeRawBufferPointer, offset: Int64, direction: FlowDirection, origin: PacketOrigin) {
            deliveries.append((direction, Array(data)))
            length[direction.rawValue] = offset + Int64(data.count)
        }

        func streamGap(offset: Int64, length: Int64, direction: FlowDirection, reason: StreamGapReason) {
            missing[direction.rawValue] += length
            self.length[direction.rawValue] = offset + length
        }

        func streamEnded(direction: FlowDirection) {}
    }

    /// Analyses a capture giving each connection a `StreamLog`; returns the logs and records in id order.
    static func reassemble(_ path: String) -> [(log: StreamLog, record: TCPConnection)] {
        var logs: [StreamLog] = []
        var connections: [TCPConnection] = []
        let analyzer = CaptureAnalyzer(makeConsumer: { _ in
            let log = StreamLog()
            logs.append(log)
            return log
        }, emit: { record in
            if case let .connection(connection) = record { connections.append(connection) }
        })
        let source = MergedPacketSource(paths: [path])
        while let packet = try? source.nextPacket() { analyzer.process(packet) }
        _ = analyzer.finish(timestampDigits: source.timestampDigits)
        return connections.sorted { $0.id < $1.id }.map { (logs[$0.id - 1], $0) }
    }

    @Test(.requires(.publicCaptures))
    func matchesPcapPlusPlusReassembly() throws {
        let expected = try Data(contentsOf: URL(fileURLWithPath: try Requirement.publicCapture("pcapplusplus__one_tcp_stream_output.txt")))
        let connections = Self.reassemble(try Requirement.publicCapture("pcapplusplus__one_tcp_stream_max_seq.pcap"))
        try #require(connections.count == 1)
        let (log, connection) = connections[0]
        #expect(log.deliveries.flatMap(\.1) == Array(expected))
        #expect(log.missing == [0, 0])
        #expect(connection.ledger.tally(.up).retransmission.packets + connection.ledger.tally(.down).retransmission.packets > 0)
    }

    @Test(.requires(.publicCaptures))
    func flagsConflictingOverlapsAndKeepsTheFirstCopy() throws {
        let suricata = Self.reassemble(try Requirement.publicCapture(
            "suricata-verify__eve-overlap-payload-04-partial-overlap__tcp-overlap2.pcap"))
        #expect(suricata.contains { $0.record.flags.contains(.conflictingOverlap) })
        let zeek = Self.reassemble(try Requirement.publicCapture("zeek__tcp__reassembly.pcap"))
        #expect(zeek.contains { $0.record.flags.contains(.conflictingOverlap) })
        for (_, connection) in suricata + zeek { #expect(connection.ledger.isConserved) }
    }

    /// In the lossy recording (drops, duplicates, reordering and delay from the project's bridge),
    /// each connection's client stream is exactly the requests nginx read (Σ `$request_length`) and
    /// the server stream exactly what nginx sent (Σ `$bytes_sent`), with no byte missing.
    @Test func lossyStreamsEqualNginxByteCounts() throws {
        let connections = Self.reassemble(TestPaths.capture("lossy.pcap"))
        let log = try NginxLog.load(TestPaths.capture("lossy.nginx.jsonl"))
        #expect(!connections.isEmpty)
        var checked = 0
        for (streams, connection) in connections {
            let entries = log.filter { $0.clientPort == Int(connection.clientPort) }
            guard !entries.isEmpty, connection.serverPort == 80 || connection.serverPort == 8080 else { continue }
            #expect(streams.length[0] == Int64(entries.reduce(0) { $0 + $1.requestLength }), "port \(connection.clientPort) up")
            #expect(streams.length[1] == Int64(entries.reduce(0) { $0 + $1.bytesSent }), "port \(connection.clientPort) down")
            #expect(streams.missing == [0, 0])
            checked += 1
        }
        // Every connection nginx logged a request of (one per client port in this capture).
        #expect(checked == Set(log.map(\.clientPort)).count)
        let retransmitted = connections.reduce(0) {
            $0 + $1.record.ledger.tally(.up).retransmission.packets + $1.record.ledger.tally(.down).retransmission.packets
        }
        #expect(retransmitted > 0, "the lossy capture should contain retransmissions")
    }
}

/// Lines of an nginx JSON access log as `scripts/record-captures` configures it.
final class NginxLog {
    var time: Double
    var method: String
    var uri: String
    var clientPort: Int
    var connection: Int
    var connectionRequests: Int
    var requestLength: Int
    var bytesSent: Int
    var status: Int
    /// `$ssl_protocol` (empty for plain HTTP), `$http2`, `$ssl_session_reused`.
    var sslProtocol: String
    var isHTTP2: Bool
    var sessionReused: Bool
    /// `$http_host`: the request's Host header as nginx read it.
    var host: String
    /// `$body_bytes_sent` (an interim `100 Continue` included, captures/README.md) and `$http_expect`.
    var bodyBytesSent: Int
    var expect: String
    /// `$sent_http_transfer_encoding`: `chunked` when nginx framed the response in chunks.
    var transferEncoding: String

    /// `$ssl_cipher`: OpenSSL's name of the suite (empty for plain HTTP).
    var sslCipher = ""
    /// `$ssl_early_data` is "1": nginx read this request from TLS 1.3 early data (0-RTT, `tls-edge`).
    var earlyData = false

    var isTLS: Bool { !sslProtocol.isEmpty }
    /// A TLS 1.2 block-cipher suite (OpenSSL names its AEAD suites …GCM…, …CHACHA20…, …CCM…): its
    /// records' padding length is encrypted, so their plaintext is only estimated without keys.
    var isCBC: Bool { sslProtocol == "TLSv1.2" && !["GCM", "CHACHA20", "CCM"].contains { sslCipher.contains($0) } }

    init(time: Double, method: String, uri: String, clientPort: Int, connection: Int, connectionRequests: Int,
         requestLength: Int, bytesSent: Int, status: Int, sslProtocol: String, isHTTP2: Bool, sessionReused: Bool, host: String = "", bodyBytesSent: Int = -1,
         expect: String = "", transferEncoding: String = "") {
        self.time = time
        self.method = method
        self.uri = uri
        self.clientPort = clientPort
        self.connection = connection
        self.connectionRequests = connectionRequests
        self.requestLength = requestLength
        self.bytesSent = bytesSent
        self.status = status
        self.sslProtocol = sslProtocol
        self.isHTTP2 = isHTTP2
        self.sessionReused = sessionReused
        self.host = host
        self.bodyBytesSent = bodyBytesSent
        self.expect = expect
        self.transferEncoding = transferEncoding
    }

    static func load(_ path: String) throws -> [NginxLog] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            func int(_ key: String) -> Int {
                if let number = object[key] as? Int { return number }
                return Int(object[key] as? String ?? "") ?? -1
            }
            let entry = NginxLog(
                time: object["msec"] as? Double ?? 0, method: object["request_method"] as? String ?? "",
                uri: object["request_uri"] as? String ?? "", clientPort: int("remote_port"), connection: int("connection"),
                connectionRequests: int("connection_requests"), requestLength: int("request_length"),
                bytesSent: int("bytes_sent"), status: int("status"),
                sslProtocol: object["ssl_protocol"] as? String ?? "", isHTTP2: !(object["http2"] as? String ?? "").isEmpty,
                sessionReused: (object["ssl_session_reused"] as? String) == "r", host: object["http_host"] as? String ?? "",
                bodyBytesSent: int("body_bytes_sent"), expect: object["http_expect"] as? String ?? "",
                transferEncoding: object["sent_http_transfer_encoding"] as? String ?? "")
            entry.sslCipher = object["ssl_cipher"] as? String ?? ""
            entry.earlyData = (object["ssl_early_data"] as? String) == "1"
            return entry
        }
    }
}

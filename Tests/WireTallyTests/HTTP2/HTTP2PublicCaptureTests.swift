import Testing

@testable import WireTally

/// Public HTTP/2 captures (`../shared/captures/public`, `public-tls`): each connection's plaintext as
/// tshark follows it (`-z follow,tls,raw` with the key log, `follow,tcp,raw` for cleartext h2c),
/// fed to the parser and checked against tshark's own frames (`HTTP2TsharkTruth`).
@Suite struct HTTP2PublicCaptureTests {
    struct Capture: CustomTestStringConvertible, Sendable {
        var file: String
        var tls: Bool
        var keyLog: String?
        /// `-d` decode-as for cleartext HTTP/2 on a port tshark does not take for it.
        var decodeAs: String?
        var stream: Int
        /// h2c by `Upgrade: h2c`: the plaintext starts after the HTTP/1.1 request and the 101.
        var upgraded = false
        var requests: Int
        /// Responses with a gzip or deflate body (decoded sizes compared with tshark's).
        var encodedResponses = 0
        var testDescription: String { file }
    }

    static let shared: [Capture] = [
        // Wireshark's test capture: TLS 1.2, GET /wireshark.png in 16 KB DATA frames.
        Capture(file: "wireshark__http2-data-reassembly.pcap", tls: true, keyLog: "wireshark__http2-data-reassembly.keys", stream: 0, requests: 1),
        // Suricata: cleartext prior-knowledge HTTP/2 on port 443, PRIORITY flags, padded DATA, gzip/br bodies.
        Capture(file: "suricata-verify__http2-compression-bug__input.pcap", tls: false, decodeAs: "tcp.port==443,http2", stream: 0, requests: 5,
                encodedResponses: 5),
        // Suricata: h2c by Upgrade (stream 1 is the HTTP/1.1 request), deflate body.
        Capture(file: "suricata-verify__http2-deflate__http2_deflate.pcap", tls: false, stream: 0, upgraded: true, requests: 0,
                encodedResponses: 1),
    ]

    static let sharedTLS: [Capture] = [
        // Chrome → a test server, TLS 1.3, four GETs multiplexed on one connection.
        Capture(file: "hotplace__tls-http__http2_trial.pcapng", tls: true, keyLog: "hotplace__tls-http__http2_trial.pcapng.keylog.txt", stream: 6, requests: 4),
    ]

    @Test(.requires(.tshark, .publicCaptures), arguments: shared)
    func publicCapture(_ capture: Capture) throws {
        try check(capture, path: try Requirement.publicCapture(capture.file), keyLog: try capture.keyLog.map(Requirement.publicCapture))
    }

    @Test(.requires(.tshark, .publicTLSCaptures), arguments: sharedTLS)
    func publicTLSCapture(_ capture: Capture) throws {
        try check(capture, path: try Requirement.publicTLSCapture(capture.file), keyLog: try capture.keyLog.map(Requirement.publicTLSCapture))
    }

    private func check(_ capture: Capture, path: String, keyLog: String?) throws {
        var options: [String] = []
        if let keyLog { options += ["-o", "tls.keylog_file:\(keyLog)"] }
        if let decodeAs = capture.decodeAs { options += ["-d", decodeAs] }
        let syn = try Tshark.fields(path, filter: "tcp.stream == \(capture.stream) && tcp.flags.syn == 1 && tcp.flags.ack == 0", ["tcp.srcport"])
        let clientPort = try #require(syn.first.flatMap { Int($0[0]) }, "\(capture.file): no SYN on stream \(capture.stream)")
        let follow = try Tshark.output(options + ["-r", path, "-q", "-z", "follow,\(capture.tls ? "tls" : "tcp"),raw,\(capture.stream)"])
        let block = try #require(try RecordedTLSStreams.followBlocks(follow).first)
        var client = block.node0Port == clientPort ? block.node0 : block.node1
        var server = block.node0Port == clientPort ? block.node1 : block.node0
        if capture.upgraded {
            // The HTTP/1.1 request and the 101 response come before HTTP/2.
            let preface = HTTP2FrameWriter.preface
            let start = try #require(client.indices.first { client[$0...].starts(with: preface) }, "no preface")
            client.removeFirst(start)
            let end = try #require(server.indices.first { server[$0...].starts(with: Array("\r\n\r\n".utf8)) }, "no 101")
            #expect(server.starts(with: Array("HTTP/1.1 101".utf8)))
            server.removeFirst(end + 4)
        }
        let rows = try Tshark.fields(path, filter: "http2", HTTP2TsharkTruth.fields, options: options)
        let truth = try HTTP2TsharkTruth(rows: rows, stream: capture.stream, clientPort: clientPort)
        try #require(!truth.frames.isEmpty, "\(capture.file): tshark lists no HTTP/2 frame")
        let h = try truth.check(client: client, server: server, upgraded: capture.upgraded)
        #expect(h.recorder.requests.count == capture.requests)
        // Decoded bodies: tshark's body, decompressed, on each response's last DATA frame.
        let bodies = try Tshark.fields(path, filter: "http2.type == 0 && http2.flags.end_stream == 1 && tcp.srcport != \(clientPort)",
                                       ["http2.streamid", "http2.data.data"], options: options)
        var decoded: [UInt32: Int] = [:]
        for row in bodies {
            for (id, data) in zip(row[0].split(separator: ","), row[1].split(separator: ",", omittingEmptySubsequences: false)) {
                decoded[UInt32(id)!] = data.count / 2
            }
        }
        let encoded = h.recorder.responses.filter { $0.contentEncoding.flatMap(ContentCoding.list).map { !$0.isEmpty } == true }
        #expect(encoded.count == capture.encodedResponses)
        for response in encoded {
            #expect(response.decodedBodyBytes == decoded[response.http2!.streamID], "stream \(response.http2!.streamID)")
        }
        // Another cut gives the same messages.
        let again = try truth.check(client: client, server: server, upgraded: capture.upgraded, seed: 99)
        #expect(again.recorder.summary == h.recorder.summary)
    }
}

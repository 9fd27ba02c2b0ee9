import Foundation
import Testing
@testable import WireTally

/// The public keyed captures of `../shared/captures/public-tls` (curl, Chrome, OpenSSL-style test
/// programs; TLS 1.2 and 1.3, GCM, ChaCha20, CBC with and without encrypt-then-MAC, CCM) with their key
/// logs, against tshark's decrypted view of the same files (`NAME.tshark-http.tsv`, written with the
/// same key log): per TCP stream the plaintext bytes of each direction (`follow,tls`), per HTTP/1.x
/// request its method, path and status; per QUIC stream its length each way (HTTP/3 request streams are
/// exchanges, the others the connection's control and QPACK streams). Where tshark decrypts, wiretally
/// does (CCM and CCM_8 included).
@Suite(.requires(.publicTLSCaptures)) struct PublicTLSDecryptionTests {
    static let keyed = [
        "hotplace__tls-http__curl_http1_tls12.pcapng", "hotplace__tls-http__http1.pcapng",
        "hotplace__tls-http__http2_trial.pcapng", "hotplace__quic__http3.pcapng",
        "hotplace__tls-tls12__tls12_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256.pcapng",
        "hotplace__tls-tls12__tls12etm_TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256.pcapng",
        "hotplace__tls-tls12__tls12mte_TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256.pcapng",
        "hotplace__tls-tls12__tls12no_renogotiation.pcapng",
        "hotplace__tls-tls13__tls13_TLS_AES_128_CCM_SHA256_X25519MLKEM768.pcapng",
        "hotplace__tls-tls13__tls13_TLS_AES_128_GCM_SHA256.pcapng",
        "hotplace__tls-tls13__tls13_TLS_CHACHA20_POLY1305_SHA256.pcapng",
        "snet__TLS1_2_AES128-CCM8_auth.pcap", "snet__TLS1_2_ECDHE-RSA-CHACHA20-POLY1305_auth.pcap",
        "snet__TLS1_3_TLS_AES_128_GCM_SHA256.pcap", "snet__TLS1_3_TLS_CHACHA20_POLY1305_SHA256.pcap",
        "snet__TLS1_ECDHE-RSA-AES128-SHA.pcap", "snet__mTLS1_2_Ed25519.pcap",
    ]

    /// The key log beside a capture: `NAME.keylog.txt`, or without the capture's extension.
    static func keyLog(of name: String) throws -> String {
        if let path = try? Requirement.publicTLSCapture(name + ".keylog.txt") { return path }
        let stem = name.hasSuffix(".pcap") ? String(name.dropLast(5)) : name
        return try Requirement.publicTLSCapture(stem + ".keylog.txt")
    }

    @Test(arguments: keyed)
    func whatTsharkDecryptsWiretallyDecrypts(_ name: String) throws {
        let path = try Requirement.publicTLSCapture(name)
        var options = CaptureAnalyzer.Options()
        options.tlsKeys = try TLSKeyStore.reading(files: [try Self.keyLog(of: name)])
        let (writer, result) = CollectingWriter.analyze([path], options: options)
        Conservation.check(writer, result)
        let truth = try TruthTable.read(try Requirement.publicTLSCapture(name + ".tshark-http.tsv"))
        // tshark numbers TCP streams in the order of their first packet; so do our connection ids.
        let connections = writer.connections.sorted { $0.int("id")! < $1.int("id")! }
        func connection(_ transport: String) throws -> JSONValue {
            let index = try #require(Int(transport.dropFirst(4)), "\(name): \(transport)")
            return try #require(connections.indices.contains(index) ? connections[index] : nil, "\(name): no connection \(transport)")
        }
        var sessions = 0
        for row in truth.rows where row["kind"] == "tls-session" && row["transport"].hasPrefix("tcp:") {
            let ours = try connection(row["transport"])
            let what = "\(name) \(row["transport"])"
            let cipher = ours["tls"]?.string("cipher") ?? ""
            guard let up = row.int("req_body_bytes"), let down = row.int("resp_body_bytes"), up + down > 0 else {
                // tshark decrypted nothing here (no key, or no application data): we may have no key
                // either, or decrypted a connection without application data.
                #expect(ours["tls"]?.string("decryption") != "failed", "\(what)")
                #expect(ours.int("tls.plaintext.up") ?? 0 == 0 && ours.int("tls.plaintext.down") ?? 0 == 0, "\(what)")
                sessions += 1
                continue
            }
            #expect(ours["tls"]?.string("decryption") == "decrypted", "\(what) \(cipher)")
            #expect(ours.int("tls.plaintext.up") == up, "\(what) \(cipher): client plaintext = tshark follow,tls")
            #expect(ours.int("tls.plaintext.down") == down, "\(what) \(cipher): server plaintext = tshark follow,tls")
            sessions += 1
        }
        #expect(sessions == truth.rows.count { $0["kind"] == "tls-session" && $0["transport"].hasPrefix("tcp:") } && sessions > 0)
        // Every HTTP/1.x request tshark shows, with its method, path and status, on the same connection.
        var unmatched = writer.exchanges
        var requests = 0
        for row in truth.rows where row["kind"] == "http1" {
            let ours = try connection(row["transport"])
            let index = unmatched.firstIndex {
                $0.int("conn.id") == ours.int("id") && $0["request"]?.string("method") == row["method"]
                    && $0["request"]?.string("target") == row["path"] && $0["response"]?.int("status") == row.int("status")
            }
            guard let index else {
                Issue.record("\(name): no exchange \(row["method"]) \(row["path"]) \(row["status"]) on \(row["transport"])")
                continue
            }
            #expect(unmatched[index].flagNames.contains("decrypted"))
            unmatched.remove(at: index)
            requests += 1
        }
        #expect(requests == truth.rows.count { $0["kind"] == "http1" })
        #expect(unmatched.allSatisfy { !$0.flagNames.contains("decrypted") || ["HTTP/2", "HTTP/3"].contains($0.string("request.version")) },
                "\(name): decrypted HTTP/1.x exchanges tshark does not show")
        // HTTP/2 inside TLS: every stream tshark shows, with its method, path and status.
        for row in truth.rows where row["kind"] == "http2" {
            let ours = try connection(row["transport"])
            #expect(writer.exchanges.contains {
                $0.int("conn.id") == ours.int("id") && $0.int("request.stream_id") == Int(row["stream_id"])
                    && $0.string("request.method") == row["method"] && $0.string("request.target") == row["path"]
                    && $0.int("response.status") == Int(row["status"])
            }, "\(name) \(row["transport"]) stream \(row["stream_id"])")
        }
        // QUIC: each request stream's length each way is its exchange's message total; the other
        // streams of each side add up to the connection's HTTP/3 stream bytes.
        var uniBytes = [0, 0]
        for row in truth.rows where row["kind"] == "quic-stream" {
            let stream = try #require(Int(row["stream_id"]))
            guard stream & 2 == 0 else {
                uniBytes[stream & 1] += (row.int("req_body_bytes") ?? 0) + (row.int("resp_body_bytes") ?? 0)
                continue
            }
            let exchange = try #require(writer.exchanges.first { $0.int("request.stream_id") == stream }, "\(name) stream \(stream)")
            #expect(exchange.flagNames.contains("decrypted") && exchange.string("request.version") == "HTTP/3")
            #expect(exchange.int("request.bytes.total") == row.int("req_body_bytes") ?? 0, "\(name) stream \(stream) up")
            #expect(exchange.int("response.bytes.total") == row.int("resp_body_bytes") ?? 0, "\(name) stream \(stream) down")
        }
        if truth.rows.contains(where: { $0["kind"] == "quic-stream" }) {
            let quic = try #require(writer.quicConnections.first)
            #expect(quic.string("tls.decryption") == "decrypted")
            for (index, side) in ["up", "down"].enumerated() {
                let streams = ["control", "qpack_encoder", "qpack_decoder", "push", "unknown"]
                #expect(streams.reduce(0) { $0 + (quic.int("http3.\(side).stream_bytes.\($1)") ?? 0) } == uniBytes[index], "\(name) \(side)")
            }
        }
    }
}

import Foundation
import Testing
@testable import WireTally

/// The `tls` object of our connection records against tshark's handshake views of the recorded TLS
/// captures: `NAME.tls.tsv` (without keys: what we can see too) and `NAME.tls-decrypted.tsv` (with
/// the key log: the negotiated ALPN of TLS 1.3 and the client's encrypted Finished).
@Suite struct TLSHandshakeViewTests {
    static let withHandshakeView = TestPaths.recordedCaptures(beside: ".tls.tsv")

    /// IANA names of the suites the recordings negotiate (RFC 8446, RFC 5289), independent of our table.
    static let suiteNames = [
        "0x1301": "TLS_AES_128_GCM_SHA256", "0x1302": "TLS_AES_256_GCM_SHA384", "0x1303": "TLS_CHACHA20_POLY1305_SHA256",
        "0xc02c": "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "0xc02b": "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
        "0xcca9": "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
        "0xc009": "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "0xc023": "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256",
        "0xc024": "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384", "0xc013": "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
        "0x003d": "TLS_RSA_WITH_AES_256_CBC_SHA256",
    ]

    /// Per connection: SNI, version, cipher suite, resumption (TLS 1.3 `pre_shared_key` in the
    /// ServerHello; TLS 1.2 no Certificate), ALPN (ServerHello in 1.2; in 1.3 the decrypted
    /// EncryptedExtensions, ours only when the client offered a single protocol) and the times of the
    /// ClientHello and of the client's Finished frames.
    @Test(arguments: withHandshakeView)
    func connectionTLSEqualsTsharkHandshake(_ name: String) throws {
        let clear = try TruthTable.load(name, "tls.tsv").rows, decrypted = try TruthTable.load(name, "tls-decrypted.tsv").rows
        let (writer, _) = CollectingWriter.analyze([TestPaths.capture(name + ".pcap")])
        let connections = writer.connections.filter { $0["tls"] != nil && $0["tls"] != .null }
        // The first ClientHello of each connection: after a HelloRetryRequest (tls-edge, port 4442) the
        // client sends a second one on the same connection; the handshake starts at the first.
        var seenStreams = Set<Int>()
        let clientHellos = clear.filter { $0.list("tls.handshake.type").contains("1") && seenStreams.insert($0.int("tcp.stream")!).inserted }
        #expect(connections.count == clientHellos.count, "\(name): TLS connections = ClientHellos")
        var compared = 0
        for hello in clientHellos {
            let stream = hello.int("tcp.stream")!, clientPort = hello.int("tcp.srcport")!
            let label = "\(name) port \(clientPort)"
            guard let tls = connections.first(where: { $0.port("client") == clientPort })?["tls"] else {
                Issue.record("\(label): no TLS connection")
                continue
            }
            let serverHello = try #require(clear.first { $0.int("tcp.stream") == stream && $0.list("tls.handshake.type").contains("2") })
            let isTLS13 = serverHello["tls.handshake.extensions.supported_version"] == "0x0304"
            // no server_name extension (nghttp with an address, h2-python): tshark's field is empty, ours null
            let sni = hello["tls.handshake.extensions_server_name"]
            #expect(tls.string("sni") == (sni.isEmpty ? nil : sni), "\(label)")
            #expect(tls.string("version") == (isTLS13 ? "TLS 1.3" : "TLS 1.2"), "\(label)")
            #expect(tls.string("cipher") == Self.suiteNames[serverHello["tls.handshake.ciphersuite"]], "\(label)")
            let resumed = isTLS13
                ? serverHello.list("tls.handshake.extension.type").contains("41")
                : !clear.contains { $0.int("tcp.stream") == stream && $0.list("tls.handshake.type").contains("11") }
            #expect(tls["resumed"] == .bool(resumed), "\(label): resumed")
            let offered = hello.list("tls.handshake.extensions_alpn_str")
            let negotiated = isTLS13
                ? decrypted.first { $0.int("tcp.stream") == stream && $0.list("tls.handshake.type").contains("8") }?["tls.handshake.extensions_alpn_str"]
                : serverHello["tls.handshake.extensions_alpn_str"]
            if isTLS13 && offered.count > 1 {
                #expect(tls["alpn"] == .null && tls.string("alpn_source") == "unknown", "\(label): the server's choice is encrypted")
            } else {
                // no ALPN offered (openssl s_client, python in tls-ciphers): none negotiated, ours null
                #expect(tls.string("alpn") == (negotiated?.isEmpty == false ? negotiated : nil), "\(label): ALPN")
            }
            #expect(tls.time("ts_client_hello") == Double(hello["frame.time_epoch"]), "\(label): ClientHello time")
            // the client's handshake ends with its Finished; later client handshake messages are TLS 1.3
            // KeyUpdates (tls-ciphers: openssl s_client)
            let clientRows = decrypted.filter { $0.int("tcp.stream") == stream && $0.int("tcp.srcport") == clientPort }
            let clientFinished = try #require(clientRows.last { $0.list("tls.handshake.type").contains("20") })
            #expect(clientFinished.list("tls.handshake.type").last == "20", "\(label): the client's last handshake message is Finished")
            #expect(clientRows.drop { $0["frame.number"] != clientFinished["frame.number"] }.dropFirst()
                .allSatisfy { $0.list("tls.handshake.type").allSatisfy { $0 == "24" } }, "\(label): KeyUpdates after the Finished")
            #expect(tls.time("ts_client_finished") == Double(clientFinished["frame.time_epoch"]), "\(label): client Finished time")
            compared += 1
        }
        #expect(compared == clientHellos.count && compared > 0)
    }
}

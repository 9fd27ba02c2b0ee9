import Foundation
import Testing
@testable import WireTally

/// TLS analysis of public captures through the real pipeline, checked against tshark.
@Suite(.requires(.publicCaptures))
struct TLSCaptureTests {
    @Test func tls13WithResumption() throws {
        let path = try Requirement.publicCapture("wireshark__tls13-rfc8446.pcap")
        let connections = try TLSCaptureRun.analyze([path])
        #expect(connections.count == 2)
        for item in connections { TLSCaptureRun.checkConservation(item) }
        let (full, resumed) = (connections[0].tls.session, connections[1].tls.session)
        #expect(full.version == 0x0304 && resumed.version == 0x0304)
        #expect(full.cipherSuite?.name == "TLS_AES_128_GCM_SHA256")
        #expect(!full.resumed)
        #expect(resumed.resumed)
        #expect(resumed.clientHello?.offersEarlyData == true)
        // ClientHello and the client's Finished (frames 1/3 and, after 0-RTT + EndOfEarlyData, 7/11).
        #expect(full.clientHelloOrigin?.frameNumber == 1)
        #expect(full.clientFinishedOrigin?.frameNumber == 3)
        #expect(resumed.clientHelloOrigin?.frameNumber == 7)
        #expect(resumed.clientFinishedOrigin?.frameNumber == 11)
        #expect((full.handshakeNanoseconds ?? -1) >= 0)
        // One GET on the first connection; an early-data GET and a second GET on the resumed one.
        #expect(connections[0].tls.exchangeCount == 1)
        #expect(connections[0].tls.exchanges[0].request?.firstOrigin.frameNumber == 5)
        #expect(connections[0].tls.exchanges[0].response?.firstOrigin.frameNumber == 6)
        #expect(connections[1].tls.exchangeCount == 2)
        #expect(connections[1].tls.exchanges[1].request?.firstOrigin.frameNumber == 12)
        #expect(connections[1].tls.exchanges[1].response?.firstOrigin.frameNumber == 13)
        // The server's encrypted flight (EE, Certificate, CertificateVerify, Finished) is handshake.
        #expect(full.stats(.down).encryptedHandshake.records >= 1)
        #expect(full.stats(.up).encryptedHandshake.records == 1)
    }

    @Test(.requires(.tshark))
    func tls12KeepAliveEstimatesSixteenExchanges() throws {
        let path = try Requirement.publicCapture("zeek__tls__tls-1.2-stream-keylog.pcap")
        let connections = try TLSCaptureRun.analyze([path])
        #expect(connections.count == 1)
        let item = try #require(connections.first)
        TLSCaptureRun.checkConservation(item)
        let tls = item.tls
        #expect(tls.isEstimated)
        #expect(tls.session.sni == "www.heise.de")
        #expect(tls.session.alpn == "http/1.1" && tls.session.alpnSource == .serverHello)
        #expect(tls.session.versionName == "TLS 1.2")
        #expect(tls.session.cipherSuite?.name == "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384")
        #expect(tls.exchangeCount == 16)
        let exchanges = tls.exchanges
        for exchange in exchanges {
            let request = try #require(exchange.request), response = try #require(exchange.response)
            #expect(request.bytes.total == Int(request.streamRange.count))
            #expect(response.bytes.total == Int(response.streamRange.count))
            #expect(request.method == nil && response.status == nil && request.version == "http/1.1")
        }
        // The ledger: every exchange owns its bursts' packets; nothing of the payload is unattributed.
        #expect(item.connection.ledger.unattributed(.down).payloadBytes == 0)
        // Burst boundaries against the decrypted truth.
        let keylog = try Requirement.publicCapture("zeek__tls__tls-1.2-stream-keylog.derived-keylog.txt")
        let decrypted = ["-o", "tls.keylog_file:\(keylog)"]
        let requests = try Tshark.fields(path, filter: "http.request", ["frame.number"], options: decrypted)
        let responses = try Tshark.fields(path, filter: "http.response", ["frame.number"], options: decrypted)
        let requestFrames = requests.compactMap { Int($0[0]) }, responseFrames = responses.compactMap { Int($0[0]) }
        #expect(requestFrames.count == 16)
        #expect(responseFrames.count == 16)
        for (index, exchange) in exchanges.enumerated() where index < requestFrames.count && index < responseFrames.count {
            let request = exchange.request!, response = exchange.response!
            #expect((request.firstOrigin.frameNumber ... request.lastOrigin.frameNumber).contains(requestFrames[index]), "request \(index)")
            #expect((response.firstOrigin.frameNumber ... response.lastOrigin.frameNumber).contains(responseFrames[index]), "response \(index)")
        }
    }

    @Test(.requires(.tshark))
    func allCipherSuitesMatchTshark() throws {
        let path = try Requirement.publicCapture("pcapfs__all_ciphers.pcap")
        let connections = try TLSCaptureRun.analyze([path])
        #expect(connections.count == 31)
        for item in connections { TLSCaptureRun.checkConservation(item) }
        let ours = connections.sorted { $0.connection.firstTimestamp < $1.connection.firstTimestamp }
        for item in ours {
            #expect(item.tls.session.version == 0x0303)
            #expect(item.tls.session.cipherSuite?.name != nil, "suite \(item.tls.session.cipherSuite?.hexCode ?? "none") has a name")
            #expect(item.tls.session.clientFinishedOrigin != nil)
            #expect(item.tls.session.stats(.up).protectedRecords > 0)
        }
        let verbose = try Tshark.output(["-r", path, "-Y", "tls.handshake.type == 2", "-V"])
        let names = verbose.split(separator: "\n").compactMap { line -> String? in
            guard let match = line.firstMatch(of: /^\s+Cipher Suite: (\S+) \((0x[0-9a-f]{4})\)/) else { return nil }
            return String(match.1)
        }
        #expect(names.count == 31)
        #expect(names == ours.map { $0.tls.session.cipherSuite?.name ?? "?" })
        let versions = try Tshark.fields(path, filter: "tls.handshake.type == 2", ["tls.handshake.version"])
        #expect(versions.map { $0[0] } == ours.map { _ in "0x0303" })
    }

    @Test(.requires(.tshark))
    func sniAndALPNMatchTshark() throws {
        for name in ["pcapfs__all_ciphers.pcap", "zeek__tls__tls-1.2-stream-keylog.pcap", "illustrated-tls13__capture.pcap",
                     "wireshark__http2-data-reassembly.pcap", "wireshark__tls13-rfc8446.pcap"] {
            let path = try Requirement.publicCapture(name)
            let connections = try TLSCaptureRun.analyze([path])
            let hellos = try Tshark.fields(path, filter: "tls.handshake.type == 1",
                ["tcp.srcport", "tls.handshake.extensions_server_name", "tls.handshake.extensions_alpn_str"])
            #expect(hellos.count == connections.count, "\(name)")
            for row in hellos {
                guard let item = connections.first(where: { String($0.connection.clientPort) == row[0] }) else {
                    Issue.record("\(name): no connection from port \(row[0])")
                    continue
                }
                #expect((item.tls.session.sni ?? "") == row[1], "\(name) \(row[0])")
                #expect((item.tls.session.clientHello?.alpn ?? []).joined(separator: ",") == row[2], "\(name) \(row[0])")
            }
            let serverALPN = try Tshark.fields(path, filter: "tls.handshake.type == 2", ["tcp.dstport", "tls.handshake.extensions_alpn_str"])
            for row in serverALPN {
                guard let item = connections.first(where: { String($0.connection.clientPort) == row[0] }) else { continue }
                #expect((item.tls.session.serverHello?.alpn ?? "") == row[1], "\(name) \(row[0])")
            }
        }
    }

    @Test func illustratedTLS13() throws {
        let path = try Requirement.publicCapture("illustrated-tls13__capture.pcap")
        let connections = try TLSCaptureRun.analyze([path])
        let item = try #require(connections.first)
        TLSCaptureRun.checkConservation(item)
        let session = item.tls.session
        #expect(session.sni == "example.ulfheim.net")
        #expect(session.versionName == "TLS 1.3")
        #expect(session.cipherSuite?.name == "TLS_AES_256_GCM_SHA384")
        #expect(!session.resumed)
        #expect(session.alpnSource == .none)
        #expect(session.clientHelloOrigin != nil && session.clientFinishedOrigin != nil)
        // "ping" / "pong": one exchange; TLS 1.3 overhead is 17 bytes per record.
        #expect(item.tls.exchangeCount == 1)
        #expect(item.tls.exchanges.first?.request?.bytes.body == 4)
    }

    @Test func sslv3WithSessionIDResumption() throws {
        let path = try Requirement.publicCapture("wireshark__rsasnakeoil2.pcap")
        let connections = try TLSCaptureRun.analyze([path])
        #expect(connections.count == 2)
        for item in connections {
            TLSCaptureRun.checkConservation(item)
            #expect(item.tls.session.versionName == "SSL 3.0")
        }
        #expect(connections[0].tls.session.cipherSuite?.name == "TLS_RSA_WITH_AES_256_CBC_SHA")
        #expect(!connections[0].tls.session.resumed)
        #expect(connections[1].tls.session.resumed)
        #expect(connections[1].tls.session.cipherSuite?.name == "TLS_RSA_WITH_3DES_EDE_CBC_SHA")
    }

    @Test func http2IsOneSession() throws {
        let path = try Requirement.publicCapture("wireshark__http2-data-reassembly.pcap")
        let connections = try TLSCaptureRun.analyze([path])
        let item = try #require(connections.first)
        TLSCaptureRun.checkConservation(item)
        #expect(item.tls.session.alpn == "h2")
        #expect(item.tls.mode == .session)
        #expect(!item.tls.isEstimated)
        #expect(item.tls.exchangeCount == 0 && item.tls.exchanges.isEmpty)
        let ledger = item.connection.ledger
        #expect(ledger.exchanges.isEmpty)
        for direction in FlowDirection.allCases { #expect(ledger.unattributed(direction) == ledger.tally(direction).total) }
        #expect(item.tls.session.stats(.down).applicationData.records > 0)
    }

    @Test func nonTLSConnectionStaysUnattributed() throws {
        // A CONNECT tunnel: the stream starts with HTTP, not TLS records (TLS inside the tunnel is not
        // followed by this analysis on its own).
        let path = try Requirement.publicCapture("zeek__http__connect-with-header.pcap")
        for item in try TLSCaptureRun.analyze([path]) {
            TLSCaptureRun.checkConservation(item)
            #expect(item.tls.exchangeCount == 0)
            #expect(item.tls.session.lostAt[0] == 0)
        }
    }
}

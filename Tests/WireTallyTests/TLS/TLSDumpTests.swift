import Testing
@testable import WireTally

@Suite struct TLSDumpTests {
    @Test func dump() throws {
        for name in ["wireshark__tls13-rfc8446.pcap", "zeek__tls__tls-1.2-stream-keylog.pcap", "illustrated-tls13__capture.pcap", "wireshark__rsasnakeoil2.pcap", "wireshark__http2-data-reassembly.pcap", "zeek__http__connect-with-header.pcap", "pcapfs__all_ciphers.pcap"] {
            guard let path = TLSCaptureRun.publicCapture(name) else { continue }
            for item in try TLSCaptureRun.analyze([path]) {
                let s = item.tls.session
                print("DUMP \(name) conn \(item.connection.id) \(s.versionName ?? "-") \(s.cipherSuite?.displayName ?? "-") sni=\(s.sni ?? "-") alpn=\(s.alpn ?? "-")/\(s.alpnSource) resumed=\(s.resumed) mode=\(item.tls.mode) ex=\(item.tls.exchangeCount) ch=\(s.clientHelloOrigin?.frameNumber ?? -1) fin=\(s.clientFinishedOrigin?.frameNumber ?? -1) alerts=\(s.alerts.map { "\($0.direction) \($0.level ?? 0)/\($0.description ?? 0)" }) lost=\(s.lostAt) hs=\(s.handshakeMessages)")
                print("DUMP   up \(s.stats(.up))")
                print("DUMP   down \(s.stats(.down))")
                for e in item.tls.exchanges.prefix(20) {
                    print("DUMP   ex \(e.index) req \(e.request.map { "\($0.streamRange) \($0.firstOrigin.frameNumber)-\($0.lastOrigin.frameNumber) \($0.bytes.body)" } ?? "nil") resp \(e.response.map { "\($0.streamRange) \($0.firstOrigin.frameNumber)-\($0.lastOrigin.frameNumber) \($0.bytes.body)" } ?? "nil")")
                }
                TLSCaptureRun.checkConservation(item)
            }
        }
    }
}

import Foundation
import Testing
@testable import WireTally

/// Timing phases against curl's own `%{json}` times for the same transfers.
///
/// curl takes its times in user space, from the start of each transfer; the capture stamps packets in
/// the kernel at the veth. So only intervals whose both ends curl and the wire observe are compared,
/// with a 5 ms tolerance: most differences are tens of microseconds (syscall to kernel timestamp),
/// but curl notes an event when its event loop wakes up, and on the shared two-core recording machine
/// that lagged the wire by up to 4.7 ms (a handshake curl noticed 4.6 ms after the ACK left; a
/// transfer curl closed 3.9 ms after its last byte arrived):
/// - first request packet → last response packet (`total`, minus the time from the SYN to the request
///   on a connection's first exchange) with `time_total − time_pretransfer`;
/// - `connect` at most `time_connect − time_namelookup`: curl's clock also runs while it creates the
///   socket before the SYN, which no capture sees (up to several ms on a busy machine);
/// - `send + wait` with `time_starttransfer − time_pretransfer` and `receive` with
///   `time_total − time_starttransfer`, for downloads whose packets all arrived in order once:
///   with reordering the first response *packet* (our `wait` end) can precede the first in-order
///   byte curl waits for, and for uploads curl starts `starttransfer` when it begins sending the body.
///
/// For HTTPS and DNS (curl resolving through the recorded dnsmasq): `ssl` lies between the
/// ClientHello and the client's Finished, while curl's `time_appconnect − time_connect` also covers
/// building its TLS context before the ClientHello and reading the server's last flight, so ours is at
/// most curl's (+ tolerance) and positive; SYN → client Finished (both sides then include that set-up)
/// is compared with `time_appconnect − time_namelookup` within the tolerance. HTTPS exchanges
/// (estimated from records) go through the same total/wait/receive checks as cleartext ones. `dns` is the query-to-answer time on the wire, while curl's
/// `time_namelookup` also covers starting its resolver and waiting for both A and AAAA: ours at most
/// curl's; a connection whose address curl had cached has no lookup (`dns` -1). The TLS record's SNI
/// is the URL's host and its ALPN, when the handshake shows it, the protocol curl used.
@Suite struct TimingTests {
    static let tolerance = 5.0
    static let withCurlLog = TestPaths.files(in: TestPaths.captures, endingWith: [".curl.jsonl"])
        .map { String($0.dropLast(".curl.jsonl".count)) }

    @Test(arguments: withCurlLog)
    func phasesAgreeWithCurl(_ name: String) throws {
        let (writer, _) = CollectingWriter.analyze([TestPaths.capture(name + ".pcap")])
        var compared = 0, completed = 0
        for transfer in try CurlTransfer.load(name) where transfer.completed && transfer.fields["http_version"] as? String != "2" {
            completed += 1
            let curl = transfer.fields, port = transfer.port, index = transfer.index
            let record = try #require(writer.exchanges.first {
                ($0.string("conn.client") ?? "").hasSuffix(":\(port)") && $0.int("conn.index") == index
            })
            func ours(_ phase: String) -> Double { Double(record["timing"]?[phase]?.plainText ?? "") ?? -99 }
            func theirs(_ key: String) -> Double { transfer.milliseconds(key) }
            let what = "\(name) \(curl["url_effective"] ?? "") #\(index)"
            if index == 0 {
                #expect(ours("connect") >= 0 && ours("connect") <= theirs("time_connect") - theirs("time_namelookup") + Self.tolerance, "\(what) connect")
                let connection = try #require(writer.connections.first { $0.int("id") == record.int("conn.id") })
                let synToRequest = 1000 * ((Double(record["request"]?["ts_first"]?.plainText ?? "") ?? 0)
                    - (Double(connection["ts_first"]?.plainText ?? "") ?? 0))
                #expect(abs(ours("total") - synToRequest - (theirs("time_total") - theirs("time_pretransfer"))) < Self.tolerance, "\(what) total")
            } else {
                #expect(ours("connect") == -1, "\(what): a reused connection has no connect phase")
                #expect(abs(ours("total") - (theirs("time_total") - theirs("time_pretransfer"))) < Self.tolerance, "\(what) total")
            }
            let inOrderDownload = (record.int("wire.down.retransmitted_packets") ?? 0) == 0
                && (record.int("wire.up.retransmitted_packets") ?? 0) == 0 && (curl["size_upload"] as? Int ?? 0) == 0
                && !name.hasPrefix("lossy")
            if inOrderDownload {
                #expect(abs(ours("send") + ours("wait") - (theirs("time_starttransfer") - theirs("time_pretransfer"))) < Self.tolerance, "\(what) wait")
                #expect(abs(ours("receive") - (theirs("time_total") - theirs("time_starttransfer"))) < Self.tolerance, "\(what) receive")
            }
            #expect(ours("blocked") == -1)
            // Phases may overlap (a 100-continue response starts before the request ends): the total
            // spans them all rather than adding them up.
            let phases = ["connect", "send", "wait", "receive"].map(ours).filter { $0 >= 0 }
            #expect(ours("total") >= (phases.max() ?? 0) - 0.001, "\(what): total covers every phase")
            compared += 1
        }
        #expect(compared == completed)
    }

    static let withHTTPSOrDNS = withCurlLog.filter { $0.hasPrefix("tls") || $0.hasPrefix("dns") }

    @Test(arguments: withHTTPSOrDNS)
    func tlsAndDNSPhasesAgreeWithCurl(_ name: String) throws {
        let (writer, result) = CollectingWriter.analyze([TestPaths.capture(name + ".pcap")])
        Conservation.check(writer, result)
        var checked = 0
        for transfer in try CurlTransfer.load(name) where transfer.completed && transfer.index == 0 {
            let connection = try #require(writer.connections.first { ($0.string("client") ?? "").hasSuffix(":\(transfer.port)") })
            let what = "\(name) \(transfer.fields["url_effective"] ?? "")"
            let https = (transfer.fields["scheme"] as? String)?.lowercased() == "https"
            let tls = connection["tls"]
            #expect((tls != nil && tls != .null) == https, "\(what): TLS seen exactly on HTTPS")
            let timing: JSONValue?
            if let record = writer.exchanges.first(where: { $0.int("conn.id") == connection.int("id") && $0.int("conn.index") == 0 }) {
                timing = record["timing"]
            } else {
                timing = nil  // h2: no exchanges, phases are checked on the connection's TLS record
            }
            func ours(_ phase: String) -> Double? { timing.flatMap { Double($0[phase]?.plainText ?? "") } }
            if https, let tls {
                let url = transfer.fields["url_effective"] as? String ?? ""
                #expect(url.contains("://\(tls.string("sni") ?? "?")"), "\(what): SNI")
                if let alpn = tls.string("alpn") {
                    let version = transfer.fields["http_version"] as? String ?? ""
                    #expect(alpn == (version == "2" ? "h2" : "http/1.1"), "\(what): ALPN \(alpn) for HTTP \(version)")
                }
                let ssl = ours("ssl") ?? Double(tls["handshake_ms"]?.plainText ?? "") ?? -1
                let curlSSL = transfer.milliseconds("time_appconnect") - transfer.milliseconds("time_connect")
                #expect(ssl > 0 && ssl <= curlSSL + Self.tolerance, "\(what): ssl \(ssl) vs curl \(curlSSL)")
                // SYN → client Finished on the wire against curl's resolved → TLS connected: both include
                // the client's TLS set-up before its ClientHello.
                let finished = Double(tls["ts_client_finished"]?.plainText ?? "") ?? 0
                let syn = Double(connection["ts_first"]?.plainText ?? "") ?? 0
                let curlSetup = transfer.milliseconds("time_appconnect") - transfer.milliseconds("time_namelookup")
                #expect(abs((finished - syn) * 1000 - curlSetup) < Self.tolerance, "\(what): SYN→Finished vs curl")
            }
            if let dns = ours("dns") {
                let lookup = transfer.milliseconds("time_namelookup")
                let record = writer.exchanges.first { $0.int("conn.id") == connection.int("id") && $0.int("conn.index") == 0 }
                let dnsBytes = record?.int("wire.dns_ip_bytes") ?? 0
                if lookup > 0.1 {
                    #expect(dns > 0 && dns <= lookup + Self.tolerance, "\(what): dns \(dns) vs curl \(lookup)")
                    // the lookup's packets are the DNS record's, claimed by this first exchange
                    #expect(writer.dns.contains { $0.int("wire.ip_bytes") == dnsBytes && dnsBytes > 0 }, "\(what): dns_ip_bytes")
                } else {
                    #expect(dns == -1 && dnsBytes == 0, "\(what): curl had the address cached, no lookup on the wire")
                }
            }
            checked += 1
        }
        #expect(checked > 0)
    }
}

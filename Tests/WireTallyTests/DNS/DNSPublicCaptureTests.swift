import Foundation
import Testing
@testable import WireTally

/// DNS in the shared public captures (`../shared/captures/public`), against Zeek's dns.log and
/// tshark's dissection (its values written into the tests).
@Suite(.requires(.publicCaptures))
struct DNSPublicCaptureTests {
    private static func analyze(_ name: String) throws -> (CollectingWriter, AnalysisRun.Result) {
        CollectingWriter.analyze([try Requirement.publicCapture(name)])
    }

    /// Zeek's dns.log for wikipedia.pcap (port 53 rows; its mDNS, LLMNR and NetBIOS rows are not DNS
    /// transactions here): same transactions, names, types, rcodes, answers, TTLs and RTTs. Zeek sets
    /// `rtt` only when the response has answer records; its timestamps are masked in the baseline.
    @Test func wikipediaMatchesZeekDNSLog() throws {
        let (writer, result) = try Self.analyze("zeek__wikipedia.pcap")
        Conservation.check(writer, result)
        DNSWire.expectUDPRecordsMatchFlows(writer)
        let rows = try ZeekLog.load(try Requirement.publicCapture("zeek__wikipedia.dns.log"))
            .filter { $0["id.resp_p"] == "53" }
        #expect(rows.count == 14)
        #expect(writer.rawDNS.count == rows.count)
        for row in rows {
            let port = UInt16(row["id.orig_p"] ?? "") ?? 0
            let id = UInt16(row["trans_id"] ?? "") ?? 0
            let what = "\(row["query"] ?? "") \(row["qtype_name"] ?? "") id \(id)"
            guard let transaction = writer.rawDNS.first(where: { $0.client.port == port && $0.messageID == id }) else {
                Issue.record("no transaction for Zeek's \(what)")
                continue
            }
            #expect(transaction.client.description == "\(row["id.orig_h"] ?? ""):\(port)", "\(what)")
            #expect(transaction.server.description == "\(row["id.resp_h"] ?? ""):53", "\(what)")
            #expect(transaction.question?.name == row["query"], "\(what)")
            #expect(transaction.question?.type.description == row["qtype_name"], "\(what)")
            #expect(transaction.response?.rcode.description == row["rcode_name"], "\(what)")
            #expect(transaction.retries == 0 && transaction.flags.isEmpty, "\(what)")
            let answers = transaction.response?.answers ?? []
            let zeekAnswers = row["answers"] == "-" ? [] : (row["answers"] ?? "").split(separator: ",").map(String.init)
            #expect(answers.map(\.dataText) == zeekAnswers, "\(what)")
            let zeekTTLs = row["TTLs"] == "-" ? [] : (row["TTLs"] ?? "").split(separator: ",").compactMap { Double($0) }
            #expect(answers.map { Double($0.ttl) } == zeekTTLs, "\(what)")
            if let rtt = Double(row["rtt"] ?? "") {
                let ours = try #require(transaction.rttNanoseconds, "\(what)")
                #expect(abs(Double(ours) / 1e9 - rtt) < 3e-6, "\(what) rtt")
            }
            #expect(transaction.rttNanoseconds != nil, "\(what)")
        }
        #expect(writer.summary?.int("dns_transactions") == 14)
    }

    @Test func dnsOverTCP() throws {
        let (writer, result) = try Self.analyze("tcpdump__dns_tcp.pcap")
        Conservation.check(writer, result)
        #expect(writer.dns.count == 1)
        let record = try #require(writer.dns.first)
        #expect(record.string("transport") == "tcp")
        #expect(record.string("client") == "192.168.1.11:33779")
        #expect(record.string("server") == "209.87.249.18:53")
        #expect(record.int("dns_id") == 0x4319)
        #expect(record.string("query") == "www.tcpdump.org")
        #expect(record.string("qtype") == "A")
        #expect(record.string("rcode") == "NOERROR")
        #expect(record["addresses"] == .array([.string("192.139.46.66"), .string("198.199.88.104")]))
        #expect(record["rtt"]?.plainText == "125.857")
        #expect(writer.exchanges.isEmpty)
        let transaction = try #require(writer.rawDNS.first)
        #expect(transaction.response?.edns != nil)
        // Both messages with their length prefixes: the connection's whole payload.
        #expect(record.int("wire.payload_bytes") == writer.summary?.int("outcomes.tcp.payload_bytes"))
    }

    @Test func pcapngMultiInterface() throws {
        let (writer, result) = try Self.analyze("zeek__pcapng-multi-interface.pcapng")
        Conservation.check(writer, result)
        DNSWire.expectUDPRecordsMatchFlows(writer)
        let summary = writer.dns.map { "\($0.string("query") ?? "") \($0.string("qtype") ?? "") \($0["addresses"]?.serialized ?? "")" }
        #expect(summary == [
            "www.apple.com A [\"23.194.101.24\"]",
            "google.com A [\"142.251.181.138\",\"142.251.181.139\",\"142.251.181.113\",\"142.251.181.100\",\"142.251.181.101\",\"142.251.181.102\"]",
            "google.com AAAA [\"2607:f8b0:4023:2007::66\",\"2607:f8b0:4023:2007::8b\",\"2607:f8b0:4023:2007::71\",\"2607:f8b0:4023:2007::8a\"]",
        ])
        #expect(writer.dns[0]["cnames"] == .array(["www-apple-com.v.aaplimg.com", "www.apple.com.edgekey.net", "e6858.dsce9.akamaiedge.net"].map(JSONValue.string)))
        // Nanosecond interface: RTT to the nanosecond-derived microsecond.
        #expect(writer.dns[0]["rtt"]?.plainText == "13.961")
    }

    /// tshark's `dns.time` for each response, in microseconds, and the addresses it lists in answers.
    @Test(arguments: [
        ("pcapplusplus__sll.pcap", [
            "daisy.ubuntu.com A 95944 162.213.33.164,162.213.33.133", "daisy.ubuntu.com A 96534 162.213.33.164,162.213.33.133",
            "daisy.ubuntu.com A 17489 162.213.33.164,162.213.33.133", "daisy.ubuntu.com A 18315 162.213.33.164,162.213.33.133",
            "daisy.ubuntu.com A 17644 162.213.33.133,162.213.33.164", "daisy.ubuntu.com A 18022 162.213.33.133,162.213.33.164",
            "www.ynet.co.il AAAA 60359 ", "www.ynet.co.il AAAA 61431 ",
            "www.ynet.co.il A 23519 212.199.202.69,212.199.202.9", "www.ynet.co.il A 24119 212.199.202.69,212.199.202.9",
        ]),
        ("pcapplusplus__raw_ip.pcap", [
            "crl.microsoft.com A 17004 82.102.152.19,82.102.152.18", "www.ynet.co.il A 18001 23.221.143.117",
            "e12476.b.akamaiedge.net A 17001 23.221.143.117",
        ]),
    ])
    func otherLinkTypes(_ capture: String, _ expected: [String]) throws {
        let (writer, result) = try Self.analyze(capture)
        Conservation.check(writer, result)
        DNSWire.expectUDPRecordsMatchFlows(writer)
        let ours = writer.rawDNS.map { transaction in
            let rtt = (transaction.rttNanoseconds ?? -1_000) / 1_000
            let addresses = transaction.addresses.map(\.description).joined(separator: ",")
            return "\(transaction.question?.name ?? "") \(transaction.question?.type.description ?? "") \(rtt) \(addresses)"
        }
        #expect(ours == expected)
    }
}

import Foundation
import Testing
@testable import WireTally

/// `captures/dns-svcb.pcap` (`scripts/record-dns-svcb`: dnsmasq serving hand-encoded HTTPS and SVCB
/// records to dig, one query over TCP, one record with keys out of order, then an HTTP connection to
/// an address given only as an ipv4hint) against tshark's view of every SVCB/HTTPS answer
/// (`dns-svcb.svcb.tsv`, `scripts/lib/svcb-truth.py`).
@Suite struct DNSServiceBindingCaptureTests {
    static let name = "dns-svcb"

    /// The fields of one SVCB/HTTPS answer as both sides give them.
    struct Answer: Hashable {
        var name: String
        var type: String
        var ttl: Int
        var priority: Int
        var target: String
        var mandatory: [String]
        var alpn: [String]
        var noDefaultALPN: Bool
        var port: Int?
        var ipv4hint: [String]
        var ipv6hint: [String]
        var echBytes: Int?
        var otherParams: [String: Int]
        var malformed: Bool
    }

    /// tshark's row as an answer. Parameters after the first key that is not above the previous one
    /// are not ours (RFC 9460 §2.2: the record is malformed; the reading stops there), so a field
    /// comes from tshark only when its key is before that point and appears once.
    static func truthAnswer(_ row: TruthTable.Row) -> Answer {
        let keys = row.list("dns.svcb.svcparam.key").compactMap { UInt16($0) }
        let lengths = row.list("dns.svcb.svcparam.value.length").compactMap { Int($0) }
        var kept = 0
        while kept < keys.count, kept == 0 || keys[kept] > keys[kept - 1] { kept += 1 }
        let keptKeys = Array(keys.prefix(kept))
        func field(_ key: UInt16, _ column: String) -> [String] {
            keptKeys.contains(key) && keys.filter({ $0 == key }).count == 1 ? row.list(column) : []
        }
        let target = row["dns.svcb.targetname"]
        return Answer(
            name: row["dns.resp.name"], type: row["dns.resp.type"] == "65" ? "HTTPS" : "SVCB", ttl: row.int("dns.resp.ttl") ?? -1,
            priority: row.int("dns.svcb.svcpriority") ?? -1, target: target == "<Root>" ? "." : target,
            mandatory: field(0, "dns.svcb.svcparam.mandatory.key").compactMap { UInt16($0) }.map(DNSServiceParameter.name(ofKey:)),
            alpn: field(1, "dns.svcb.svcparam.alpn"), noDefaultALPN: keptKeys.contains(2),
            port: field(3, "dns.svcb.svcparam.port").first.flatMap { Int($0) },
            ipv4hint: field(4, "dns.svcb.svcparam.ipv4hint.ip"), ipv6hint: field(6, "dns.svcb.svcparam.ipv6hint.ip"),
            echBytes: keptKeys.firstIndex(of: 5).map { lengths[$0] },
            otherParams: Dictionary(uniqueKeysWithValues: zip(keptKeys, lengths).filter { $0.0 > 6 }.map { ("key\($0.0)", $0.1) }),
            malformed: kept < keys.count)
    }

    /// Our answer object as an answer.
    static func ourAnswer(_ value: JSONValue) -> Answer {
        func strings(_ key: String) -> [String] {
            if case let .array(values)? = value[key] { return values.map(\.plainText) }
            return []
        }
        var other: [String: Int] = [:]
        if case let .object(members)? = value["other_params"] {
            for (key, length) in members { if case let .integer(bytes) = length { other[key] = bytes } }
        }
        return Answer(
            name: value.string("name") ?? "", type: value.string("type") ?? "", ttl: value.int("ttl") ?? -1,
            priority: value.int("priority") ?? -1, target: value.string("target") ?? "", mandatory: strings("mandatory"),
            alpn: strings("alpn"), noDefaultALPN: value["no_default_alpn"] == .bool(true), port: value.int("port"),
            ipv4hint: strings("ipv4hint"), ipv6hint: strings("ipv6hint"), echBytes: value.int("ech_bytes"),
            otherParams: other, malformed: value["malformed"] == .bool(true))
    }

    /// Every SVCB/HTTPS answer tshark decodes is ours, field by field and in answer order per message
    /// (keyed by DNS id), and we have no other.
    @Test func everyAnswerEqualsTshark() throws {
        let rows = try TruthTable.load(Self.name, "svcb.tsv").rows
        let (writer, _) = CollectingWriter.analyze([TestPaths.capture(Self.name + ".pcap")])
        var truth: [Int: [Answer]] = [:]
        for row in rows { truth[Int(row["dns.id"].dropFirst(2), radix: 16)!, default: []].append(Self.truthAnswer(row)) }
        var ours: [Int: [Answer]] = [:]
        for record in writer.dns {
            guard case let .array(answers)? = record["answers"] else { continue }
            let bindings = answers.filter { ["HTTPS", "SVCB"].contains($0.string("type")) }.map(Self.ourAnswer)
            if !bindings.isEmpty { ours[record.int("dns_id")!, default: []] += bindings }
        }
        #expect(rows.count == 5)
        #expect(ours == truth)
    }

    /// The transactions: one per dig query (one over TCP), `advertises_h3` only where an HTTPS answer
    /// in ServiceMode lists h3, `malformed` only for the record with keys out of order.
    @Test func transactionsSummarizeTheirBindings() throws {
        let (writer, _) = CollectingWriter.analyze([TestPaths.capture(Self.name + ".pcap")])
        let summary = writer.dns.map { record in
            "\(record.string("query") ?? "") \(record.string("qtype") ?? "") \(record.string("transport") ?? "") "
                + "h3=\(record["advertises_h3"] == .bool(true)) \(record.flagNames)"
        }
        let expected: [String] = [
            "www.svcb.test HTTPS udp h3=false []", "svc.svcb.test HTTPS udp h3=true []",
            "_dns.ns.svcb.test SVCB tcp h3=false []", "bad.svcb.test HTTPS udp h3=false [\"malformed\"]",
        ]
        #expect(summary.sorted() == expected.sorted())
        // dig printed one answer line per well-formed binding, and rejected the malformed message
        // ("Got bad packet: FORMERR", then its bytes: the id first) — the one we flag
        let dig = try String(contentsOfFile: TestPaths.capture(Self.name + ".dig.txt"), encoding: .utf8)
        let digLines = dig.matches(of: /\n\S+\s+\d+\s+IN\s+(?:HTTPS|SVCB)\s/).count
        let answers: [DNSResourceRecord] = writer.rawDNS.flatMap { $0.response?.answers ?? [] }
        let wellFormed = answers.filter { (answer: DNSResourceRecord) in
            if case let .serviceBinding(binding) = answer.data { return !binding.isMalformed }
            return false
        }
        #expect(digLines == wellFormed.count)
        let rejected = dig.matches(of: /Got bad packet: FORMERR\n\d+ bytes\n([0-9a-f]{2}) ([0-9a-f]{2})/)
            .map { Int($0.1 + $0.2, radix: 16)! }
        #expect(rejected == writer.dns.filter { $0.flagNames.contains("malformed") }.compactMap { $0.int("dns_id") })
    }

    /// The HTTP connection to 192.0.2.1, an address only the HTTPS answer's ipv4hint gave, claims that
    /// lookup: its exchange has a `dns` phase and the lookup's IP bytes.
    @Test func hintAddressClaimsTheLookup() throws {
        let (writer, _) = CollectingWriter.analyze([TestPaths.capture(Self.name + ".pcap")])
        let lookup = try #require(writer.dns.first { $0.string("query") == "svc.svcb.test" })
        let exchange = try #require(writer.exchanges.first)
        #expect(writer.exchanges.count == 1)
        #expect(exchange.int("wire.dns_ip_bytes") == lookup.int("wire.ip_bytes"))
        let dns = try #require(exchange["timing"]?["dns"]).plainText
        #expect((Double(dns) ?? -1) > 0, "dns phase \(dns)")
    }
}

import Foundation
import Testing
@testable import WireTally

/// DNS transactions of the recorded captures against tshark's DNS view written at recording time
/// (`NAME.dns.tsv`): every query is one of our transactions, with its answer.
@Suite struct DNSTsharkTruthTests {
    static let withDNSView = TestPaths.recordedCaptures(beside: ".dns.tsv")

    /// What both sides say about one transaction.
    struct Transaction: Hashable {
        var id: Int
        var clientPort: Int
        var transport: String
        var name: String
        var type: String
        var rcode: String
        var addresses: [String]
        var cnames: [String]
        /// Query → answer in microseconds, from the frames' timestamps.
        var microseconds: Int
        var queryTime: String
    }

    static let typeNames = ["1": "A", "28": "AAAA"]
    static let rcodeNames = ["0": "NOERROR", "3": "NXDOMAIN"]

    /// Each query row of tshark paired with its response (`dns.response_to`) is exactly one of our
    /// transactions: id, client port, transport, name, type, rcode, addresses, CNAMEs, query time and
    /// round trip; we have no other.
    @Test(arguments: withDNSView)
    func transactionsEqualTshark(_ name: String) throws {
        let rows = try TruthTable.load(name, "dns.tsv").rows
        let queries = Dictionary(uniqueKeysWithValues: rows.filter { $0["dns.flags.response"] == "0" }.map { ($0.int("frame.number")!, $0) })
        var truth: [Transaction] = []
        for response in rows where response["dns.flags.response"] == "1" {
            let query = try #require(queries[response.int("dns.response_to") ?? -1], "\(name): response frame \(response["frame.number"]) unmatched")
            let isTCP = !query["tcp.srcport"].isEmpty
            truth.append(Transaction(
                id: Int(query["dns.id"].dropFirst(2), radix: 16)!, clientPort: query.int(isTCP ? "tcp.srcport" : "udp.srcport")!,
                transport: isTCP ? "tcp" : "udp", name: query["dns.qry.name"], type: Self.typeNames[query["dns.qry.type"]] ?? query["dns.qry.type"],
                rcode: Self.rcodeNames[response["dns.flags.rcode"]] ?? response["dns.flags.rcode"],
                addresses: (response.list("dns.a") + response.list("dns.aaaa")).sorted(), cnames: response.list("dns.cname"),
                microseconds: Int((Double(response["dns.time"])! * 1e6).rounded()), queryTime: String(format: "%.6f", Double(query["frame.time_epoch"])!)))
        }
        #expect(truth.count == queries.count, "\(name): every query answered")
        let (writer, _) = CollectingWriter.analyze([TestPaths.capture(name + ".pcap")])
        let ours = writer.dns.map { record -> Transaction in
            func strings(_ key: String) -> [String] {
                if case let .array(values)? = record[key] { return values.map(\.plainText) }
                return []
            }
            return Transaction(
                id: record.int("dns_id") ?? -1, clientPort: record.port("client") ?? -1, transport: record.string("transport") ?? "",
                name: record.string("query") ?? "", type: record.string("qtype") ?? "", rcode: record.string("rcode") ?? "",
                addresses: strings("addresses").sorted(), cnames: strings("cnames"),
                microseconds: Int(((record.time("rtt") ?? -1) * 1000).rounded()), queryTime: record["ts_query"]?.plainText ?? "")
        }
        #expect(!truth.isEmpty)
        #expect(Dictionary(grouping: ours, by: { $0 }).mapValues(\.count) == Dictionary(grouping: truth, by: { $0 }).mapValues(\.count),
                "\(name): our DNS transactions = tshark's")
    }
}

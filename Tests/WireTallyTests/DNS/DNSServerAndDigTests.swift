import Foundation
import Testing
@testable import WireTally

/// DNS transactions of the recorded captures against the resolver's own query log
/// (`NAME.dnsmasq.log`, `log-queries=extra`) and dig's printed answers (`dns-http.dig.txt`).
@Suite struct DNSServerAndDigTests {
    static let withResolverLog = TestPaths.recordedCaptures(beside: ".dnsmasq.log")

    /// One query dnsmasq logged, with what it answered from its configuration.
    struct LoggedQuery: Hashable {
        var clientPort: Int
        var type: String
        var name: String
        /// Addresses it answered (`config NAME is ADDR`), sorted.
        var addresses: [String] = []
        var nxdomain = false
    }

    /// Reads the log's `query[TYPE] NAME` lines and the `config … is …` replies of the same serial.
    static func loggedQueries(_ name: String) throws -> [LoggedQuery] {
        var bySerial: [Int: LoggedQuery] = [:], order: [Int] = []
        let text = try String(contentsOfFile: TestPaths.capture(name + ".dnsmasq.log"), encoding: .utf8)
        for line in text.split(separator: "\n") {
            if let match = line.firstMatch(of: /: (\d+) [0-9a-f.:]+\/(\d+) query\[(\w+)\] (\S+) from/) {
                bySerial[Int(match.1)!] = LoggedQuery(clientPort: Int(match.2)!, type: String(match.3), name: String(match.4))
                order.append(Int(match.1)!)
            } else if let match = line.firstMatch(of: /: (\d+) [0-9a-f.:]+\/\d+ config \S+ is (\S+)/) {
                let serial = Int(match.1)!, answer = String(match.2)
                if answer == "NXDOMAIN" { bySerial[serial]?.nxdomain = true }
                // `<CNAME>` stands for a CNAME record, `NODATA-IPv6` for an empty answer (a name without AAAA).
                else if answer != "<CNAME>" && !answer.hasPrefix("NODATA") { bySerial[serial]?.addresses.append(answer) }
            }
        }
        return order.map { var query = bySerial[$0]!; query.addresses.sort(); return query }
    }

    /// Every query dnsmasq answered is exactly one of our DNS transactions (client port, type, name),
    /// with its addresses and NXDOMAIN; we have no other transaction.
    @Test(arguments: withResolverLog)
    func transactionsEqualTheResolverLog(_ name: String) throws {
        let logged = try Self.loggedQueries(name)
        let (writer, _) = CollectingWriter.analyze([TestPaths.capture(name + ".pcap")])
        let ours = writer.dns.map { record -> LoggedQuery in
            var addresses: [String] = []
            if case let .array(values)? = record["addresses"] { addresses = values.map(\.plainText).sorted() }
            return LoggedQuery(clientPort: record.port("client") ?? -1, type: record.string("qtype") ?? "",
                               name: record.string("query") ?? "", addresses: addresses, nxdomain: record.string("rcode") == "NXDOMAIN")
        }
        #expect(!logged.isEmpty)
        #expect(Dictionary(grouping: ours, by: { $0 }).mapValues(\.count) == Dictionary(grouping: logged, by: { $0 }).mapValues(\.count),
                "\(name): our DNS transactions = dnsmasq's queries and answers")
    }

    /// Each dig run's header (id, status), transport and answer addresses equal our transaction with
    /// that DNS id.
    @Test func digAnswersEqualOurTransactions() throws {
        let text = try String(contentsOfFile: TestPaths.capture("dns-http.dig.txt"), encoding: .utf8)
        let runs = text.components(separatedBy: "; <<>> DiG").dropFirst()
        let (writer, _) = CollectingWriter.analyze([TestPaths.capture("dns-http.pcap")])
        #expect(runs.count == 2)
        for run in runs {
            let header = try #require(run.firstMatch(of: /status: (\w+), id: (\d+)/))
            let transport = try #require(run.firstMatch(of: /;; SERVER: \S+ \((TCP|UDP)\)/)).1.lowercased()
            let answers = run.matches(of: /\n\S+\s+\d+\s+IN\s+(?:A|AAAA)\s+(\S+)/).map { String($0.1) }.sorted()
            let record = try #require(writer.dns.first { $0.int("dns_id") == Int(header.2)! }, "no transaction with id \(header.2)")
            #expect(record.string("rcode") == String(header.1))
            #expect(record.string("transport") == transport)
            var addresses: [String] = []
            if case let .array(values)? = record["addresses"] { addresses = values.map(\.plainText).sorted() }
            #expect(addresses == answers, "id \(header.2)")
        }
    }
}

import Foundation
import Testing
@testable import WireTally

/// Real-world captures from other projects' test suites (`../shared/captures/public`): no crash,
/// conservation everywhere, and Zeek's per-connection IP byte counts.
@Suite(.requires(.publicCaptures))
struct PublicCaptureAnalysisTests {
    @Test(arguments: TestPaths.publicCaptureFiles)
    func analysesWithoutLosingAByte(_ name: String) throws {
        let path = try Requirement.publicCapture(name)
        let (writer, result) = CollectingWriter.analyze([path])
        Conservation.check(writer, result)
        for error in result.errors { #expect(String(describing: error).contains(name)) }
    }

    /// Zeek conn.log baselines shipped beside their captures.
    static let zeekBaselines: [(capture: String, log: String)] = [
        ("zeek__http__get.pcap", "zeek__http__get.conn.log"),
        ("zeek__wikipedia.pcap", "zeek__wikipedia.conn.log"),
        ("zeek__http__connect-with-header.pcap", "zeek__http__connect-with-header.conn.log"),
        ("zeek__pcapng-multi-interface.pcapng", "zeek__pcapng-multi-interface.conn.log"),
    ]

    @Test(arguments: zeekBaselines.map(\.capture))
    func ipBytesMatchZeek(_ capture: String) throws {
        let log = Self.zeekBaselines.first { $0.capture == capture }!.log
        let rows = try ZeekConnLog.load(try Requirement.publicCapture(log)).filter { $0.proto != "icmp" }
        let (writer, _) = CollectingWriter.analyze([try Requirement.publicCapture(capture)])
        let records = writer.connections + writer.flows
        #expect(!rows.isEmpty)
        for row in rows {
            let record = records.first {
                Set([$0.string("client"), $0.string("server")]) == Set([row.originator, row.responder])
            }
            guard let record else {
                Issue.record("\(capture): no record for \(row.originator) ↔ \(row.responder)")
                continue
            }
            let originatorIsClient = record.string("client") == row.originator
            let fromOriginator = originatorIsClient ? "up" : "down"
            let fromResponder = originatorIsClient ? "down" : "up"
            #expect(record.int("\(fromOriginator).packets") == row.originatorPackets, "\(capture) \(row.originator)")
            #expect(record.int("\(fromOriginator).ip_bytes") == row.originatorIPBytes, "\(capture) \(row.originator)")
            #expect(record.int("\(fromResponder).packets") == row.responderPackets, "\(capture) \(row.responder)")
            #expect(record.int("\(fromResponder).ip_bytes") == row.responderIPBytes, "\(capture) \(row.responder)")
        }
    }
}

/// Rows of a Zeek conn.log (TSV with a `#fields` header).
struct ZeekConnLog {
    var originator: String
    var responder: String
    var proto: String
    var originatorPackets: Int
    var originatorIPBytes: Int
    var responderPackets: Int
    var responderIPBytes: Int

    static func load(_ path: String) throws -> [ZeekConnLog] {
        func endpoint(_ host: String, _ port: String) -> String {
            host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        }
        return try ZeekLog.load(path).map { row in
            ZeekConnLog(
                originator: endpoint(row["id.orig_h"] ?? "", row["id.orig_p"] ?? ""),
                responder: endpoint(row["id.resp_h"] ?? "", row["id.resp_p"] ?? ""),
                proto: row["proto"] ?? "",
                originatorPackets: Int(row["orig_pkts"] ?? "") ?? -1, originatorIPBytes: Int(row["orig_ip_bytes"] ?? "") ?? -1,
                responderPackets: Int(row["resp_pkts"] ?? "") ?? -1, responderIPBytes: Int(row["resp_ip_bytes"] ?? "") ?? -1)
        }
    }
}

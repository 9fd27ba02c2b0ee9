import Foundation
import Testing
@testable import WireTally

/// The project's own recorded captures (real nginx/python servers, real clients): every connection's
/// packets, frame bytes, IP bytes and payload bytes per direction equal tshark's, and conservation holds.
@Suite struct RecordedCaptureTests {
    static let recorded = TestPaths.files(in: TestPaths.captures, endingWith: [".pcap"])

    @Test(arguments: recorded)
    func connectionsMatchTshark(_ name: String) throws {
        let (writer, result) = CollectingWriter.analyze([TestPaths.capture(name)])
        #expect(result.errors.isEmpty)
        Conservation.check(writer, result)
        let truth = try TsharkConversation.load(TestPaths.capture(name.replacingOccurrences(of: ".pcap", with: ".frames.tsv")))
        let ours = writer.connections.sorted {
            (Double($0["ts_first"]!.plainText) ?? 0) < (Double($1["ts_first"]!.plainText) ?? 0)
        }
        #expect(ours.count == truth.count, "\(name): \(ours.count) connections, tshark has \(truth.count) streams")
        var unmatched = truth
        for connection in ours {
            let client = connection.string("client")!, server = connection.string("server")!
            guard let index = unmatched.firstIndex(where: {
                Set([$0.endpointA, $0.endpointB]) == Set([client, server])
            }) else {
                Issue.record("\(name): connection \(client)→\(server) not in tshark's streams")
                continue
            }
            let conversation = unmatched.remove(at: index)
            let fromClient = conversation.endpointA == client ? conversation.fromA : conversation.fromB
            let fromServer = conversation.endpointA == client ? conversation.fromB : conversation.fromA
            let up = ["packets", "frame_bytes", "ip_bytes", "payload_bytes"].map { connection.int("up.\($0)")! }
            let down = ["packets", "frame_bytes", "ip_bytes", "payload_bytes"].map { connection.int("down.\($0)")! }
            #expect(up == fromClient, "\(name) \(client)→\(server) up")
            #expect(down == fromServer, "\(name) \(client)→\(server) down")
        }
    }

    static let withTcpdumpStatistics = TestPaths.recordedCaptures(beside: ".tcpdump.txt")

    /// tcpdump's own exit statistics (`NAME.tcpdump.txt`): the capture lost nothing in the kernel, so
    /// the server and client logs describe the same traffic the file holds, and wiretally reads exactly
    /// as many packets as tcpdump wrote.
    @Test(arguments: withTcpdumpStatistics)
    func readsEveryPacketTcpdumpCaptured(_ name: String) throws {
        let text = try String(contentsOfFile: TestPaths.capture(name + ".tcpdump.txt"), encoding: .utf8)
        func statistic(_ label: String) throws -> Int {
            let line = try #require(text.split(separator: "\n").first { $0.hasSuffix(" packets \(label)") }, "\(name): no '\(label)' line")
            return try #require(Int(line.split(separator: " ")[0]))
        }
        #expect(try statistic("dropped by kernel") == 0, "\(name): tcpdump dropped packets")
        let (_, result) = CollectingWriter.analyze([TestPaths.capture(name + ".pcap")])
        #expect(result.summary.read.packets == (try statistic("captured")), "\(name): packets read vs tcpdump's count")
    }

    @Test func gzipAndPcapngVariantsReadTheSame() throws {
        for (original, variant) in [("nginx-chunked-gzip.pcap", "nginx-chunked-gzip.pcap.gz"),
                                    ("nginx-pipelining.pcap", "nginx-pipelining.pcapng")] {
            let (a, _) = CollectingWriter.analyze([TestPaths.capture(original)])
            let (b, resultB) = CollectingWriter.analyze([TestPaths.capture(variant)])
            #expect(resultB.errors.isEmpty)
            Conservation.check(b, resultB)
            #expect(a.connections.map { $0["up"] } == b.connections.map { $0["up"] }, "\(variant)")
            #expect(a.connections.map { $0["down"] } == b.connections.map { $0["down"] }, "\(variant)")
        }
    }
}

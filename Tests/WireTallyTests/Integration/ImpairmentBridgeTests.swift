import Foundation
import Testing
@testable import WireTally

/// The lossy recording against the impairment bridge's own records (`lossy.bridge-summary.json`:
/// frames per direction; `lossy.bridge-events.jsonl`: every drop, duplicate and reordering). The
/// capture is taken on the client's side of the bridge: every client frame is captured before the
/// bridge sees it, and the client receives what the bridge forwarded plus the duplicates.
@Suite struct ImpairmentBridgeTests {
    @Test func packetCountsAndRetransmissionsFollowTheBridge() throws {
        let summary = try #require(try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: TestPaths.capture("lossy.bridge-summary.json")))) as? [String: Any])
        let directions = try #require(summary["directions"] as? [String: [String: Int]])
        let clientToServer = try #require(directions["m1->m2"]), serverToClient = try #require(directions["m2->m1"])
        let events = try JSONLines.load(TestPaths.capture("lossy.bridge-events.jsonl"))
        func count(_ direction: String, _ action: String, withPayload: Bool) -> Int {
            events.count { $0["dir"] as? String == direction && $0["action"] as? String == action && (($0["tcp_len"] as? Int ?? 0) > 0) == withPayload }
        }
        #expect(events.count { $0["dir"] as? String == "m2->m1" && $0["action"] as? String == "duplicate" } == serverToClient["duplicated"])

        let (writer, result) = CollectingWriter.analyze([TestPaths.capture("lossy.pcap")])
        Conservation.check(writer, result)
        #expect(writer.flows.isEmpty, "only TCP is impaired and captured")
        let up = writer.connections.reduce(0) { $0 + ($1.int("up.packets") ?? 0) }
        let down = writer.connections.reduce(0) { $0 + ($1.int("down.packets") ?? 0) }
        // Exact: the client's frames are the bridge's input from the client; the client received what
        // the bridge forwarded plus a second copy of each duplicated frame.
        #expect(up == clientToServer["in"], "client→server packets = frames into the bridge")
        #expect(down == serverToClient["forwarded"]! + serverToClient["duplicated"]!, "server→client packets = forwarded + duplicated")
        // Bounds: each dropped client data segment is sent again (seen twice here), each duplicated
        // server data segment arrives twice; other retransmissions (the server's, spurious ones) add to these.
        let upRetransmitted = writer.connections.reduce(0) { $0 + ($1.int("up.retransmitted_packets") ?? 0) }
        let downRetransmitted = writer.connections.reduce(0) { $0 + ($1.int("down.retransmitted_packets") ?? 0) }
        #expect(upRetransmitted >= count("m1->m2", "drop", withPayload: true))
        #expect(downRetransmitted >= count("m2->m1", "duplicate", withPayload: true))
        #expect(count("m1->m2", "drop", withPayload: true) > 0 && count("m2->m1", "duplicate", withPayload: true) > 0)
    }
}

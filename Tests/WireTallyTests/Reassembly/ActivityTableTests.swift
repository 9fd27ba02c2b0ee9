import Testing
@testable import WireTally

/// `ActivityTable`: lookups by key (flows found recently answered without the dictionary, never after
/// they left the table, also when two keys share a slot of recent flows), the sweep mark: a settle sweep visits each idle flow once per idle period, and a
/// flow that sees activity (or leaves the table) is visited again by the next sweep, in activity order;
/// and the list's own hold on its flows (its links are unretained): a flow lives while it is linked,
/// even when another took its key, and is freed once it left the list or the list went.
@Suite struct ActivityTableTests {
    final class Flow: ActivityTracked {
        let name: String
        let key: FlowKey
        var newer: Unmanaged<Flow>?
        var older: Unmanaged<Flow>?
        var lastActivity = Timestamp(nanoseconds: 0)
        init(_ name: String, port: UInt16) {
            self.name = name
            key = ActivityTableTests.key(port)
        }
    }

    /// Flows f1, f2, … on ports 1, 2, …
    static func flows(_ count: Int) -> [Flow] { (1...count).map { Flow("f\($0)", port: UInt16($0)) } }

    @Test func lookupsFindTheFreshestAndTheOthersAndNothingRemoved() {
        var table = ActivityTable<Flow>()
        let flows = Self.flows(3)
        for flow in flows { table.insert(flow) }
        #expect(table[Self.key(3)] === flows[2])  // the freshest
        #expect(table[Self.key(1)] === flows[0])
        #expect(table[Self.key(4)] == nil)
        table.touch(flows[0])
        #expect(table[Self.key(1)] === flows[0])
        #expect(table[Self.key(3)] === flows[2])
        // the freshest leaves: its key finds nothing, the next freshest is found
        table.remove(flows[0])
        #expect(table[Self.key(1)] == nil)
        #expect(table[Self.key(3)] === flows[2])
        // a new flow under a removed key is found, not the old one
        let again = Flow("f1 again", port: 1)
        table.insert(again)
        #expect(table[Self.key(1)] === again)
        _ = table.removeAll()
        #expect(table[Self.key(1)] == nil)
        #expect(table[Self.key(2)] == nil)
    }

    @Test func keysSharingARecentSlotAreEachFoundAndNeverAfterRemoval() throws {
        let first = Self.key(1)
        let sharing = (2...UInt16.max).map(Self.key).filter { $0.recentSlot == first.recentSlot }.prefix(2)
        try #require(sharing.count == 2)
        var table = ActivityTable<Flow>()
        let flows = [Flow("f1", port: 1), Flow("s1", port: sharing.first!.lowPort), Flow("s2", port: sharing.last!.lowPort)]
        for flow in flows { table.insert(flow) }
        // each found by its key, in turns that move the slot from one to another
        for _ in 0..<2 {
            for flow in flows.reversed() + flows { #expect(table.unretainedFlow(for: flow.key)?.takeUnretainedValue() === flow) }
        }
        // the one in the slot leaves: its key finds nothing, the others are still found
        #expect(table[flows[1].key] === flows[1])
        table.remove(flows[1])
        #expect(table[flows[1].key] == nil)
        #expect(table[flows[0].key] === flows[0])
        #expect(table[flows[2].key] === flows[2])
        // one that left while another held the slot
        table.remove(flows[0])
        #expect(table[flows[0].key] == nil)
        #expect(table[flows[2].key] === flows[2])
        _ = table.removeAll()
        #expect(table[flows[2].key] == nil)
    }

    @Test func recentSlotsSpreadAConnectionsPortsAndIsTheSameBothWays() {
        let client = IPAddress(ipv4: 0x0a00_0001), server = IPAddress(ipv4: 0x0a00_0002)
        let slots = Set((40000..<40064).map { FlowKey(transportProtocol: 6, client, UInt16($0), server, 80).recentSlot })
        #expect(slots.count >= 40)  // 64 ports over 256 slots: few shared
        for port: UInt16 in [1, 80, 443, 51000] {
            let up = FlowKey(transportProtocol: 6, client, port, server, 8080)
            let down = FlowKey(transportProtocol: 6, server, 8080, client, port)
            #expect(up.recentSlot == down.recentSlot)
            #expect((0..<FlowKey.recentSlots).contains(up.recentSlot))
        }
    }

    static func key(_ port: UInt16) -> FlowKey {
        FlowKey(transportProtocol: 6, IPAddress(ipv4: 0x0a00_0001), port, IPAddress(ipv4: 0x0a00_0002), 80)
    }

    /// Visits every unswept flow, as `TCPReassembler.settle` does when all deadlines have passed.
    static func sweep(_ table: inout ActivityTable<Flow>) -> [String] {
        var visited: [String] = []
        while let flow = table.firstUnswept {
            table.markSwept(flow)
            visited.append(flow.name)
        }
        return visited
    }

    @Test func aSweepVisitsEachIdleFlowOnce() {
        var table = ActivityTable<Flow>()
        let flows = Self.flows(4)
        for flow in flows { table.insert(flow) }
        #expect(Self.sweep(&table) == ["f1", "f2", "f3", "f4"])
        #expect(Self.sweep(&table).isEmpty)
        // a new flow comes after the swept ones
        table.insert(Flow("f5", port: 5))
        #expect(Self.sweep(&table) == ["f5"])
    }

    @Test func activityOrRemovalMakesTheNextSweepVisitAgain() {
        var table = ActivityTable<Flow>()
        let flows = Self.flows(4)
        for flow in flows { table.insert(flow) }
        _ = Self.sweep(&table)
        table.touch(flows[3])  // the freshest, also the last swept
        table.touch(flows[1])
        #expect(Self.sweep(&table) == ["f4", "f2"])
        // removing the last swept flow keeps the others swept
        table.remove(flows[1])
        #expect(Self.sweep(&table).isEmpty)
        table.touch(flows[0])
        #expect(Self.sweep(&table) == ["f1"])
        table.forgetSweeps()
        #expect(Self.sweep(&table) == ["f3", "f4", "f1"])
        #expect(table.removeAll().map(\.name) == ["f3", "f4", "f1"])
        #expect(table.firstUnswept == nil)
    }

    @Test func theListKeepsItsFlowsAliveUntilTheyLeaveItOrItGoes() {
        weak var removed: Flow?
        weak var displaced: Flow?
        weak var taken: Flow?
        weak var left: Flow?
        do {
            var table = ActivityTable<Flow>()
            do {
                let flows = Self.flows(3)
                for flow in flows { table.insert(flow) }
                removed = flows[0]
                table.remove(flows[0])
                // a flow inserted under a key a linked flow has (a QUIC connection's first path reused):
                // the dictionary drops the first, the list keeps it, oldest first
                displaced = flows[1]
                table.insert(Flow("f2 again", port: 2))
                table.touch(flows[2])
                left = flows[2]
            }
            #expect(removed == nil)
            #expect(displaced != nil)
            #expect(table.stalest === displaced)
            #expect(Self.sweep(&table) == ["f2", "f2 again", "f3"])
            let all = table.removeAll()
            #expect(all.map(\.name) == ["f2", "f2 again", "f3"])
            taken = all[1]
            #expect(displaced != nil)  // held by the array returned
            table.insert(Flow("f4", port: 4))
            left = table.stalest
            #expect(left?.name == "f4")
        }
        #expect(displaced == nil && taken == nil)
        #expect(left == nil)  // still linked when the table went
    }

    @Test func aSweepStoppedMidwayGoesOnFromWhereItStopped() {
        var table = ActivityTable<Flow>()
        let flows = Self.flows(3)
        for flow in flows { table.insert(flow) }
        table.markSwept(flows[0])
        #expect(table.firstUnswept === flows[1])
        table.touch(flows[0])
        #expect(Self.sweep(&table) == ["f2", "f3", "f1"])
    }
}

import Testing
@testable import WireTally

/// `ActivityTable`: lookups by key (the freshest flow answered without the dictionary, never after it
/// left the table), and the sweep mark: a settle sweep visits each idle flow once per idle period, and a
/// flow that sees activity (or leaves the table) is visited again by the next sweep, in activity order.
@Suite struct ActivityTableTests {
    final class Flow: ActivityTracked {
        let name: String
        let key: FlowKey
        var newer: Flow?
        var older: Flow?
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

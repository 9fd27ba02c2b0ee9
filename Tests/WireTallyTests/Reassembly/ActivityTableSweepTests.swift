import Testing
@testable import WireTally

/// The sweep mark of `ActivityTable`: a settle sweep visits each idle flow once per idle period, and a
/// flow that sees activity (or leaves the table) is visited again by the next sweep, in activity order.
@Suite struct ActivityTableSweepTests {
    final class Flow: ActivityTracked {
        let name: String
        var newer: Flow?
        var older: Flow?
        var lastActivity = Timestamp(nanoseconds: 0)
        init(_ name: String) { self.name = name }
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
        let flows = (1...4).map { Flow("f\($0)") }
        for (index, flow) in flows.enumerated() { table.insert(flow, for: Self.key(UInt16(index))) }
        #expect(Self.sweep(&table) == ["f1", "f2", "f3", "f4"])
        #expect(Self.sweep(&table).isEmpty)
        // a new flow comes after the swept ones
        let fifth = Flow("f5")
        table.insert(fifth, for: Self.key(5))
        #expect(Self.sweep(&table) == ["f5"])
    }

    @Test func activityOrRemovalMakesTheNextSweepVisitAgain() {
        var table = ActivityTable<Flow>()
        let flows = (1...4).map { Flow("f\($0)") }
        for (index, flow) in flows.enumerated() { table.insert(flow, for: Self.key(UInt16(index))) }
        _ = Self.sweep(&table)
        table.touch(flows[3])  // the freshest, also the last swept
        table.touch(flows[1])
        #expect(Self.sweep(&table) == ["f4", "f2"])
        // removing the last swept flow keeps the others swept
        table.remove(flows[1], for: Self.key(1))
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
        let flows = (1...3).map { Flow("f\($0)") }
        for (index, flow) in flows.enumerated() { table.insert(flow, for: Self.key(UInt16(index))) }
        table.markSwept(flows[0])
        #expect(table.firstUnswept === flows[1])
        table.touch(flows[0])
        #expect(Self.sweep(&table) == ["f2", "f3", "f1"])
    }
}

/// A flow kept in an `ActivityTable`: it links into the table's least-recently-active list.
protocol ActivityTracked: AnyObject {
    var newer: Self? { get set }
    var older: Self? { get set }
    var lastActivity: Timestamp { get }
}

/// Live flows by key, with an intrusive least-recently-active list so that expiry and eviction take
/// the stalest flow in O(1) and touching a flow costs a few pointer moves (no allocation).
struct ActivityTable<Flow: ActivityTracked> {
    private(set) var flows: [FlowKey: Flow] = [:]
    /// The flow with the oldest activity.
    private(set) var stalest: Flow?
    private var freshest: Flow?

    var count: Int { flows.count }

    subscript(key: FlowKey) -> Flow? { flows[key] }

    /// Adds a flow as the freshest.
    mutating func insert(_ flow: Flow, for key: FlowKey) {
        flows[key] = flow
        link(flow)
    }

    /// Marks a flow as the freshest.
    mutating func touch(_ flow: Flow) {
        guard freshest !== flow else { return }
        unlink(flow)
        link(flow)
    }

    /// Removes a flow.
    mutating func remove(_ flow: Flow, for key: FlowKey) {
        flows[key] = nil
        unlink(flow)
    }

    /// Removes and returns every flow, stalest first.
    mutating func removeAll() -> [Flow] {
        var all: [Flow] = []
        all.reserveCapacity(flows.count)
        while let flow = stalest {
            unlink(flow)
            all.append(flow)
        }
        flows.removeAll()
        return all
    }

    private mutating func link(_ flow: Flow) {
        flow.older = freshest
        flow.newer = nil
        freshest?.newer = flow
        freshest = flow
        if stalest == nil { stalest = flow }
    }

    private mutating func unlink(_ flow: Flow) {
        if let newer = flow.newer { newer.older = flow.older } else { freshest = flow.older }
        if let older = flow.older { older.newer = flow.newer } else { stalest = flow.newer }
        flow.newer = nil
        flow.older = nil
    }
}

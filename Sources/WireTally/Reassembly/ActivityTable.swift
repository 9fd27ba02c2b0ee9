/// A flow kept in an `ActivityTable`: it links into the table's least-recently-active list.
protocol ActivityTracked: AnyObject {
    /// The key the flow is stored under.
    var key: FlowKey { get }
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
    /// The freshest flow a sweep has passed (`markSwept`): every flow from `stalest` up to it has been
    /// visited and not touched since. Touching or removing it moves the mark to its older neighbour.
    private var lastSwept: Flow?
    /// Flows found recently, each in the slot of its key (`FlowKey.recentSlot`), nil where none is:
    /// consecutive packets come from a few flows, and one found here costs a comparison of keys
    /// instead of hashing the key for the dictionary. A flow leaves its slot when it leaves the table.
    private var recent = [Unmanaged<Flow>?](repeating: nil, count: FlowKey.recentSlots)

    var count: Int { flows.count }

    /// The stalest flow not visited by a sweep since its last activity; a sweep that walks on from
    /// here through `newer` sees each idle flow once per idle period, not once per sweep.
    var firstUnswept: Flow? {
        guard let lastSwept else { return stalest }
        return lastSwept.newer
    }

    /// Records that a sweep has visited `flow`, which must be `firstUnswept`.
    mutating func markSwept(_ flow: Flow) {
        lastSwept = flow
    }

    /// Makes the next sweep start again from the stalest flow.
    mutating func forgetSweeps() {
        lastSwept = nil
    }

    /// The flow stored under `key` (`unretainedFlow(for:)`, retained).
    subscript(key: FlowKey) -> Flow? {
        mutating get { unretainedFlow(for: key)?.takeUnretainedValue() }
    }

    /// The flow stored under `key`, not retained: valid while the table holds it (a per-packet lookup
    /// then costs no reference counting). The flow in the key's slot of `recent` is compared first, and
    /// the dictionary (hashing the key) is searched only on a miss; the flow it finds takes the slot.
    /// Inlined: called for every packet, and a call kept the comparison of keys in a closure.
    @inline(__always)
    mutating func unretainedFlow(for key: FlowKey) -> Unmanaged<Flow>? {
        let slot = key.recentSlot
        if let cached = recent[slot], cached._withUnsafeGuaranteedRef({ $0.key == key }) { return cached }
        guard let found = flows[key] else { return nil }
        let flow = Unmanaged.passUnretained(found)
        recent[slot] = flow
        return flow
    }

    /// Adds a flow, under its key, as the freshest.
    mutating func insert(_ flow: Flow) {
        flows[flow.key] = flow
        recent[flow.key.recentSlot] = .passUnretained(flow)
        link(flow)
    }

    /// Marks a flow as the freshest (inlined: on most packets it is already).
    @inline(__always)
    mutating func touch(_ flow: Flow) {
        if lastSwept === flow { lastSwept = flow.older }
        guard freshest !== flow else { return }
        relink(flow)
    }

    /// Removes a flow.
    mutating func remove(_ flow: Flow) {
        flows[flow.key] = nil
        let slot = flow.key.recentSlot
        if recent[slot]?.toOpaque() == Unmanaged.passUnretained(flow).toOpaque() { recent[slot] = nil }
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
        for slot in recent.indices { recent[slot] = nil }
        return all
    }

    /// Moves a flow to the freshest end of the list.
    private mutating func relink(_ flow: Flow) {
        unlink(flow)
        link(flow)
    }

    private mutating func link(_ flow: Flow) {
        flow.older = freshest
        flow.newer = nil
        freshest?.newer = flow
        freshest = flow
        if stalest == nil { stalest = flow }
    }

    private mutating func unlink(_ flow: Flow) {
        if lastSwept === flow { lastSwept = flow.older }
        if let newer = flow.newer { newer.older = flow.older } else { freshest = flow.older }
        if let older = flow.older { older.newer = flow.newer } else { stalest = flow.newer }
        flow.newer = nil
        flow.older = nil
    }
}

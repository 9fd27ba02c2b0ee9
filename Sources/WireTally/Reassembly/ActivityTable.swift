/// A flow kept in an `ActivityTable`: it links into the table's least-recently-active list.
protocol ActivityTracked: AnyObject {
    /// The key the flow is stored under.
    var key: FlowKey { get }
    /// The list's links, unretained: the list holds each flow linked into it once (`ActivityList`), so
    /// moving a flow to the freshest end (on most packets of interleaved connections) counts no
    /// references.
    var newer: Unmanaged<Self>? { get set }
    var older: Unmanaged<Self>? { get set }
    var lastActivity: Timestamp { get }
}

extension Unmanaged where Instance: ActivityTracked {
    /// The instance's `newer` link, read and written without retaining the instance.
    fileprivate var newer: Unmanaged<Instance>? {
        get { _withUnsafeGuaranteedRef { $0.newer } }
        nonmutating set { _withUnsafeGuaranteedRef { $0.newer = newValue } }
    }

    /// The instance's `older` link, read and written without retaining the instance.
    fileprivate var older: Unmanaged<Instance>? {
        get { _withUnsafeGuaranteedRef { $0.older } }
        nonmutating set { _withUnsafeGuaranteedRef { $0.older = newValue } }
    }
}

/// True when both are the same instance (or both nil).
private func === <Instance: AnyObject>(lhs: Unmanaged<Instance>?, rhs: Unmanaged<Instance>?) -> Bool {
    lhs?.toOpaque() == rhs?.toOpaque()
}

/// The ends of an `ActivityTable`'s least-recently-active list, and the list's own reference to each
/// flow linked into it (taken on `link`, given back on `unlink(releasing:)` or when the list goes), so
/// that the links themselves need none.
private final class ActivityList<Flow: ActivityTracked> {
    /// The flow with the oldest activity.
    var stalest: Unmanaged<Flow>?
    var freshest: Unmanaged<Flow>?
    /// The freshest flow a sweep has passed (`ActivityTable.markSwept`).
    var lastSwept: Unmanaged<Flow>?

    deinit {
        while let flow = stalest {
            stalest = flow.newer
            flow.newer = nil
            flow.older = nil
            flow.release()
        }
    }

    /// Adds `flow` at the freshest end; `retaining`: it was not in the list (a flow moved within the
    /// list keeps the list's reference it has).
    func link(_ flow: Unmanaged<Flow>, retaining: Bool) {
        if retaining { _ = flow.retain() }
        flow.older = freshest
        flow.newer = nil
        freshest?.newer = flow
        freshest = flow
        if stalest == nil { stalest = flow }
    }

    /// Takes `flow` out of the list; `releasing`: it leaves the list (else it is linked again at once).
    func unlink(_ flow: Unmanaged<Flow>, releasing: Bool) {
        if lastSwept === flow { lastSwept = flow.older }
        let (newer, older) = (flow.newer, flow.older)
        if let newer { newer.older = older } else { freshest = older }
        if let older { older.newer = newer } else { stalest = newer }
        flow.newer = nil
        flow.older = nil
        if releasing { flow.release() }
    }
}

/// Live flows by key, with an intrusive least-recently-active list so that expiry and eviction take
/// the stalest flow in O(1) and touching a flow costs a few pointer moves (no allocation).
struct ActivityTable<Flow: ActivityTracked> {
    private(set) var flows: [FlowKey: Flow] = [:]
    /// The least-recently-active list. Its last swept flow (`markSwept`): every flow from `stalest` up
    /// to it has been visited and not touched since; touching or removing it moves the mark to its
    /// older neighbour.
    private let list = ActivityList<Flow>()
    /// Flows found recently, each in the slot of its key (`FlowKey.recentSlot`), nil where none is:
    /// consecutive packets come from a few flows, and one found here costs a comparison of keys
    /// instead of hashing the key for the dictionary. A flow leaves its slot when it leaves the table.
    private var recent = [Unmanaged<Flow>?](repeating: nil, count: FlowKey.recentSlots)

    var count: Int { flows.count }

    /// The flow with the oldest activity.
    var stalest: Flow? { list.stalest?.takeUnretainedValue() }

    /// The stalest flow not visited by a sweep since its last activity; a sweep that walks on from
    /// here through `newer` sees each idle flow once per idle period, not once per sweep.
    var firstUnswept: Flow? {
        guard let lastSwept = list.lastSwept else { return stalest }
        return lastSwept.newer?.takeUnretainedValue()
    }

    /// Records that a sweep has visited `flow`, which must be `firstUnswept`.
    mutating func markSwept(_ flow: Flow) {
        list.lastSwept = .passUnretained(flow)
    }

    /// Makes the next sweep start again from the stalest flow.
    mutating func forgetSweeps() {
        list.lastSwept = nil
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
        list.link(.passUnretained(flow), retaining: true)
    }

    /// Marks a flow as the freshest (inlined: on most packets it is already). Moving it within the list
    /// counts no references.
    @inline(__always)
    mutating func touch(_ flow: Flow) {
        let flow = Unmanaged.passUnretained(flow)
        if list.lastSwept === flow { list.lastSwept = flow.older }
        guard !(list.freshest === flow) else { return }
        list.unlink(flow, releasing: false)
        list.link(flow, retaining: false)
    }

    /// Removes a flow.
    mutating func remove(_ flow: Flow) {
        flows[flow.key] = nil
        let slot = flow.key.recentSlot
        if recent[slot]?.toOpaque() == Unmanaged.passUnretained(flow).toOpaque() { recent[slot] = nil }
        list.unlink(.passUnretained(flow), releasing: true)
    }

    /// Removes and returns every flow, stalest first.
    mutating func removeAll() -> [Flow] {
        var all: [Flow] = []
        all.reserveCapacity(flows.count)
        while let flow = list.stalest {
            all.append(flow.takeUnretainedValue())
            list.unlink(flow, releasing: true)
        }
        flows.removeAll()
        for slot in recent.indices { recent[slot] = nil }
        return all
    }
}

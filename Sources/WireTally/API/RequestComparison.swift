/// One app request paired with its exchange: what the app counted, what the wire carried, and why
/// they differ.
public struct RequestComparison: Hashable, Sendable {
    /// What the app counted.
    public var request: AppRequest
    /// The exchange it was paired with.
    public var exchange: Exchange
    /// What the app counted client to server (see ``AppRequest``).
    public var estimatedUp: Int
    /// What the app counted server to client.
    public var estimatedDown: Int
    /// What the wire carried client to server at the comparison's level (at IP level with the DNS
    /// lookup's queries).
    public var wireUp: Int
    /// What the wire carried server to client at the comparison's level (at IP level with the DNS
    /// lookup's answer).
    public var wireDown: Int
    /// wire − estimated by cause: every name of ``ComparisonReport/causes``; adds up exactly to
    /// `wire − estimated`.
    public var gapByCause: [String: Int]

    /// What the app counted, both directions.
    public var estimated: Int { estimatedUp + estimatedDown }
    /// What the wire carried, both directions.
    public var wire: Int { wireUp + wireDown }
    /// estimated − wire: negative when the app counted less than the wire carried.
    public var errorBytes: Int { estimated - wire }
    /// 100 · ``errorBytes`` / wire; nil when the wire carried nothing.
    public var errorPercent: Double? { ComparisonReport.percent(errorBytes, of: wire) }

    init(request: AppRequest, exchange: Exchange, gap: GapAttribution) {
        self.request = request
        self.exchange = exchange
        estimatedUp = gap.estimate.up
        estimatedDown = gap.estimate.down
        wireUp = gap.wireUp
        wireDown = gap.wireDown
        gapByCause = gap.byCause
    }
}

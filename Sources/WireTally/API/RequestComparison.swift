/// One app request paired with its exchange: what the app counted, what the wire carried, and why
/// they differ.
public struct RequestComparison: Hashable, Sendable {
    public var request: AppRequest
    public var exchange: Exchange
    /// What the app counted per direction (see ``AppRequest``).
    public var estimatedUp: Int
    public var estimatedDown: Int
    /// What the wire carried per direction at the comparison's level (at IP level with the DNS
    /// lookup's queries up and answer down).
    public var wireUp: Int
    public var wireDown: Int
    /// wire − estimated by cause: every name of ``ComparisonResult/causes``; adds up exactly to
    /// `wire − estimated`.
    public var gapByCause: [String: Int]

    public var estimated: Int { estimatedUp + estimatedDown }
    public var wire: Int { wireUp + wireDown }
    /// estimated − wire: negative when the app counted less than the wire carried.
    public var errorBytes: Int { estimated - wire }
    /// 100 · ``errorBytes`` / wire; nil when the wire carried nothing.
    public var errorPercent: Double? { ComparisonResult.percent(errorBytes, of: wire) }

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

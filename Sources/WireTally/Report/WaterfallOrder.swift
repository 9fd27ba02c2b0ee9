/// The order of the waterfall's rows: exchanges by start, like a browser's network panel, except that
/// the streams of one HTTP/2 connection — which run at the same time on it — stay together under their
/// connection, in start order, where the connection's first stream would be.
enum WaterfallOrder {
    /// What the order needs of one exchange row.
    struct Row {
        var start: Int64
        var id: Int
        var connection: Int
        /// The exchange is a stream of a multiplexed (HTTP/2 or HTTP/3) connection.
        var multiplexed: Bool
    }

    /// Positions of `rows` in waterfall order.
    static func positions(_ rows: [Row]) -> [Int] {
        let byStart = rows.indices.sorted { (rows[$0].start, rows[$0].id) < (rows[$1].start, rows[$1].id) }
        // a group is one multiplexed connection, or a single exchange
        var groups: [[Int]] = []
        var groupOfConnection: [Int: Int] = [:]
        for position in byStart {
            let row = rows[position]
            if row.multiplexed, let group = groupOfConnection[row.connection] {
                groups[group].append(position)
                continue
            }
            if row.multiplexed { groupOfConnection[row.connection] = groups.count }
            groups.append([position])
        }
        return groups.flatMap { $0 }
    }
}

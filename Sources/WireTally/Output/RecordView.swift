/// Which records the table and CSV outputs show (JSON Lines always has them all).
package enum RecordView: String, CaseIterable, Sendable {
    /// One line per HTTP exchange.
    case exchanges
    /// One line per TCP connection.
    case connections
}

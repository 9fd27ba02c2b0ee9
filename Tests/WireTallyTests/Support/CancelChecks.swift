import Testing
@testable import WireTally

/// The check every cancel test makes of the exchanges it does not expect cancelled.
enum CancelChecks {
    /// Whether the `http` record is flagged `cancelled`; when it is not, it must claim no cancel
    /// either: `cancel` null and no `after_cancel` packets in either direction (`label` names it in
    /// the failures).
    static func isCancelled(_ record: JSONValue, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        if record.flagNames.contains("cancelled") { return true }
        #expect(record["cancel"] == .null, "\(label)", sourceLocation: sourceLocation)
        for direction in ["up", "down"] {
            #expect(record.int("wire.\(direction).after_cancel.packets") == 0, "\(label) \(direction)", sourceLocation: sourceLocation)
        }
        return false
    }
}

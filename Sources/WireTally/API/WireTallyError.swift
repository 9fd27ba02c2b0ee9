/// Why the library could not give an analysis or a comparison. Each case has a message meant for people
/// (`description`).
///
/// Damaged input is not an error as long as some of it could be read: the records before the damage
/// are complete, and ``Summary/inputErrors`` lists what went wrong (the command line's exit status 2).
public enum WireTallyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No packet could be analysed: every file was missing, unreadable, not a capture, or held no
    /// packet the filter passed. `problems` says why, one message per file or filter.
    case nothingAnalysed(problems: [String])
    /// A key log file could not be read (a line it cannot use is skipped, not an error).
    case unreadableKeyLog(path: String, reason: String)
    /// A live capture could not start or stopped early: no right to capture, no such interface, a bad
    /// filter, a libpcap failure.
    case liveCapture(String)
    /// ``Comparison/run(_:appLog:level:)`` was given an analysis made with
    /// ``AnalysisOptions/keepsExchangesForComparison`` off.
    case notComparable

    public var description: String {
        switch self {
        case let .nothingAnalysed(problems):
            return problems.isEmpty ? "no packet was analysed" : problems.joined(separator: "; ")
        case let .unreadableKeyLog(_, reason): return "key log \(reason)"
        case let .liveCapture(message): return message
        case .notComparable:
            return "the analysis was made without keepsExchangesForComparison: it cannot be compared"
        }
    }
}

/// The HTTP requests waiting for their response on all connections of one analysis, against a total
/// cap (`HTTPLimits.maxOpenRequestsTotal`): each is an exchange kept until its response completes, so
/// many connections each below their own cap (`HTTPLimits.maxOpenRequests`) could still hold more than
/// memory allows. Shared by the parsers of one `CaptureAnalyzer`, used on its thread only.
package final class OpenRequestBudget: @unchecked Sendable {
    /// Open requests allowed at once on all connections together.
    package let limit: Int
    /// Open requests now.
    package private(set) var open = 0

    package init(limit: Int) { self.limit = max(1, limit) }

    /// True when no further request may be opened.
    var isExhausted: Bool { open >= limit }

    /// Counts `count` requests opened (negative: answered, or dropped with their connection).
    func add(_ count: Int) { open += count }
}

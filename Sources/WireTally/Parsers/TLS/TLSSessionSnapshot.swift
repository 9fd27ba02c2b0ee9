/// A TLS session as it was when it was shared, held by reference: the exchange records of a connection
/// carry this object (a pointer) instead of the session's value, so a cleartext record carries no
/// session at all and a TLS connection's records share one object while the session does not change
/// (`TLSConnectionAnalysis.sharedSession`).
package final class TLSSessionSnapshot: Sendable {
    /// The session's fields; readers reach them through this `let` without copying the session.
    package let info: TLSSessionInfo

    package init(_ info: TLSSessionInfo) {
        self.info = info
    }
}

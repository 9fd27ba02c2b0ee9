/// Caps and timeouts that bound the reassembler's memory. All times are capture times.
package struct ReassemblyLimits: Sendable {
    /// Out-of-order bytes buffered per connection direction before the stream is forced past its first
    /// hole (declared missing).
    package var maxBufferedBytesPerDirection: Int = 4 << 20
    /// Out-of-order bytes buffered across all connections; beyond it the connections holding the most
    /// are forced past their first holes. Without it, `maxConnections` directions could each hold
    /// `maxBufferedBytesPerDirection` (50,000 × 2 × 4 MiB). 64 MiB is 16 directions at their own cap
    /// at once — far more than reordering on real links holds (a window or two per connection) —
    /// while bounding the buffers to about 64 MiB plus their per-segment overhead.
    package var maxBufferedBytesTotal: Int = 64 << 20
    /// Recently delivered bytes kept per direction to detect retransmissions with conflicting content.
    package var overlapCheckHistoryBytes: Int = 64 << 10
    /// Live connections (and, separately, UDP/other flows) tracked at once; the least recently active is
    /// evicted (and reported) to make room. A connection costs about 3.4 KB even as a bare SYN, so the
    /// default bounds a SYN flood to about 200 MB.
    package var maxConnections: Int = 50_000
    /// An open connection with no packet for this long is finalised.
    package var idleTimeoutSeconds: Int64 = 300
    /// A closed (FIN both ways or RST) connection is kept this long for late ACKs/retransmissions.
    package var closedLingerSeconds: Int64 = 60
    /// A sequence number further than this beyond the next expected byte is treated as out of window.
    package var maxSequenceJump: Int64 = 1 << 30

    /// When set, a connection idle this long seals its last exchange (its record is written without
    /// waiting for the connection to end; a later teardown stays unattributed). Off by default.
    package var settleNanoseconds: Int64?

    package init() {}
}

/// What happened to IP fragments.
package struct FragmentStatistics: Hashable, Sendable {
    /// Fragment frames seen (IPv4 and IPv6).
    package var fragments = 0
    /// Datagrams completed from fragments.
    package var reassembledDatagrams = 0
    /// Fragments that repeated or overlapped bytes already held (the first copy was kept).
    package var overlaps = 0
    /// Last fragments that disagreed with an earlier last fragment about the datagram's length.
    package var inconsistentLengths = 0
    /// Datagrams dropped because a fragment ended beyond 65535 bytes.
    package var oversizedDatagrams = 0
    /// Datagrams dropped by `expireFragments(olderThan:)`.
    package var expiredDatagrams = 0
    /// Datagrams dropped because the held-bytes or held-datagrams limit was hit (oldest first).
    package var evictedDatagrams = 0
    /// Datagrams still incomplete at `flushFragments()`.
    package var flushedDatagrams = 0

    package init() {}
}

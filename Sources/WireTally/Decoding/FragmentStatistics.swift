/// What happened to IP fragments.
public struct FragmentStatistics: Hashable, Sendable {
    /// Fragment frames seen (IPv4 and IPv6).
    public var fragments = 0
    /// Datagrams completed from fragments.
    public var reassembledDatagrams = 0
    /// Fragments that repeated or overlapped bytes already held (the first copy was kept).
    public var overlaps = 0
    /// Last fragments that disagreed with an earlier last fragment about the datagram's length.
    public var inconsistentLengths = 0
    /// Datagrams dropped because a fragment ended beyond 65535 bytes.
    public var oversizedDatagrams = 0
    /// Datagrams dropped by `expireFragments(olderThan:)`.
    public var expiredDatagrams = 0
    /// Datagrams dropped because the held-bytes or held-datagrams limit was hit (oldest first).
    public var evictedDatagrams = 0
    /// Datagrams still incomplete at `flushFragments()`.
    public var flushedDatagrams = 0

    public init() {}
}

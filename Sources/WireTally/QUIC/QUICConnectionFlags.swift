/// Notable facts about a QUIC connection, reported as a list of names in its record.
package struct QUICConnectionFlags: OptionSet, Hashable, Sendable {
    package var rawValue: UInt16
    package init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Its datagrams used more than one address/port pair (NAT rebinding or connection migration),
    /// recognised by a connection ID the long headers showed.
    package static let migrated = QUICConnectionFlags(rawValue: 1 << 0)
    /// A CONNECTION_CLOSE was seen.
    package static let closed = QUICConnectionFlags(rawValue: 1 << 1)
    /// Finalised after the idle timeout while still open.
    package static let idleTimeout = QUICConnectionFlags(rawValue: 1 << 2)
    /// Evicted to respect the cap on live connections.
    package static let evicted = QUICConnectionFlags(rawValue: 1 << 3)
    /// Still open when the capture ended.
    package static let openAtEnd = QUICConnectionFlags(rawValue: 1 << 4)
    /// A client Initial with a connection ID this connection never used ended it: a new connection on
    /// the same addresses and ports.
    package static let pathReused = QUICConnectionFlags(rawValue: 1 << 5)
    /// Some datagram had a wrong IP or UDP checksum (normal on the sending host or a veth).
    package static let badChecksum = QUICConnectionFlags(rawValue: 1 << 6)
    /// Some of its datagrams were reassembled from IP fragments.
    package static let fragmented = QUICConnectionFlags(rawValue: 1 << 7)

    /// HTTP/3: request streams beyond `HTTPLimits.maxOpenRequests` open at once got no exchange (their
    /// bytes are the connection's, shared).
    package static let tooManyOpenRequests = QUICConnectionFlags(rawValue: 1 << 8)
    /// HTTP/3: stream data waiting past holes reached `HTTP3ConnectionAnalysis.maxBufferedBytes`: a
    /// stream's hole was given up as a gap.
    package static let streamBufferCap = QUICConnectionFlags(rawValue: 1 << 9)

    private static let names: [(QUICConnectionFlags, String)] = [
        (.migrated, "migrated"), (.closed, "closed"), (.idleTimeout, "idle_timeout"), (.evicted, "evicted"),
        (.openAtEnd, "open_at_end"), (.pathReused, "path_reused"), (.badChecksum, "bad_checksum"),
        (.fragmented, "fragmented"), (.tooManyOpenRequests, "too_many_open_requests"), (.streamBufferCap, "stream_buffer_cap"),
    ]

    /// The names of the flags set, in a fixed order.
    package var names: [String] { Self.names.compactMap { contains($0.0) ? $0.1 : nil } }
}

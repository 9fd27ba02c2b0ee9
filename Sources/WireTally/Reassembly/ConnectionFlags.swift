/// Notable facts about a connection, reported as a list of names in its record.
package struct ConnectionFlags: OptionSet, Hashable, Sendable {
    package var rawValue: UInt32
    package init(rawValue: UInt32) { self.rawValue = rawValue }

    /// No SYN was seen: the capture started after the connection did.
    package static let midstream = ConnectionFlags(rawValue: 1 << 0)
    /// The three-way handshake was seen complete.
    package static let established = ConnectionFlags(rawValue: 1 << 1)
    /// A RST was seen.
    package static let reset = ConnectionFlags(rawValue: 1 << 2)
    /// The client sent a FIN.
    package static let clientFIN = ConnectionFlags(rawValue: 1 << 3)
    /// The server sent a FIN.
    package static let serverFIN = ConnectionFlags(rawValue: 1 << 4)
    /// Some stream bytes were never captured.
    package static let gap = ConnectionFlags(rawValue: 1 << 5)
    /// A retransmission carried bytes different from the first copy (the first copy was kept).
    package static let conflictingOverlap = ConnectionFlags(rawValue: 1 << 6)
    /// The snaplen cut some payload: its length is known, its content is not.
    package static let payloadTruncated = ConnectionFlags(rawValue: 1 << 7)
    /// Some packet had a wrong IP or TCP checksum (normal on the sending host or a veth).
    package static let badChecksum = ConnectionFlags(rawValue: 1 << 8)
    /// A segment lay implausibly far from the expected sequence number and was not reassembled.
    package static let outOfWindow = ConnectionFlags(rawValue: 1 << 9)
    /// The first data did not follow the SYN's ISN and the stream was re-based on it.
    package static let rebased = ConnectionFlags(rawValue: 1 << 10)
    /// The out-of-order buffer cap forced the stream past a hole.
    package static let bufferOverflow = ConnectionFlags(rawValue: 1 << 11)
    /// Evicted to respect the cap on live connections.
    package static let evicted = ConnectionFlags(rawValue: 1 << 12)
    /// Finalised after the idle timeout while still open.
    package static let idleTimeout = ConnectionFlags(rawValue: 1 << 13)
    /// Still open when the capture ended.
    package static let openAtEnd = ConnectionFlags(rawValue: 1 << 14)
    /// A new SYN on the same addresses and ports ended this connection (port reuse).
    package static let portReused = ConnectionFlags(rawValue: 1 << 15)
    /// Some of its packets were reassembled from IP fragments.
    package static let fragmented = ConnectionFlags(rawValue: 1 << 16)

    /// Packets came for an exchange after its record was sealed (spurious retransmissions, late
    /// duplicates): they are counted in the unattributed rest.
    package static let lateAfterSealing = ConnectionFlags(rawValue: 1 << 17)
    /// The cap on out-of-order bytes buffered across all connections forced a stream past a hole.
    package static let totalBufferOverflow = ConnectionFlags(rawValue: 1 << 18)
    /// A request came while `HTTPLimits.maxOpenRequests` requests waited for their response: from it
    /// on, the client direction was not parsed (its bytes are unattributed).
    package static let tooManyOpenRequests = ConnectionFlags(rawValue: 1 << 19)

    private static let names: [(ConnectionFlags, String)] = [
        (.midstream, "midstream"), (.established, "established"), (.reset, "reset"),
        (.clientFIN, "client_fin"), (.serverFIN, "server_fin"), (.gap, "gap"),
        (.conflictingOverlap, "conflicting_overlap"), (.payloadTruncated, "payload_truncated"),
        (.badChecksum, "bad_checksum"), (.outOfWindow, "out_of_window"), (.rebased, "isn_rebased"),
        (.bufferOverflow, "buffer_overflow"), (.evicted, "evicted"), (.idleTimeout, "idle_timeout"),
        (.openAtEnd, "open_at_end"), (.portReused, "port_reused"), (.fragmented, "fragmented"),
        (.lateAfterSealing, "late_after_seal"), (.totalBufferOverflow, "total_buffer_overflow"),
        (.tooManyOpenRequests, "too_many_open_requests"),
    ]

    /// The flag names, in a fixed order.
    package var names: [String] { Self.names.filter { contains($0.0) }.map(\.1) }
}

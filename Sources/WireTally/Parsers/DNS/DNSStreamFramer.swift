/// Cuts one direction of a DNS-over-TCP stream (RFC 1035 §4.2.2: each message preceded by its 2-byte
/// length) into messages, however the stream was segmented. Whole messages inside one delivery are
/// handed over in place; only a message split across deliveries is buffered (at most 65 537 bytes).
struct DNSStreamFramer {
    /// A framed message: its bytes (without the prefix, valid during the call), its length with the
    /// prefix, and the packets that delivered its first and last bytes.
    typealias Handler = (
        _ message: UnsafeRawBufferPointer, _ framedLength: Int, _ first: PacketOrigin, _ last: PacketOrigin
    ) -> Void

    /// Bytes of the message being assembled, prefix included.
    private var partial: [UInt8] = []
    private var partialOrigin: PacketOrigin?
    /// After a gap the message boundaries are lost: the rest of the direction is ignored.
    private(set) var isDesynchronized = false

    /// Feeds stream bytes that directly follow the previous ones.
    mutating func append(_ bytes: UnsafeRawBufferPointer, origin: PacketOrigin, handler: Handler) {
        guard !isDesynchronized else { return }
        var position = 0
        if !partial.isEmpty {
            position = fillPartial(from: bytes)
            guard let needed = Self.framedLength(of: partial), partial.count == needed else { return }
            let first = partialOrigin ?? origin
            partial.withUnsafeBytes { handler($0.clamped(from: 2), needed, first, origin) }
            partial.removeAll(keepingCapacity: true)
            partialOrigin = nil
        }
        while position < bytes.count {
            let rest = bytes.clamped(from: position)
            guard let length = rest.uint16BigEndian(at: 0), rest.count >= 2 + Int(length) else {
                partial.append(contentsOf: rest)
                partialOrigin = origin
                return
            }
            let framed = 2 + Int(length)
            handler(rest.clamped(from: 2, to: framed), framed, origin, origin)
            position += framed
        }
    }

    /// Bytes of this direction were never captured: framing cannot continue.
    mutating func gap() {
        isDesynchronized = true
        partial = []
        partialOrigin = nil
    }

    /// Moves bytes into `partial` until it holds the prefix and then the whole message; returns how many
    /// bytes of `bytes` were taken.
    private mutating func fillPartial(from bytes: UnsafeRawBufferPointer) -> Int {
        var taken = 0
        if partial.count < 2 {
            taken = min(2 - partial.count, bytes.count)
            partial.append(contentsOf: bytes.clamped(from: 0, to: taken))
        }
        guard let needed = Self.framedLength(of: partial) else { return taken }
        let more = min(needed - partial.count, bytes.count - taken)
        partial.append(contentsOf: bytes.clamped(from: taken, to: taken + more))
        return taken + more
    }

    /// Prefix + message length, once the prefix is complete.
    private static func framedLength(of partial: [UInt8]) -> Int? {
        guard partial.count >= 2 else { return nil }
        return 2 + (Int(partial[0]) << 8 | Int(partial[1]))
    }
}

/// Datagrams of one QUIC connection held back while a growing key log (a live capture following the
/// client's `SSLKEYLOGFILE`) does not have the connection's secrets yet: the client writes a secret
/// when it derives it, but the capture can see the packets it protects before the key-log follower
/// reads the line. TLS over TCP waits the same way (its bytes wait in the stream); a QUIC datagram
/// decrypted without its key would stay undecrypted for good, so the connection's datagrams wait, in
/// order, and are read once the secrets are there — or, at the latest, once the first waited
/// `maxWaitNanoseconds` of capture time, or `maxDatagrams`/`maxBytes` are held (then read as they are,
/// and the connection waits no more).
struct QUICHeldDatagrams {
    /// One datagram as the tracker gave it, its payload copied.
    struct Datagram {
        var packet: IPPacket
        var sourcePort: UInt16
        var payload: [UInt8]
        var payloadLength: Int
        var path: Int
        var badChecksum: Bool
    }

    static let maxWaitNanoseconds: Int64 = 2_000_000_000
    static let maxDatagrams = 1024
    static let maxBytes = 4 << 20

    private(set) var datagrams: [Datagram] = []
    private var bytes = 0
    /// A wait ran out: the connection holds nothing more.
    private(set) var gaveUp = false

    var isEmpty: Bool { datagrams.isEmpty }

    /// Holds a datagram (its payload copied; the packet's borrowed transport bytes dropped).
    mutating func hold(_ packet: IPPacket, sourcePort: UInt16, payload: UnsafeRawBufferPointer, payloadLength: Int, path: Int,
                       badChecksum: Bool) {
        var packet = packet
        packet.transport = UnsafeRawBufferPointer(start: nil, count: 0)
        datagrams.append(Datagram(packet: packet, sourcePort: sourcePort, payload: Array(payload), payloadLength: payloadLength,
                                  path: path, badChecksum: badChecksum))
        bytes += payload.count
    }

    /// True when a held datagram opens with a long header whose Source Connection ID is `id` (the
    /// connection's observer has not read those datagrams yet).
    func carriesSourceConnectionID(_ id: UnsafeRawBufferPointer) -> Bool {
        datagrams.contains { datagram in
            datagram.payload.withUnsafeBytes { payload in
                guard let header = QUICPacketHeaderView(datagram: payload), header.isLongHeader else { return false }
                return UnsafeRawBufferPointer(rebasing: payload[header.sourceConnectionID]).elementsEqual(id)
            }
        }
    }

    /// True when the wait is over at capture time `now` without the secrets (too long, too many, too much).
    func hasRunOut(at now: Timestamp) -> Bool {
        guard let first = datagrams.first else { return false }
        return now.nanoseconds - first.packet.timestamp.nanoseconds >= Self.maxWaitNanoseconds
            || datagrams.count >= Self.maxDatagrams || bytes >= Self.maxBytes
    }

    /// Hands the held datagrams over in order and empties the queue; `givingUp`: the connection holds
    /// nothing more.
    mutating func release(givingUp: Bool) -> [Datagram] {
        if givingUp { gaveUp = true }
        defer {
            datagrams = []
            bytes = 0
        }
        return datagrams
    }
}

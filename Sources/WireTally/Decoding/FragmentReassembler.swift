/// Identifies the fragments of one IP datagram: (source, destination, protocol, identification) for
/// IPv4 (RFC 791), (source, destination, identification) for IPv6 (RFC 8200; `transportProtocol` 0).
struct FragmentKey: Hashable {
    var source: IPAddress
    var destination: IPAddress
    var transportProtocol: UInt8
    var identification: UInt32
}

/// One fragment as read from a frame.
struct Fragment {
    /// Offset of the fragment's data in the datagram's fragmentable part, in bytes.
    var offset: Int
    /// Length of the fragment's data as its IP header declares it.
    var declaredLength: Int
    /// The captured part of the data (a prefix of it; shorter when the snaplen cut the frame).
    var captured: UnsafeRawBufferPointer
    var moreFragments: Bool
    /// IPv6: the Fragment header's next header (the one of the offset-0 fragment is kept).
    var nextHeader: UInt8
    /// The frame's counters: 1 packet, its original length and its IP total length.
    var wire: TrafficCounters
    var timestamp: Timestamp
}

/// A datagram whose fragments have all arrived.
struct ReassembledDatagram {
    /// The fragmentable part, in order; valid bytes are the first `capturedLength`.
    var bytes: [UInt8]
    /// The length of the fragmentable part (what the fragments declared).
    var length: Int
    /// How many bytes from the start were captured with no hole the snaplen cut.
    var capturedLength: Int
    var nextHeader: UInt8
    /// All the fragments' frame counters.
    var wire: TrafficCounters
}

/// Holds IP fragments until their datagram is complete (ranges of received bytes per datagram, first
/// copy wins on overlap). Memory is bounded: a datagram may not exceed 65535 bytes, and when the held
/// bytes or datagrams exceed their limits the datagram whose first fragment is oldest is evicted.
/// Frames of datagrams that are dropped for any reason accumulate until `takeDropped()`. A fragment
/// arriving after its datagram completed (a late duplicate) starts a new datagram that never completes:
/// its frame is reported as dropped, not counted twice.
struct FragmentReassembler {
    private struct PendingDatagram {
        var firstSeen: Timestamp
        var arrival: Int
        var storage: [UInt8] = []
        var received = ByteRanges()
        var captured = ByteRanges()
        var length: Int?
        var nextHeader: UInt8 = 0
        var wire = TrafficCounters.zero
    }

    enum Outcome {
        case held
        case completed(ReassembledDatagram)
        /// The fragment would make its datagram longer than 65535 bytes: the datagram was dropped (the
        /// fragment's own frame is not part of what `takeDropped()` reports).
        case oversized
    }

    static let maximumDatagramLength = 65535

    let maximumHeldBytes: Int
    let maximumHeldDatagrams: Int
    private(set) var statistics = FragmentStatistics()
    private var pending: [FragmentKey: PendingDatagram] = [:]
    private var heldBytes = 0
    private var arrivals = 0
    private var dropped = TrafficCounters.zero

    init(maximumHeldBytes: Int, maximumHeldDatagrams: Int) {
        self.maximumHeldBytes = max(maximumHeldBytes, Self.maximumDatagramLength)
        self.maximumHeldDatagrams = max(maximumHeldDatagrams, 1)
    }

    var heldDatagramCount: Int { pending.count }

    mutating func add(_ fragment: Fragment, key: FragmentKey) -> Outcome {
        statistics.fragments += 1
        let end = fragment.offset + fragment.declaredLength
        if pending[key] == nil {
            arrivals += 1
            pending[key] = PendingDatagram(firstSeen: fragment.timestamp, arrival: arrivals)
            while pending.count > maximumHeldDatagrams, evictOldest(sparing: key) {}
        }
        guard end <= Self.maximumDatagramLength else {
            statistics.oversizedDatagrams += 1
            drop(key)
            return .oversized
        }
        let growth = max(0, end - pending[key]!.storage.count)
        heldBytes += growth
        while heldBytes > maximumHeldBytes, evictOldest(sparing: key) {}

        var datagram = pending.removeValue(forKey: key)!
        datagram.wire += fragment.wire
        if fragment.offset == 0 { datagram.nextHeader = fragment.nextHeader }
        if !fragment.moreFragments {
            if let length = datagram.length, length != end { statistics.inconsistentLengths += 1 }
            else { datagram.length = end }
        }
        if growth > 0 { datagram.storage.append(contentsOf: repeatElement(0, count: growth)) }
        let declared = fragment.offset..<end
        let newRanges = datagram.received.gaps(in: declared)
        if newRanges.count != 1 || newRanges.first != declared { statistics.overlaps += 1 }
        let capturedEnd = fragment.offset + min(fragment.captured.count, fragment.declaredLength)
        for range in newRanges {
            let copied = range.clamped(to: fragment.offset..<capturedEnd)
            guard !copied.isEmpty else { continue }
            datagram.storage.withUnsafeMutableBytes { storage in
                storage.baseAddress!.advanced(by: copied.lowerBound).copyMemory(
                    from: fragment.captured.baseAddress!.advanced(by: copied.lowerBound - fragment.offset),
                    byteCount: copied.count)
            }
            datagram.captured.insert(copied)
        }
        datagram.received.insert(declared)

        if let length = datagram.length, datagram.received.contiguousPrefixLength >= length {
            heldBytes -= datagram.storage.count
            statistics.reassembledDatagrams += 1
            return .completed(
                ReassembledDatagram(
                    bytes: datagram.storage, length: length,
                    capturedLength: min(length, datagram.captured.contiguousPrefixLength),
                    nextHeader: datagram.nextHeader, wire: datagram.wire))
        }
        pending[key] = datagram
        return .held
    }

    /// Drops datagrams whose first fragment arrived before `time`.
    mutating func expire(olderThan time: Timestamp) {
        for (key, datagram) in pending where datagram.firstSeen < time {
            statistics.expiredDatagrams += 1
            drop(key)
        }
    }

    /// Drops every held datagram.
    mutating func flush() {
        statistics.flushedDatagrams += pending.count
        for key in Array(pending.keys) { drop(key) }
    }

    /// The frames of every datagram dropped since the last call (expired, evicted, flushed, oversized).
    mutating func takeDropped() -> TrafficCounters {
        defer { dropped = .zero }
        return dropped
    }

    /// Drops the datagram whose first fragment is oldest, other than `spared`; false when there is none.
    private mutating func evictOldest(sparing spared: FragmentKey) -> Bool {
        let oldest = pending.lazy.filter { $0.key != spared }.min {
            ($0.value.firstSeen, $0.value.arrival) < ($1.value.firstSeen, $1.value.arrival)
        }
        guard let oldest else { return false }
        statistics.evictedDatagrams += 1
        drop(oldest.key)
        return true
    }

    private mutating func drop(_ key: FragmentKey) {
        guard let datagram = pending.removeValue(forKey: key) else { return }
        heldBytes -= datagram.storage.count
        dropped += datagram.wire
    }
}

/// Decodes captured frames to IP and TCP/UDP, reassembling IP fragments.
///
/// Views in the results point into the packet's captured bytes, or, for a datagram reassembled from
/// fragments, into a buffer the decoder owns: either is valid until the next call to `decode`. Decoding
/// never traps on malformed input and allocates nothing except to hold and reassemble fragments.
///
/// Length rules: `ipBytes` is the IP total length (IPv4) or 40 + payload length (IPv6, extension headers
/// included). When that field is 0 (TCP segmentation offload, or an IPv6 jumbogram, whose Jumbo Payload
/// option is not read) or larger than the frame on the wire, the frame's original length after the link
/// header is used instead and `statistics.ipLengthFallbacks` counts it. A frame that the snaplen cut
/// keeps its declared lengths.
package final class PacketDecoder {
    package internal(set) var statistics = DecoderStatistics()
    private var reassembler: FragmentReassembler
    /// The last reassembled datagram, which result views may point into until the next `decode`.
    private var reassembledBuffer: UnsafeMutableRawBufferPointer?
    /// Set by `decodeUnlessFragment`: fragments are not held but reported through `metFragment`.
    private var defersFragments = false
    private var metFragment = false

    /// - Parameters:
    ///   - maximumHeldFragmentBytes: bytes of incomplete datagrams held at most (at least 65535).
    ///   - maximumHeldFragmentDatagrams: incomplete datagrams held at most.
    ///   When either limit is hit the datagram whose first fragment is oldest is dropped; its frames are
    ///   reported by the next `expireFragments(olderThan:)` or `flushFragments()`.
    package init(maximumHeldFragmentBytes: Int = 64 << 20, maximumHeldFragmentDatagrams: Int = 8192) {
        reassembler = FragmentReassembler(
            maximumHeldBytes: maximumHeldFragmentBytes, maximumHeldDatagrams: maximumHeldFragmentDatagrams)
    }

    deinit { reassembledBuffer?.deallocate() }

    /// Incomplete fragmented datagrams currently held.
    package var heldFragmentDatagrams: Int { reassembler.heldDatagramCount }

    /// Decodes one frame into `decoded`, replacing what it held: the result is built where the caller
    /// keeps it (a batch's slot), not in a temporary copied out at the return (three copies of its
    /// 200 bytes a packet). Fragments are held (`.heldFragment`) until the one completing their datagram.
    package func decode(_ packet: CapturedPacket, into decoded: inout DecodedPacket) {
        releaseReassembledBuffer()
        let frameWire = TrafficCounters(packets: 1, frameBytes: packet.originalLength)
        let location = LinkLayer.locateNetworkLayer(
            in: packet.bytes, linkType: packet.linkType, originalLength: packet.originalLength)
        let offset: Int
        let linkVersion: UInt8?
        let vlan: VLANTags
        switch location {
        case let .failure(failure):
            decoded = .undecoded(failure, wire: frameWire)
            return
        case let .ip(ipOffset, version, tags): (offset, linkVersion, vlan) = (ipOffset, version, tags)
        }
        if offset == 0 && packet.linkType == .ethernet { statistics.ethernetFramesStartingWithIP += 1 }
        let network = packet.bytes.clamped(from: offset)
        let frame = NetworkFrame(
            bytes: network, originalLength: max(packet.originalLength - offset, network.count), wire: frameWire,
            timestamp: packet.timestamp, frameNumber: packet.frameNumber, vlan: vlan)
        guard let first = network.byte(at: 0) else {
            decoded = .undecoded(.truncated, wire: frameWire)
            return
        }
        let version = first >> 4
        if let linkVersion, linkVersion != version {
            decoded = .undecoded(.malformedIP, wire: frameWire)
            return
        }
        switch version {
        case 4: decodeIPv4(frame, into: &decoded)
        case 6: decodeIPv6(frame, into: &decoded)
        default: decoded = .undecoded(.malformedIP, wire: frameWire)
        }
    }

    /// Decodes one frame into `decoded` unless it is an IP fragment, which needs the fragment state of
    /// the decoder that reassembles (another thread's): then it returns false and counts nothing, as if
    /// it had not seen it (what `decoded` holds then is unspecified). A decoder used only this way
    /// keeps no state across frames but its `statistics`, so it can decode ahead of the one that
    /// reassembles, on another thread.
    func decodeUnlessFragment(_ packet: CapturedPacket, into decoded: inout DecodedPacket) -> Bool {
        let counted = statistics
        defersFragments = true
        metFragment = false
        decode(packet, into: &decoded)
        defersFragments = false
        guard !metFragment else {
            statistics = counted
            return false
        }
        return true
    }

    /// Drops held fragments of datagrams whose first fragment is older than `time`, and returns the
    /// counters of every fragment frame dropped since the last call to this or `flushFragments()`
    /// (including datagrams evicted by the memory limits).
    package func expireFragments(olderThan time: Timestamp) -> TrafficCounters {
        reassembler.expire(olderThan: time)
        statistics.fragments = reassembler.statistics
        return reassembler.takeDropped()
    }

    /// Drops every held fragment (at the end of the input) and returns the counters of every fragment
    /// frame dropped since the last call to this or `expireFragments(olderThan:)`.
    package func flushFragments() -> TrafficCounters {
        reassembler.flush()
        statistics.fragments = reassembler.statistics
        return reassembler.takeDropped()
    }

    // MARK: - Internals shared by the IP and transport decoding extensions

    /// The network-layer part of a frame.
    struct NetworkFrame {
        /// Captured bytes from the IP header on.
        var bytes: UnsafeRawBufferPointer
        /// Length on the wire from the IP header on.
        var originalLength: Int
        /// 1 packet and the frame's original length.
        var wire: TrafficCounters
        var timestamp: Timestamp
        var frameNumber: Int
        var vlan: VLANTags
    }

    /// `.truncated` when `needed` bytes fit in the frame on the wire but were not captured, otherwise
    /// `.malformedIP` (the header claims more than the packet has).
    static func shortfall(needed: Int, declared: Int) -> DecodeFailure {
        needed <= declared ? .truncated : .malformedIP
    }

    /// Hands a fragment to the reassembler; a completed datagram is copied to the decoder's buffer and
    /// returned as a view of its captured bytes.
    func reassemble(_ fragment: Fragment, key: FragmentKey) -> ReassemblyResult {
        if defersFragments {
            metFragment = true
            return .held
        }
        let outcome = reassembler.add(fragment, key: key)
        statistics.fragments = reassembler.statistics
        switch outcome {
        case .held: return .held
        case .oversized: return .oversized
        case let .completed(datagram):
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(datagram.length, 1), alignment: 8)
            datagram.bytes.withUnsafeBytes { source in
                buffer.copyMemory(from: source.clamped(from: 0, to: datagram.capturedLength))
            }
            reassembledBuffer = buffer
            return .completed(
                captured: UnsafeRawBufferPointer(buffer).clamped(from: 0, to: datagram.capturedLength),
                length: datagram.length, nextHeader: datagram.nextHeader, wire: datagram.wire)
        }
    }

    enum ReassemblyResult {
        case held
        case oversized
        case completed(captured: UnsafeRawBufferPointer, length: Int, nextHeader: UInt8, wire: TrafficCounters)
    }

    private func releaseReassembledBuffer() {
        reassembledBuffer?.deallocate()
        reassembledBuffer = nil
    }
}

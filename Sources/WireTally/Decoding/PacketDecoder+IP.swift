extension PacketDecoder {
    /// The IP length to count: the declared one unless it is 0 or larger than the frame on the wire.
    private func ipLength(declared: Int, frame: NetworkFrame) -> Int {
        guard declared == 0 || declared > frame.originalLength else { return declared }
        statistics.ipLengthFallbacks += 1
        return frame.originalLength
    }

    @inline(__always)
    func decodeIPv4(_ frame: NetworkFrame, into decoded: inout DecodedPacket) {
        guard let header = IPv4HeaderView(frame.bytes) else {
            decoded = .undecoded(Self.shortfall(needed: 20, declared: frame.originalLength), wire: frame.wire)
            return
        }
        let headerLength = header.headerLength
        guard headerLength >= 20 else {
            decoded = .undecoded(.malformedIP, wire: frame.wire)
            return
        }
        guard headerLength <= frame.bytes.count else {
            decoded = .undecoded(Self.shortfall(needed: headerLength, declared: frame.originalLength), wire: frame.wire)
            return
        }
        let declared = header.totalLength
        guard declared == 0 || declared >= headerLength else {
            decoded = .undecoded(.malformedIP, wire: frame.wire)
            return
        }
        let length = ipLength(declared: declared, frame: frame)
        var wire = frame.wire
        wire.ipBytes = length
        let hasBadChecksum = !header.hasValidChecksum
        if hasBadChecksum { statistics.badIPv4HeaderChecksums += 1 }
        let datagram = frame.bytes.clamped(from: 0, to: length)
        var packet = IPPacket(
            version: 4, source: header.source, destination: header.destination,
            transportProtocol: header.transportProtocol, transport: datagram.clamped(from: headerLength),
            transportLength: length - headerLength, wire: wire, timestamp: frame.timestamp,
            frameNumber: frame.frameNumber, hasBadHeaderChecksum: hasBadChecksum, vlan: frame.vlan)
        guard header.isFragment else { return decodeTransport(packet, into: &decoded) }

        let fragment = Fragment(
            offset: header.fragmentOffset, declaredLength: packet.transportLength, captured: packet.transport,
            moreFragments: header.moreFragments, nextHeader: packet.transportProtocol, wire: wire,
            timestamp: frame.timestamp)
        let key = FragmentKey(
            source: packet.source, destination: packet.destination, transportProtocol: packet.transportProtocol,
            identification: UInt32(header.identification))
        switch reassemble(fragment, key: key) {
        case .held: decoded = .heldFragment
        case .oversized: decoded = .undecoded(.malformedIP, wire: wire)
        case let .completed(captured, length, _, reassembledWire):
            packet.transport = captured
            packet.transportLength = length
            packet.wire = reassembledWire
            packet.wasFragmented = true
            decodeTransport(packet, into: &decoded)
        }
    }

    func decodeIPv6(_ frame: NetworkFrame, into decoded: inout DecodedPacket) {
        guard let header = IPv6HeaderView(frame.bytes) else {
            decoded = .undecoded(Self.shortfall(needed: 40, declared: frame.originalLength), wire: frame.wire)
            return
        }
        let length = ipLength(declared: header.payloadLength == 0 ? 0 : 40 + header.payloadLength, frame: frame)
        var wire = frame.wire
        wire.ipBytes = length
        let datagram = frame.bytes.clamped(from: 0, to: length)
        var packet = IPPacket(
            version: 6, source: header.source, destination: header.destination, transportProtocol: header.nextHeader,
            transport: UnsafeRawBufferPointer(start: nil, count: 0), transportLength: 0, wire: wire,
            timestamp: frame.timestamp, frameNumber: frame.frameNumber, vlan: frame.vlan)

        switch IPv6ExtensionHeaders.walk(datagram, from: 40, nextHeader: header.nextHeader, declaredLength: length) {
        case .truncated: decoded = .undecoded(.truncated, wire: wire)
        case .malformed: decoded = .undecoded(.malformedIP, wire: wire)
        case let .transport(transportProtocol, offset):
            packet.transportProtocol = transportProtocol
            packet.transport = datagram.clamped(from: offset)
            packet.transportLength = length - offset
            decodeTransport(packet, into: &decoded)
        case let .fragment(fragmentHeader, offset):
            let fragmentableStart = offset + 8
            let fragment = Fragment(
                offset: fragmentHeader.offset, declaredLength: length - fragmentableStart,
                captured: datagram.clamped(from: fragmentableStart), moreFragments: fragmentHeader.moreFragments,
                nextHeader: fragmentHeader.nextHeader, wire: wire, timestamp: frame.timestamp)
            let key = FragmentKey(
                source: packet.source, destination: packet.destination, transportProtocol: 0,
                identification: fragmentHeader.identification)
            switch reassemble(fragment, key: key) {
            case .held: decoded = .heldFragment
            case .oversized: decoded = .undecoded(.malformedIP, wire: wire)
            case let .completed(captured, reassembledLength, nextHeader, reassembledWire):
                packet.wire = reassembledWire
                packet.wasFragmented = true
                switch IPv6ExtensionHeaders.walk(
                    captured, from: 0, nextHeader: nextHeader, declaredLength: reassembledLength)
                {
                case .truncated: decoded = .undecoded(.truncated, wire: reassembledWire)
                case .malformed, .fragment: decoded = .undecoded(.malformedIP, wire: reassembledWire)
                case let .transport(transportProtocol, transportOffset):
                    packet.transportProtocol = transportProtocol
                    packet.transport = captured.clamped(from: transportOffset)
                    packet.transportLength = reassembledLength - transportOffset
                    decodeTransport(packet, into: &decoded)
                }
            }
        }
    }
}

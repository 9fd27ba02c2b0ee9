extension PacketDecoder {
    /// Decodes the TCP or UDP header of `packet` into `decoded`; other protocols give `.otherIP`.
    @inline(__always)
    func decodeTransport(_ packet: IPPacket, into decoded: inout DecodedPacket) {
        switch packet.transportProtocol {
        case IPProtocol.tcp: decodeTCP(packet, into: &decoded)
        case IPProtocol.udp: decodeUDP(packet, into: &decoded)
        default: decoded = .otherIP(packet)
        }
    }

    @inline(__always)
    private func decodeTCP(_ packet: IPPacket, into decoded: inout DecodedPacket) {
        guard let header = TCPHeaderView(packet.transport) else {
            decoded = .undecoded(Self.shortfall(needed: 20, declared: packet.transportLength), wire: packet.wire)
            return
        }
        let headerLength = header.headerLength
        guard headerLength >= 20, headerLength <= packet.transportLength else {
            decoded = .undecoded(.malformedIP, wire: packet.wire)
            return
        }
        guard headerLength <= packet.transport.count else {
            decoded = .undecoded(.truncated, wire: packet.wire)
            return
        }
        let hasBadChecksum = hasBadTransportChecksum(packet, segment: packet.transport, length: packet.transportLength)
        if hasBadChecksum { statistics.badTCPChecksums += 1 }
        let segment = TCPSegment(
            sourcePort: header.sourcePort, destinationPort: header.destinationPort, sequence: header.sequence,
            acknowledgment: header.acknowledgment, flags: header.flags, window: header.window,
            headerLength: headerLength, payload: packet.transport.clamped(from: headerLength),
            payloadLength: packet.transportLength - headerLength, hasBadChecksum: hasBadChecksum,
            optionBytes: header.optionBytes)
        decoded = .tcp(packet, segment)
    }

    private func decodeUDP(_ packet: IPPacket, into decoded: inout DecodedPacket) {
        guard let header = UDPHeaderView(packet.transport) else {
            decoded = .undecoded(Self.shortfall(needed: 8, declared: packet.transportLength), wire: packet.wire)
            return
        }
        var length = header.length
        if length < 8 || length > packet.transportLength {
            statistics.inconsistentUDPLengths += 1
            length = packet.transportLength
        }
        let noChecksum = header.checksum == 0 && packet.version == 4
        let hasBadChecksum = !noChecksum && hasBadTransportChecksum(
            packet, segment: packet.transport.clamped(from: 0, to: length), length: length)
        if hasBadChecksum { statistics.badUDPChecksums += 1 }
        let datagram = UDPDatagram(
            sourcePort: header.sourcePort, destinationPort: header.destinationPort,
            payload: packet.transport.clamped(from: 8, to: length), payloadLength: length - 8,
            hasBadChecksum: hasBadChecksum)
        decoded = .udp(packet, datagram)
    }

    /// True when `segment` was captured whole (`length` bytes) and its checksum is wrong.
    private func hasBadTransportChecksum(_ packet: IPPacket, segment: UnsafeRawBufferPointer, length: Int) -> Bool {
        guard segment.count == length else { return false }
        return !InternetChecksum.isValidTransport(
            segment, source: packet.source, destination: packet.destination,
            transportProtocol: packet.transportProtocol)
    }
}

/// IP protocol numbers the decoder treats specially.
enum IPProtocol {
    static let tcp: UInt8 = 6
    static let udp: UInt8 = 17
}

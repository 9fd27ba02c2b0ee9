@testable import WireTally

/// What a decoded frame said, copied out of the views so tests can compare it after the bytes are gone.
struct FrameSummary: Equatable {
    enum Kind: Equatable { case tcp, udp, otherIP, heldFragment, undecoded(DecodeFailure) }
    var kind: Kind
    var wire: TrafficCounters = .zero
    var source: IPAddress?
    var destination: IPAddress?
    var transportProtocol: UInt8?
    var transportLength: Int?
    var sourcePort: UInt16?
    var destinationPort: UInt16?
    var payloadLength: Int?
    var payload: [UInt8] = []
    var badIPChecksum = false
    var badTransportChecksum = false
    var wasFragmented = false
    var vlan = VLANTags()
    var tcpFlags: TCPFlags?
    var tcpOptions: TCPOptions?

    init(_ decoded: DecodedPacket) {
        switch decoded {
        case .heldFragment:
            kind = .heldFragment
        case let .undecoded(failure, wire):
            kind = .undecoded(failure)
            self.wire = wire
        case let .otherIP(ip):
            kind = .otherIP
            take(ip)
        case let .tcp(ip, segment):
            kind = .tcp
            take(ip)
            sourcePort = segment.sourcePort
            destinationPort = segment.destinationPort
            payloadLength = segment.payloadLength
            payload = Array(segment.payload)
            badTransportChecksum = segment.hasBadChecksum
            tcpFlags = segment.flags
            tcpOptions = segment.options
        case let .udp(ip, datagram):
            kind = .udp
            take(ip)
            sourcePort = datagram.sourcePort
            destinationPort = datagram.destinationPort
            payloadLength = datagram.payloadLength
            payload = Array(datagram.payload)
            badTransportChecksum = datagram.hasBadChecksum
        }
    }

    private mutating func take(_ ip: IPPacket) {
        wire = ip.wire
        source = ip.source
        destination = ip.destination
        transportProtocol = ip.transportProtocol
        transportLength = ip.transportLength
        badIPChecksum = ip.hasBadHeaderChecksum
        wasFragmented = ip.wasFragmented
        vlan = ip.vlan
    }
}

extension PacketDecoder {
    /// Decodes `frame` as captured on `link`, keeping `captured` bytes of it (all by default).
    func summary(
        of frame: [UInt8], link: FrameBuilder.Link, captured: Int? = nil, frameNumber: Int = 1,
        timestamp: Timestamp = Timestamp(nanoseconds: 0)
    ) -> FrameSummary {
        summary(of: frame, linkType: link.linkType, captured: captured, frameNumber: frameNumber, timestamp: timestamp)
    }

    func summary(
        of frame: [UInt8], linkType: LinkType, captured: Int? = nil, frameNumber: Int = 1,
        timestamp: Timestamp = Timestamp(nanoseconds: 0)
    ) -> FrameSummary {
        frame.withUnsafeBytes { bytes in
            let packet = CapturedPacket(
                frameNumber: frameNumber, timestamp: timestamp, linkType: linkType, originalLength: frame.count,
                bytes: UnsafeRawBufferPointer(rebasing: bytes[0..<min(captured ?? frame.count, frame.count)]))
            return summary(of: packet)
        }
    }

    /// Decodes `packet` (`decode(_:into:)`) and summarizes what it gave.
    func summary(of packet: CapturedPacket) -> FrameSummary {
        var decoded = DecodedPacket.heldFragment
        decode(packet, into: &decoded)
        return FrameSummary(decoded)
    }
}

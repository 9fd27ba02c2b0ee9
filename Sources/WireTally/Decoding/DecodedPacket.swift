/// An IP datagram decoded from one frame, or reassembled from several IP fragments.
///
/// Byte views point into the captured frame or into the decoder's fragment buffer; they are valid until
/// the decoder is given its next packet.
package struct IPPacket: BitwiseCopyable {
    // The small fields sit in the padding after `source` (declaration order is layout order): the
    // packet fits in 128 bytes, which the compiler copies inline instead of calling memcpy.
    package var source: IPAddress
    /// 4 or 6.
    package var version: UInt8
    /// The upper-layer protocol number (6 TCP, 17 UDP, 1 ICMP, 58 ICMPv6…), after IPv6 extension headers.
    package var transportProtocol: UInt8
    /// True when the IPv4 header checksum is wrong.
    package var hasBadHeaderChecksum: Bool
    /// True when the datagram was reassembled from fragments.
    package var wasFragmented: Bool
    /// VLAN tags of the frame (of the completing frame for a reassembled datagram).
    package var vlan: VLANTags
    package var destination: IPAddress
    /// Captured bytes of the transport header and payload (may be fewer than `transportLength`).
    package var transport: UnsafeRawBufferPointer
    /// Length of the transport header and payload as the IP header(s) declare it.
    package var transportLength: Int
    /// The frames that carried this datagram: `packets` frames, their `frameBytes` (original frame
    /// lengths) and `ipBytes` (IP total lengths). `payloadBytes` is left 0 here.
    package var wire: TrafficCounters
    /// Time of the frame that completed the datagram.
    package var timestamp: Timestamp
    /// Frame number of the frame that completed the datagram.
    package var frameNumber: Int

    package init(
        version: UInt8, source: IPAddress, destination: IPAddress, transportProtocol: UInt8,
        transport: UnsafeRawBufferPointer, transportLength: Int, wire: TrafficCounters,
        timestamp: Timestamp, frameNumber: Int, hasBadHeaderChecksum: Bool = false, wasFragmented: Bool = false,
        vlan: VLANTags = VLANTags()
    ) {
        self.vlan = vlan
        self.version = version
        self.source = source
        self.destination = destination
        self.transportProtocol = transportProtocol
        self.transport = transport
        self.transportLength = transportLength
        self.wire = wire
        self.timestamp = timestamp
        self.frameNumber = frameNumber
        self.hasBadHeaderChecksum = hasBadHeaderChecksum
        self.wasFragmented = wasFragmented
    }

    /// True when the snaplen cut off part of the transport header or payload.
    package var isTruncated: Bool { transport.count < transportLength }
}

/// TCP header flags.
package struct TCPFlags: OptionSet, Hashable, Sendable, BitwiseCopyable {
    package var rawValue: UInt16
    package init(rawValue: UInt16) { self.rawValue = rawValue }
    package static let fin = TCPFlags(rawValue: 0x01)
    package static let syn = TCPFlags(rawValue: 0x02)
    package static let rst = TCPFlags(rawValue: 0x04)
    package static let psh = TCPFlags(rawValue: 0x08)
    package static let ack = TCPFlags(rawValue: 0x10)
    package static let urg = TCPFlags(rawValue: 0x20)
    package static let ece = TCPFlags(rawValue: 0x40)
    package static let cwr = TCPFlags(rawValue: 0x80)
}

/// A decoded TCP segment header with a view of its payload.
package struct TCPSegment: BitwiseCopyable {
    package var sourcePort: UInt16
    package var destinationPort: UInt16
    package var sequence: UInt32
    package var acknowledgment: UInt32
    package var flags: TCPFlags
    package var window: UInt16
    /// TCP header length in bytes (data offset × 4), options included.
    package var headerLength: Int
    /// The captured payload bytes (fewer than `payloadLength` when the snaplen cut them).
    package var payload: UnsafeRawBufferPointer
    /// Payload length from the IP and TCP headers.
    package var payloadLength: Int
    /// True when the checksum could be verified (whole segment captured) and is wrong. Captures taken
    /// on the sending host carry checksums the NIC fills in later: such segments are still decoded.
    package var hasBadChecksum: Bool
    /// The captured option bytes of the header (after its fixed 20 bytes), valid as long as `payload`.
    package var optionBytes: UnsafeRawBufferPointer

    package init(
        sourcePort: UInt16, destinationPort: UInt16, sequence: UInt32, acknowledgment: UInt32,
        flags: TCPFlags, window: UInt16 = 65535, headerLength: Int = 20, payload: UnsafeRawBufferPointer,
        payloadLength: Int, hasBadChecksum: Bool = false,
        optionBytes: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)
    ) {
        self.optionBytes = optionBytes
        self.sourcePort = sourcePort
        self.destinationPort = destinationPort
        self.sequence = sequence
        self.acknowledgment = acknowledgment
        self.flags = flags
        self.window = window
        self.headerLength = headerLength
        self.payload = payload
        self.payloadLength = payloadLength
        self.hasBadChecksum = hasBadChecksum
    }

    /// True when the snaplen cut part of the payload.
    package var isPayloadTruncated: Bool { payload.count < payloadLength }

    /// The options the decoder understands (MSS, window scale, SACK-permitted, timestamps), read from
    /// `optionBytes` when asked: nothing on the per-packet path needs them.
    package var options: TCPOptions { TCPOptions(parsing: optionBytes) }
}

/// TCP options read from a segment header; nil / false when absent.
package struct TCPOptions: Hashable, Sendable {
    package var maximumSegmentSize: UInt16?
    /// The window scale shift count (RFC 7323).
    package var windowScale: UInt8?
    package var sackPermitted: Bool
    package var timestampValue: UInt32?
    package var timestampEchoReply: UInt32?

    package init(
        maximumSegmentSize: UInt16? = nil, windowScale: UInt8? = nil, sackPermitted: Bool = false,
        timestampValue: UInt32? = nil, timestampEchoReply: UInt32? = nil
    ) {
        self.maximumSegmentSize = maximumSegmentSize
        self.windowScale = windowScale
        self.sackPermitted = sackPermitted
        self.timestampValue = timestampValue
        self.timestampEchoReply = timestampEchoReply
    }
}

/// A decoded UDP header with a view of its payload.
package struct UDPDatagram: BitwiseCopyable {
    package var sourcePort: UInt16
    package var destinationPort: UInt16
    /// The captured payload bytes.
    package var payload: UnsafeRawBufferPointer
    /// Payload length from the UDP length field (or the IP length when that is inconsistent).
    package var payloadLength: Int
    /// True when the checksum could be verified and is wrong (a zero IPv4 UDP checksum means none).
    package var hasBadChecksum: Bool

    package init(
        sourcePort: UInt16, destinationPort: UInt16, payload: UnsafeRawBufferPointer, payloadLength: Int,
        hasBadChecksum: Bool = false
    ) {
        self.sourcePort = sourcePort
        self.destinationPort = destinationPort
        self.payload = payload
        self.payloadLength = payloadLength
        self.hasBadChecksum = hasBadChecksum
    }
}

/// Where decoding of a frame stopped when it could not go on.
package enum DecodeFailure: String, Sendable, BitwiseCopyable, CaseIterable {
    /// The capture's link type is not one wiretally decodes.
    case unknownLinkType = "unknown_link_type"
    /// The frame carries something other than IP (ARP, LLDP, …).
    case nonIP = "non_ip"
    /// The captured bytes end inside the link, IP or TCP/UDP header (the snaplen cut it).
    case truncated = "truncated"
    /// The IP, TCP or UDP header is impossible (bad version, header length beyond the declared length…).
    case malformedIP = "malformed_ip"
}

/// The result of decoding one captured frame. Plain data (the compiler checks it): a batch's slot is
/// decoded into where it lies, over uninitialized memory (`PacketBatch`).
package enum DecodedPacket: BitwiseCopyable {
    case tcp(IPPacket, TCPSegment)
    case udp(IPPacket, UDPDatagram)
    /// IP with another transport (ICMP, ICMPv6, ESP, no-next-header, …). A TCP or UDP header cut by the
    /// snaplen is `.undecoded(.truncated, wire:)` instead, with `ipBytes` filled.
    case otherIP(IPPacket)
    /// An IP fragment held for reassembly: counted in the `wire` of the datagram it completes, or, when
    /// that never happens, in what `PacketDecoder.expireFragments(olderThan:)` or `flushFragments()`
    /// returns.
    case heldFragment
    /// Not decodable (to IP, or to TCP/UDP): `wire` has the frame's `packets` (1) and `frameBytes`, plus
    /// `ipBytes` when an IP header was read.
    case undecoded(DecodeFailure, wire: TrafficCounters)
}

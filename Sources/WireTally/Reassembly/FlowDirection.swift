/// Which way a packet or stream byte travels on a connection.
public enum FlowDirection: Int, Sendable, CaseIterable {
    /// Client to server (the client is the SYN sender, else the side with the higher port).
    case up = 0
    /// Server to client.
    case down = 1

    /// The other direction.
    public var reversed: FlowDirection { self == .up ? .down : .up }
}

/// The packet that first delivered some stream bytes, so every reassembled byte can be traced back to
/// its frame (like gopacket's `ScatterGather.CaptureInfo`).
package struct PacketOrigin: Hashable, Sendable {
    package var frameNumber: Int
    package var timestamp: Timestamp

    package init(frameNumber: Int, timestamp: Timestamp) {
        self.frameNumber = frameNumber
        self.timestamp = timestamp
    }
}

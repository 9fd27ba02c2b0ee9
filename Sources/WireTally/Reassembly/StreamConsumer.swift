/// Why part of a TCP stream could not be delivered.
package enum StreamGapReason: String, Sendable {
    /// The capture never saw these sequence numbers (packet loss at the capture point, capture started
    /// or ended mid-transfer, or an out-of-order buffer overflow forced the stream on).
    case missing
    /// The packet was seen but the snaplen cut its payload: its length is known, its content is not.
    case uncaptured
}

/// Receives the in-order bytes of both directions of one TCP connection from the reassembler.
///
/// Calls for one direction come in stream order with no overlap: each byte offset is reported exactly
/// once, either as data or inside a gap. Buffers passed to `streamData` are valid only during the call.
package protocol TCPStreamConsumer: AnyObject {
    /// In-order stream bytes starting at stream offset `offset` (0 = first byte after the SYN, or the
    /// first byte seen when the connection was picked up mid-stream), first delivered by `origin`.
    func streamData(_ data: UnsafeRawBufferPointer, offset: Int64, direction: FlowDirection, origin: PacketOrigin)
    /// `length` bytes starting at `offset` that cannot be delivered.
    func streamGap(offset: Int64, length: Int64, direction: FlowDirection, reason: StreamGapReason)
    /// No more bytes will come in this direction (FIN reached, reset, or the connection was finalised).
    func streamEnded(direction: FlowDirection)
}

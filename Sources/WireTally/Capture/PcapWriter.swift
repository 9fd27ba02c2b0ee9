/// Writes a classic pcap file (one link type, microsecond or nanosecond timestamps) to a file or
/// to memory.
package final class PcapWriter {
    private let sink: CaptureByteSink
    private let precision: TimestampPrecision

    /// Starts a capture of `linkType` packets by writing the file header. Throws `.cannotOpen`
    /// when the destination file cannot be created.
    package init(
        destination: CaptureDestination, linkType: LinkType, precision: TimestampPrecision = .microseconds,
        snaplen: Int = 262_144, byteOrder: ByteOrder = .host
    ) throws(CaptureError) {
        sink = try CaptureByteSink(destination: destination, byteOrder: byteOrder)
        self.precision = precision
        sink.append(UInt32(precision == .microseconds ? 0xa1b2_c3d4 : 0xa1b2_3c4d))
        sink.append(UInt16(2))
        sink.append(UInt16(4))
        sink.append(UInt32(0))
        sink.append(UInt32(0))
        sink.append(UInt32(clamping: snaplen))
        sink.append(linkType.rawValue)
    }

    /// Everything written so far, for a `.memory` destination.
    package var bytes: [UInt8] { sink.bytes }

    /// Appends `packet` (its timestamp rounded down to the file's precision).
    package func write(_ packet: CapturedPacket) throws(CaptureError) {
        let (seconds, fraction) = precision.split(packet.timestamp)
        sink.append(UInt32(truncatingIfNeeded: seconds))
        sink.append(UInt32(truncatingIfNeeded: fraction))
        sink.append(UInt32(clamping: packet.bytes.count))
        sink.append(UInt32(clamping: packet.originalLength))
        sink.append(packet.bytes)
        try sink.flushIfLarge()
    }

    /// Writes out buffered bytes of a file destination.
    package func flush() throws(CaptureError) { try sink.flush() }

    /// Flushes and closes a file destination (also done, ignoring errors, when the writer goes away).
    package func close() throws(CaptureError) { try sink.close() }
}

/// Writes a pcapng file (one section, Enhanced Packet Blocks) to a file or to memory. Packets may
/// have different link types and precisions: one Interface Description Block is written for each
/// (link type, precision) pair, when first used.
public final class PcapNGWriter {
    private struct InterfaceKey: Hashable {
        var linkType: LinkType
        var precision: TimestampPrecision
    }

    private let sink: CaptureByteSink
    private var interfaceIndices: [InterfaceKey: UInt32] = [:]

    /// Starts the file by writing its Section Header Block. Throws `.cannotOpen` when the
    /// destination file cannot be created.
    public init(destination: CaptureDestination, byteOrder: ByteOrder = .host) throws(CaptureError) {
        sink = try CaptureByteSink(destination: destination, byteOrder: byteOrder)
        sink.append(UInt32(0x0A0D_0D0A))
        sink.append(UInt32(28))
        sink.append(UInt32(0x1A2B_3C4D))
        sink.append(UInt16(1))
        sink.append(UInt16(0))
        sink.append(UInt64.max)
        sink.append(UInt32(28))
    }

    /// Everything written so far, for a `.memory` destination.
    public var bytes: [UInt8] { sink.bytes }

    /// Appends `packet` on the interface for its link type and `precision` (timestamp rounded down).
    public func write(_ packet: CapturedPacket, precision: TimestampPrecision = .microseconds) throws(CaptureError) {
        let interfaceIndex = interface(for: InterfaceKey(linkType: packet.linkType, precision: precision))
        let units = UInt64(bitPattern: precision.units(packet.timestamp))
        let capturedLength = packet.bytes.count
        let blockLength = UInt32(clamping: 32 + (capturedLength + 3) & ~3)
        sink.append(UInt32(6))
        sink.append(blockLength)
        sink.append(interfaceIndex)
        sink.append(UInt32(truncatingIfNeeded: units >> 32))
        sink.append(UInt32(truncatingIfNeeded: units))
        sink.append(UInt32(clamping: capturedLength))
        sink.append(UInt32(clamping: packet.originalLength))
        sink.append(packet.bytes)
        sink.padToFourBytes(capturedLength)
        sink.append(blockLength)
        try sink.flushIfLarge()
    }

    /// Writes out buffered bytes of a file destination.
    public func flush() throws(CaptureError) { try sink.flush() }

    /// Flushes and closes a file destination (also done, ignoring errors, when the writer goes away).
    public func close() throws(CaptureError) { try sink.close() }

    /// The index of the interface for `key`, writing its description block the first time.
    private func interface(for key: InterfaceKey) -> UInt32 {
        if let index = interfaceIndices[key] { return index }
        let index = UInt32(interfaceIndices.count)
        interfaceIndices[key] = index
        sink.append(UInt32(1))
        sink.append(UInt32(32))
        sink.append(UInt16(truncatingIfNeeded: key.linkType.rawValue))
        sink.append(UInt16(0))
        sink.append(UInt32(262_144))
        sink.append(UInt16(9))
        sink.append(UInt16(1))
        sink.append(UInt8(key.precision.digits))
        sink.padToFourBytes(1)
        sink.append(UInt32(0))
        sink.append(UInt32(32))
        return index
    }
}

/// Writes a pcapng file (one section, Enhanced Packet Blocks) to a file or to memory. Packets may
/// have different link types and precisions: one Interface Description Block is written for each
/// (link type, precision) pair, when first used. Decryption Secrets Blocks (TLS key logs) may be
/// written before, between or after the packets.
package final class PcapNGWriter {
    private struct InterfaceKey: Hashable {
        var linkType: LinkType
        var precision: TimestampPrecision
    }

    private let sink: CaptureByteSink
    private var interfaceIndices: [InterfaceKey: UInt32] = [:]

    /// Starts the file by writing its Section Header Block. Throws `.cannotOpen` when the
    /// destination file cannot be created.
    package init(destination: CaptureDestination, byteOrder: ByteOrder = .host) throws(CaptureError) {
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
    package var bytes: [UInt8] { sink.bytes }

    /// Appends `packet` on the interface for its link type and `precision` (timestamp rounded down).
    package func write(_ packet: CapturedPacket, precision: TimestampPrecision = .microseconds) throws(CaptureError) {
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

    /// Appends TLS session secrets in NSS key log format (`LABEL <client random> <secret>` lines, as
    /// `SSLKEYLOGFILE` writes them) as Decryption Secrets Blocks of type TLS key log (0x544c534b), so
    /// that the file carries the keys that decrypt its connections. Nothing is written for an empty
    /// log; a newline is added when the last line has none (the format requires one per line).
    ///
    /// A log longer than `maximumSecretsPerBlock` is split at line ends into several blocks, which
    /// readers join (Wireshark, `DecryptionSecretsScan`). Wireshark uses only secrets written before
    /// the packets of the connections they unlock (see `DecryptionSecretsScan`); wiretally uses them
    /// wherever they are.
    package func writeDecryptionSecrets(tlsKeyLog: [UInt8]) throws(CaptureError) {
        try writeDecryptionSecrets(tlsKeyLog: tlsKeyLog, blockLimit: Self.maximumSecretsPerBlock)
    }

    /// `writeDecryptionSecrets(tlsKeyLog:)` with blocks of at most `blockLimit` secrets bytes.
    func writeDecryptionSecrets(tlsKeyLog: [UInt8], blockLimit: Int) throws(CaptureError) {
        var rest = tlsKeyLog[...]
        while !rest.isEmpty {
            var piece = rest.prefix(blockLimit)
            if piece.count < rest.count, let lastNewline = piece.lastIndex(of: UInt8(ascii: "\n")) {
                piece = rest[..<(lastNewline + 1)]
            }
            rest = rest[piece.endIndex...]
            if rest.isEmpty, piece.last != UInt8(ascii: "\n") {
                writeDecryptionSecretsBlock(type: DecryptionSecretsScan.tlsKeyLogType, Array(piece) + [UInt8(ascii: "\n")])
            } else {
                writeDecryptionSecretsBlock(type: DecryptionSecretsScan.tlsKeyLogType, piece)
            }
        }
        try sink.flushIfLarge()
    }

    /// The most secrets bytes one Decryption Secrets Block gets from `writeDecryptionSecrets`.
    package static let maximumSecretsPerBlock = 16 << 20

    /// Appends one Decryption Secrets Block of `type` holding `secrets` (at most 256 MiB - 32 bytes).
    func writeDecryptionSecretsBlock(type: UInt32, _ secrets: some Collection<UInt8>) {
        precondition(secrets.count <= (256 << 20) - 32, "Decryption Secrets Block too large")
        let blockLength = UInt32(20 + (secrets.count + 3) & ~3)
        sink.append(UInt32(0x0A))
        sink.append(blockLength)
        sink.append(type)
        sink.append(UInt32(secrets.count))
        sink.append(bytes: secrets)
        sink.padToFourBytes(secrets.count)
        sink.append(blockLength)
    }

    /// Writes out buffered bytes of a file destination.
    package func flush() throws(CaptureError) { try sink.flush() }

    /// Flushes and closes a file destination (also done, ignoring errors, when the writer goes away).
    package func close() throws(CaptureError) { try sink.close() }

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

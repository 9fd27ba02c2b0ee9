/// The decryption secrets a pcapng file carries in its Decryption Secrets Blocks (block type
/// 0x0000000A: Secrets Type, Secrets Length, the secrets padded to 32 bits, options), found by a
/// cheap walk over the file's blocks before the analysis reads its packets.
///
/// The analysis needs the keys when it meets the encrypted records, but a DSB may come anywhere:
/// Wireshark's `editcap --inject-secrets tls,FILE` writes it before the packets, other writers (and
/// `live -w … --keylog`) after the packets they unlock, and every section of a file may have its
/// own. The walk reads only the 12 bytes that frame each block and the bodies of the DSBs: packet
/// blocks are stepped over in the read buffer, never decoded or copied out, and a block reaching
/// more than 64 KiB beyond the buffered bytes of a plain file is passed with `lseek`; a `.gz` file is
/// inflated (recognised by its magic number, as `CaptureFile.open` does). A pcap file has no blocks:
/// nothing is found.
///
/// A file damaged part of the way (truncated, a block framing that does not hold together, corrupt
/// gzip data) keeps the secrets found before the damage, which `damage` describes.
package struct DecryptionSecretsScan: Sendable {
    /// The Secrets Type of a TLS key log (`TLSK`): NSS key log text, one line per secret.
    package static let tlsKeyLogType: UInt32 = 0x544C_534B

    /// The Secrets Data of each TLS key log DSB (padding removed), in file order.
    package private(set) var tlsKeyLogs: [[UInt8]] = []
    /// DSBs of other secrets types (SSH, WireGuard, ZigBee, OPC UA…): counted, not kept.
    package private(set) var otherSecretsBlocks = 0
    /// DSBs whose Secrets Length does not fit their block: counted and skipped.
    package private(set) var malformedSecretsBlocks = 0
    /// TLS key log DSBs past `maximumTLSKeyLogBytes` kept: counted, not kept.
    package private(set) var droppedTLSKeyLogs = 0
    /// Sections (Section Header Blocks) met.
    package private(set) var sections = 0
    /// Packet blocks (enhanced, simple, obsolete) stepped over.
    package private(set) var packetBlocks = 0
    /// Why the walk stopped before the end of the file (`.truncated`, `.malformed`, `.decompression`),
    /// nil when it reached the end. The secrets found before it are kept.
    package private(set) var damage: CaptureError?

    /// At most this many bytes of TLS key logs are kept, whatever the file says (a key log line
    /// takes about 180 bytes: over a million connections).
    package static let maximumTLSKeyLogBytes = 256 << 20

    /// Walks the blocks of the capture at `path` (pcap or pcapng, gzip-compressed or not).
    ///
    /// Throws `.cannotOpen`, `.notACapture` (neither a pcap nor a pcapng magic number), `.truncated`
    /// (shorter than a magic number) and `.decompression` (gzip data corrupt before the magic number);
    /// damage further on is `damage`, never thrown.
    package init(path: String) throws(CaptureError) {
        let input = try CaptureInput(path: path)
        guard try input.fill(4) == 4 else {
            throw .truncated(path: path, afterPackets: 0, detail: "file shorter than any capture header")
        }
        let magic = input.bytes.load(uint32At: 0, .littleEndian)
        if PcapFormat(magic: magic) != nil { return }
        guard magic == BlockType.sectionHeader else { throw .notACapture(path: path) }
        do {
            try walk(input)
        } catch {
            damage = error
        }
    }

    /// The TLS key log payloads of the DSBs of the capture at `path`, in file order: those before any
    /// damage when the file is damaged part of the way. Throws as `init(path:)`.
    package static func tlsKeyLogSecrets(in path: String) throws(CaptureError) -> [[UInt8]] {
        try DecryptionSecretsScan(path: path).tlsKeyLogs
    }

    /// The TLS key logs read into one `TLSKeyLog`, each payload on its own (a last line without
    /// newline ends with its block; line numbers run on across blocks).
    package var tlsKeyLog: TLSKeyLog {
        var log = TLSKeyLog()
        for payload in tlsKeyLogs {
            log.read(payload)
            log.finish()
        }
        return log
    }

    private enum BlockType {
        static let sectionHeader: UInt32 = 0x0A0D_0D0A
        static let obsoletePacket: UInt32 = 2
        static let simplePacket: UInt32 = 3
        static let enhancedPacket: UInt32 = 6
        static let decryptionSecrets: UInt32 = 0x0A
    }

    private static let byteOrderMagic: UInt32 = 0x1A2B_3C4D
    /// As `PcapNGReader`: a longer block is malformed.
    private static let largestBlock = 256 << 20

    private mutating func walk(_ input: CaptureInput) throws(CaptureError) {
        var byteOrder = ByteOrder.littleEndian
        var keptBytes = 0
        while true {
            let available = try input.fill(12)
            if available == 0 { return }
            guard available >= 8 else { throw truncated(input, "block header cut short") }
            let type = input.bytes.load(uint32At: 0, byteOrder)
            if type == BlockType.sectionHeader {
                guard available == 12 else { throw truncated(input, "section header cut short") }
                switch input.bytes.load(uint32At: 8, .littleEndian) {
                case Self.byteOrderMagic: byteOrder = .littleEndian
                case Self.byteOrderMagic.byteSwapped: byteOrder = .bigEndian
                default: throw malformed(input, "section header has no byte-order magic")
                }
            }
            let length = Int(input.bytes.load(uint32At: 4, byteOrder))
            let minimumLength = switch type {
            case BlockType.sectionHeader: 28
            case BlockType.decryptionSecrets: 20
            default: 12
            }
            guard length % 4 == 0, length >= minimumLength, length <= Self.largestBlock else {
                throw malformed(input, "block type \(type) has impossible length \(length)")
            }
            if type == BlockType.decryptionSecrets {
                guard try input.fill(length) == length else { throw truncated(input, "block of \(length) bytes cut short") }
                try checkTrailingLength(input, at: length - 4, length: length, type: type, byteOrder)
                take(secretsBlockOf: length, at: input.bytes, byteOrder, keptBytes: &keptBytes)
                input.consume(length)
                continue
            }
            if type == BlockType.sectionHeader {
                guard try input.fill(16) == 16 else { throw truncated(input, "section header cut short") }
                let majorVersion = input.bytes.load(uint16At: 12, byteOrder)
                guard majorVersion == 1 else { throw malformed(input, "unsupported pcapng version \(majorVersion)") }
                sections += 1
            }
            guard try input.skip(length - 4) == length - 4, try input.fill(4) == 4 else {
                throw truncated(input, "block of \(length) bytes cut short")
            }
            try checkTrailingLength(input, at: 0, length: length, type: type, byteOrder)
            input.consume(4)
            if type == BlockType.enhancedPacket || type == BlockType.simplePacket || type == BlockType.obsoletePacket {
                packetBlocks += 1
            }
        }
    }

    private func checkTrailingLength(
        _ input: CaptureInput, at offset: Int, length: Int, type: UInt32, _ byteOrder: ByteOrder
    ) throws(CaptureError) {
        guard Int(input.bytes.load(uint32At: offset, byteOrder)) == length else {
            throw malformed(input, "block type \(type): trailing length differs from leading length \(length)")
        }
    }

    /// Takes the secrets of the buffered DSB of `length` bytes at `block`.
    private mutating func take(
        secretsBlockOf length: Int, at block: UnsafeRawPointer, _ byteOrder: ByteOrder, keptBytes: inout Int
    ) {
        let secretsType = block.load(uint32At: 8, byteOrder)
        let secretsLength = Int(block.load(uint32At: 12, byteOrder))
        // Secrets Data, padded to 4 bytes, must fit between the two fields and the trailing length.
        guard (secretsLength + 3) & ~3 <= length - 20 else {
            malformedSecretsBlocks += 1
            return
        }
        guard secretsType == Self.tlsKeyLogType else {
            otherSecretsBlocks += 1
            return
        }
        guard keptBytes + secretsLength <= Self.maximumTLSKeyLogBytes else {
            droppedTLSKeyLogs += 1
            return
        }
        keptBytes += secretsLength
        tlsKeyLogs.append(Array(UnsafeRawBufferPointer(start: block + 16, count: secretsLength)))
    }

    private func truncated(_ input: CaptureInput, _ detail: String) -> CaptureError {
        .truncated(path: input.path, afterPackets: packetBlocks, detail: detail)
    }

    private func malformed(_ input: CaptureInput, _ detail: String) -> CaptureError {
        .malformed(path: input.path, afterPackets: packetBlocks, detail: detail)
    }
}

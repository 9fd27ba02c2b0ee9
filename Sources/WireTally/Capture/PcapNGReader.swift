/// Reads a pcapng file: one or more sections (each with its own byte order and interfaces), with
/// packets from Enhanced, Simple and obsolete Packet Blocks. Interfaces may have different link
/// types. Other block types are skipped, Decryption Secrets Blocks among them wherever they are
/// (before, between or after the packets, in any section): `DecryptionSecretsScan` reads their
/// secrets in a walk of its own before the packets are read.
///
/// Simple Packet Blocks carry no timestamp: they get the previous packet's timestamp (0 when first).
/// A packet whose captured length exceeds its original length is reported with
/// `originalLength == captured length`, as Wireshark does.
///
/// Apple's process information blocks and PCAPdroid's UID mappings give each packet its owner
/// (`PcapNGOwnerTable`).
final class PcapNGReader: CaptureFileReader {
    /// Decimal digits of timestamp precision: the finest over the interfaces seen so far (all those
    /// declared before the first packet are known as soon as the reader is created), at most 9.
    private(set) var timestampDigits = 0

    private enum BlockType {
        static let sectionHeader: UInt32 = 0x0A0D_0D0A
        static let interfaceDescription: UInt32 = 1
        static let obsoletePacket: UInt32 = 2
        static let simplePacket: UInt32 = 3
        static let enhancedPacket: UInt32 = 6
        static let decryptionSecrets: UInt32 = 0x0A
    }

    /// A block whose bytes are all buffered at the input's read position.
    private struct Block {
        var type: UInt32
        var length: Int
    }

    private static let byteOrderMagic: UInt32 = 0x1A2B_3C4D
    private static let largestBlock = 256 << 20

    let input: CaptureInput

    var fileBytesRead: Int { input.fileBytesRead }
    private let fileIndex: Int
    private var byteOrder = ByteOrder.littleEndian
    private var interfaces: [PcapNGInterface] = []
    private var packetCount = 0
    private var previousTimestamp = Timestamp(nanoseconds: 0)
    private var owners = PcapNGOwnerTable()
    /// The owner of the last packet that named one, handed on again while packets name the same; it
    /// keeps that packet's owner alive (a packet does not retain its `recordedOwner`).
    private var lastOwner: RecordedOwner?

    /// Reads the section header and the blocks before the first packet from `input`, which must
    /// start with a pcapng Section Header Block.
    init(input: CaptureInput, fileIndex: Int) throws(CaptureError) {
        self.input = input
        self.fileIndex = fileIndex
        let magicLength = try input.fill(4)
        guard magicLength == 4, input.bytes.load(uint32At: 0, .littleEndian) == BlockType.sectionHeader else {
            throw magicLength < 4 ? truncated("file shorter than a block header") : .notACapture(path: input.path)
        }
        _ = try advanceToPacketBlock()
    }

    func nextPacket() throws -> CapturedPacket? {
        guard let block = try advanceToPacketBlock() else { return nil }
        let packet = try decodePacket(block)
        input.consume(block.length)
        return packet
    }

    /// Handles and consumes blocks up to the next packet block, which it leaves buffered and
    /// unconsumed. Returns nil at the clean end of the file.
    private func advanceToPacketBlock() throws(CaptureError) -> Block? {
        while let block = try readBlock() {
            switch block.type {
            case BlockType.enhancedPacket, BlockType.simplePacket, BlockType.obsoletePacket:
                return block
            case BlockType.sectionHeader:
                try startSection(block)
            case BlockType.interfaceDescription:
                addInterface(block)
            case BlockType.decryptionSecrets:
                break
            case PcapNGOwnerTable.appleProcessBlock:
                owners.addAppleProcess(input.bytes, length: block.length, byteOrder)
            case PcapNGOwnerTable.customBlock:
                owners.addCustomBlock(input.bytes, length: block.length, byteOrder)
            default:
                break
            }
            input.consume(block.length)
        }
        return nil
    }

    /// Buffers the whole next block and checks its framing; nil at the clean end of the file.
    private func readBlock() throws(CaptureError) -> Block? {
        let available = try input.fill(12)
        if available == 0 { return nil }
        guard available >= 8 else { throw truncated("block header cut short") }
        let type = input.bytes.load(uint32At: 0, byteOrder)
        if type == BlockType.sectionHeader {
            guard available == 12 else { throw truncated("section header cut short") }
            switch input.bytes.load(uint32At: 8, .littleEndian) {
            case Self.byteOrderMagic: byteOrder = .littleEndian
            case Self.byteOrderMagic.byteSwapped: byteOrder = .bigEndian
            default: throw malformed("section header has no byte-order magic")
            }
        }
        let length = Int(input.bytes.load(uint32At: 4, byteOrder))
        guard length % 4 == 0, length >= Self.minimumLength(of: type), length <= Self.largestBlock else {
            throw malformed("block type \(type) has impossible length \(length)")
        }
        guard try input.fill(length) == length else { throw truncated("block of \(length) bytes cut short") }
        guard Int(input.bytes.load(uint32At: length - 4, byteOrder)) == length else {
            throw malformed("block type \(type): trailing length differs from leading length \(length)")
        }
        return Block(type: type, length: length)
    }

    private static func minimumLength(of type: UInt32) -> Int {
        switch type {
        case BlockType.sectionHeader: return 28
        case BlockType.interfaceDescription: return 20
        case BlockType.simplePacket: return 16
        case BlockType.enhancedPacket, BlockType.obsoletePacket: return 32
        default: return 12
        }
    }

    private func startSection(_ block: Block) throws(CaptureError) {
        let majorVersion = input.bytes.load(uint16At: 12, byteOrder)
        guard majorVersion == 1 else { throw malformed("unsupported pcapng version \(majorVersion)") }
        interfaces.removeAll(keepingCapacity: true)
        owners.startSection()
    }

    private func addInterface(_ block: Block) {
        let bytes = input.bytes
        var resolution = PcapNGInterface.Resolution.decimal(exponent: 6)
        var offsetSeconds: Int64 = 0
        let optionsEnd = block.length - 4
        var offset = 16
        while offset + 4 <= optionsEnd {
            let code = bytes.load(uint16At: offset, byteOrder)
            let length = Int(bytes.load(uint16At: offset + 2, byteOrder))
            let value = offset + 4
            guard code != 0, value + length <= optionsEnd else { break }
            if code == 9 && length == 1 {
                resolution = .init(optionByte: bytes.load(fromByteOffset: value, as: UInt8.self))
            } else if code == 14 && length == 8 {
                offsetSeconds = Int64(bitPattern: bytes.load(uint64At: value, byteOrder))
            }
            offset = value + (length + 3) & ~3
        }
        let interface = PcapNGInterface(
            linkType: LinkType(rawValue: UInt32(bytes.load(uint16At: 8, byteOrder))),
            snaplen: Int(bytes.load(uint32At: 12, byteOrder)),
            resolution: resolution, offsetSeconds: offsetSeconds)
        interfaces.append(interface)
        timestampDigits = max(timestampDigits, resolution.digits)
    }

    /// The packet in the buffered packet `block`.
    private func decodePacket(_ block: Block) throws(CaptureError) -> CapturedPacket {
        let bytes = input.bytes
        let interfaceIndex: Int
        let timestampUnits: UInt64?
        let capturedLength: Int
        let originalLength: Int
        let dataOffset: Int
        var origin: RecordedOwner?
        if block.type == BlockType.simplePacket {
            guard let firstInterface = interfaces.first else { throw malformed("simple packet before any interface") }
            interfaceIndex = 0
            timestampUnits = nil
            originalLength = Int(bytes.load(uint32At: 8, byteOrder))
            dataOffset = 12
            let snaplen = firstInterface.snaplen > 0 ? firstInterface.snaplen : Int.max
            capturedLength = min(originalLength, block.length - 16, snaplen)
        } else {
            interfaceIndex = block.type == BlockType.enhancedPacket
                ? Int(bytes.load(uint32At: 8, byteOrder)) : Int(bytes.load(uint16At: 8, byteOrder))
            timestampUnits = UInt64(bytes.load(uint32At: 12, byteOrder)) << 32 | UInt64(bytes.load(uint32At: 16, byteOrder))
            capturedLength = Int(bytes.load(uint32At: 20, byteOrder))
            originalLength = Int(bytes.load(uint32At: 24, byteOrder))
            dataOffset = 28
            guard capturedLength <= block.length - 32 else {
                throw malformed("captured length \(capturedLength) does not fit its \(block.length)-byte block")
            }
            if block.type == BlockType.enhancedPacket {
                origin = RecordedOwner.reusing(lastOwner, for: owners.owner(
                    ofOptions: bytes, from: dataOffset + (capturedLength + 3) & ~3, to: block.length - 4, byteOrder))
                lastOwner = origin ?? lastOwner
            }
        }
        guard interfaceIndex < interfaces.count else {
            throw malformed("packet on undeclared interface \(interfaceIndex)")
        }
        let interface = interfaces[interfaceIndex]
        let timestamp = timestampUnits.map { interface.timestamp(units: $0) } ?? previousTimestamp
        previousTimestamp = timestamp
        packetCount += 1
        return CapturedPacket(
            frameNumber: packetCount, timestamp: timestamp, linkType: interface.linkType,
            originalLength: max(originalLength, capturedLength),
            bytes: UnsafeRawBufferPointer(start: bytes + dataOffset, count: capturedLength),
            fileIndex: fileIndex, interfaceIndex: interfaceIndex, recordedOwner: origin)
    }

    private func truncated(_ detail: String) -> CaptureError {
        .truncated(path: input.path, afterPackets: packetCount, detail: detail)
    }

    private func malformed(_ detail: String) -> CaptureError {
        .malformed(path: input.path, afterPackets: packetCount, detail: detail)
    }
}

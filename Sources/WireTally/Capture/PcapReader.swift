/// Reads a classic pcap file: microsecond (a1b2c3d4) or nanosecond (a1b23c4d) timestamps in either
/// byte order, and the "modified pcap" variant (a1b2cd34) with its longer record header.
///
/// A record whose `incl_len` exceeds its `orig_len` is reported with `originalLength == incl_len`,
/// as Wireshark does. An `incl_len` above max(snaplen, 262144) or above 256 MiB is `.malformed`.
final class PcapReader: CaptureFileReader {
    /// Link type of every packet in the file (FCS bits of the header field masked off, like libpcap).
    let linkType: LinkType
    let timestampDigits: Int

    let input: CaptureInput

    var fileBytesRead: Int { input.fileBytesRead }
    private let fileIndex: Int
    private let byteOrder: ByteOrder
    private let recordHeaderLength: Int
    private let nanosecondsPerFractionUnit: Int64
    private let maximumRecordLength: Int
    private var packetCount = 0

    static let fileHeaderLength = 24
    private static let largestAcceptedSnaplen = 262_144
    private static let largestRecord = 256 << 20

    /// Reads the file header from `input`, which must start with a pcap magic number.
    init(input: CaptureInput, fileIndex: Int) throws(CaptureError) {
        self.input = input
        self.fileIndex = fileIndex
        guard try input.fill(Self.fileHeaderLength) == Self.fileHeaderLength else {
            throw .truncated(path: input.path, afterPackets: 0, detail: "file shorter than the pcap header")
        }
        let header = input.bytes
        guard let format = PcapFormat(magic: header.load(uint32At: 0, .littleEndian)) else {
            throw .notACapture(path: input.path)
        }
        byteOrder = format.byteOrder
        recordHeaderLength = format.isModified ? 24 : 16
        nanosecondsPerFractionUnit = format.isNanosecond ? 1 : 1000
        timestampDigits = format.isNanosecond ? 9 : 6
        let snaplen = Int(header.load(uint32At: 16, byteOrder))
        maximumRecordLength = min(max(snaplen, Self.largestAcceptedSnaplen), Self.largestRecord)
        linkType = LinkType(rawValue: header.load(uint32At: 20, byteOrder) & 0x03FF_FFFF)
        input.consume(Self.fileHeaderLength)
    }

    func nextPacket() throws -> CapturedPacket? {
        let headerBytes = try input.fill(recordHeaderLength)
        if headerBytes == 0 { return nil }
        guard headerBytes == recordHeaderLength else { throw truncated("record header cut short") }
        let header = input.bytes
        let capturedLength = Int(header.load(uint32At: 8, byteOrder))
        guard capturedLength <= maximumRecordLength else {
            throw CaptureError.malformed(
                path: input.path, afterPackets: packetCount,
                detail: "record length \(capturedLength) exceeds the limit \(maximumRecordLength)")
        }
        let recordLength = recordHeaderLength + capturedLength
        guard try input.fill(recordLength) == recordLength else { throw truncated("packet data cut short") }
        let record = input.bytes
        let seconds = Int64(record.load(uint32At: 0, byteOrder))
        let fraction = Int64(record.load(uint32At: 4, byteOrder))
        let originalLength = Int(record.load(uint32At: 12, byteOrder))
        input.consume(recordLength)
        packetCount += 1
        return CapturedPacket(
            frameNumber: packetCount,
            timestamp: Timestamp(seconds: seconds, nanoseconds: fraction &* nanosecondsPerFractionUnit).clampedToReadable,
            linkType: linkType,
            originalLength: max(originalLength, capturedLength),
            bytes: UnsafeRawBufferPointer(start: record + recordHeaderLength, count: capturedLength),
            fileIndex: fileIndex)
    }

    private func truncated(_ detail: String) -> CaptureError {
        .truncated(path: input.path, afterPackets: packetCount, detail: detail)
    }
}

/// What a pcap magic number says about the file.
struct PcapFormat {
    var byteOrder: ByteOrder
    var isNanosecond: Bool
    var isModified: Bool

    /// Decodes the first four file bytes read as a little-endian number; nil if not a pcap magic.
    init?(magic: UInt32) {
        if let format = Self.variant(magic) {
            byteOrder = .littleEndian
            (isNanosecond, isModified) = format
        } else if let format = Self.variant(magic.byteSwapped) {
            byteOrder = .bigEndian
            (isNanosecond, isModified) = format
        } else {
            return nil
        }
    }

    /// The variant a magic number in the reader's byte order names (a switch: a dictionary literal
    /// was built, hashing included, on each of the three calls a run makes).
    private static func variant(_ magic: UInt32) -> (nano: Bool, modified: Bool)? {
        switch magic {
        case 0xa1b2_c3d4: (false, false)
        case 0xa1b2_3c4d: (true, false)
        case 0xa1b2_cd34: (false, true)
        default: nil
        }
    }
}

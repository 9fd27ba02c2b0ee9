/// Opening capture files whatever their format.
package enum CaptureFile {
    /// Opens the pcap or pcapng file at `path`, gzip-compressed or not, recognising each by its
    /// magic number (never by the file name). Packets carry `fileIndex`.
    ///
    /// Throws `.cannotOpen`, `.notACapture` (unknown magic), `.truncated` (shorter than the file
    /// header), `.malformed` or `.decompression`. A file holding only headers yields no packets
    /// and no error.
    package static func open(path: String, fileIndex: Int = 0) throws(CaptureError) -> any PacketSource {
        let input = try CaptureInput(path: path)
        let magicLength = try input.fill(4)
        guard magicLength == 4 else {
            throw .truncated(path: path, afterPackets: 0, detail: "file shorter than any capture header")
        }
        let magic = input.bytes.load(uint32At: 0, .littleEndian)
        if PcapFormat(magic: magic) != nil {
            return try PcapReader(input: input, fileIndex: fileIndex)
        }
        return try PcapNGReader(input: input, fileIndex: fileIndex)
    }
}

/// A packet source reading one capture file through a `CaptureInput` (pcap or pcapng).
protocol CaptureFileReader: PacketSource {
    /// The input the records are read from.
    var input: CaptureInput { get }
}

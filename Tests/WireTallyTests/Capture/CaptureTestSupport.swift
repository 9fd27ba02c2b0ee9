import CPcap
import Foundation
@testable import WireTally

/// A captured packet with its own copy of the bytes, for comparisons.
struct OwnedPacket: Equatable, CustomStringConvertible {
    var frameNumber: Int
    var nanoseconds: Int64
    var linkType: UInt32
    var originalLength: Int
    var bytes: [UInt8]
    var fileIndex = 0
    var interfaceIndex = 0

    init(
        frameNumber: Int, nanoseconds: Int64, linkType: UInt32, originalLength: Int, bytes: [UInt8],
        fileIndex: Int = 0, interfaceIndex: Int = 0
    ) {
        self.frameNumber = frameNumber
        self.nanoseconds = nanoseconds
        self.linkType = linkType
        self.originalLength = originalLength
        self.bytes = bytes
        self.fileIndex = fileIndex
        self.interfaceIndex = interfaceIndex
    }

    init(_ packet: CapturedPacket) {
        self.init(
            frameNumber: packet.frameNumber, nanoseconds: packet.timestamp.nanoseconds,
            linkType: packet.linkType.rawValue, originalLength: packet.originalLength, bytes: Array(packet.bytes),
            fileIndex: packet.fileIndex, interfaceIndex: packet.interfaceIndex)
    }

    var description: String {
        "#\(frameNumber) t=\(nanoseconds) lt=\(linkType) len=\(bytes.count)/\(originalLength) file=\(fileIndex) if=\(interfaceIndex)"
    }
}

/// What reading a whole source produced: every packet, then the error that stopped it (if any).
struct ReadResult {
    var packets: [OwnedPacket] = []
    var error: (any Error)?
    var timestampDigits = 0

    var captureError: CaptureError? { error as? CaptureError }
}

/// Reads `source` to its end or first error.
func readAll(_ source: inout some PacketSource) -> ReadResult {
    var result = ReadResult()
    do {
        while let packet = try source.nextPacket() { result.packets.append(OwnedPacket(packet)) }
    } catch {
        result.error = error
    }
    result.timestampDigits = source.timestampDigits
    return result
}

/// Opens `path` with `CaptureFile.open` and reads it all; an open failure is the result's error.
func readAll(path: String, fileIndex: Int = 0) -> ReadResult {
    do {
        var source = try CaptureFile.open(path: path, fileIndex: fileIndex)
        return readAll(&source)
    } catch {
        return ReadResult(error: error)
    }
}

/// A scratch directory removed when the value goes away.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "wiretally-capture-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `bytes` to a file named `name` in the directory and returns its path.
    func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let filePath = path + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: filePath))
        return filePath
    }
}

/// `bytes` compressed by the gzip tool.
func gzipped(_ bytes: [UInt8]) throws -> [UInt8] { Array(try ExternalProgram.output("gzip", ["-c"], input: Data(bytes))) }

/// `bytes` inflated by the gzip tool.
func gunzipped(_ bytes: [UInt8]) throws -> [UInt8] { Array(try ExternalProgram.output("gzip", ["-dc"], input: Data(bytes))) }

/// A packet read by libpcap itself, and the DLT it reported for the file.
struct LibpcapCapture {
    var dataLinkType: Int32
    var packets: [OwnedPacket]
    /// libpcap's error message if it stopped before the end of the file.
    var error: String?
}

/// Reads `path` with libpcap (nanosecond precision); nil when libpcap cannot open it, or cannot compile
/// `filter` for its link type.
/// `filter`, when given, is compiled by libpcap for the file and decides which frame numbers are kept.
func readWithLibpcap(path: String, filter: String? = nil) -> LibpcapCapture? {
    var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
    guard let handle = pcap_open_offline_with_tstamp_precision(path, UInt32(PCAP_TSTAMP_PRECISION_NANO), &errorBuffer)
    else { return nil }
    defer { pcap_close(handle) }
    var program = bpf_program()
    if let filter {
        guard pcap_compile(handle, &program, filter, 1, PCAP_NETMASK_UNKNOWN) == 0 else { return nil }
    }
    defer { if filter != nil { pcap_freecode(&program) } }
    var capture = LibpcapCapture(dataLinkType: pcap_datalink(handle), packets: [])
    var header: UnsafeMutablePointer<pcap_pkthdr>?
    var data: UnsafePointer<UInt8>?
    var frameNumber = 0
    while true {
        let status = pcap_next_ex(handle, &header, &data)
        guard status == 1, let header, let data else {
            if status == -1 { capture.error = String(cString: pcap_geterr(handle)) }
            return capture
        }
        frameNumber += 1
        if filter != nil && pcap_offline_filter(&program, header, data) == 0 { continue }
        let caplen = Int(header.pointee.caplen)
        capture.packets.append(OwnedPacket(
            frameNumber: frameNumber,
            nanoseconds: Int64(header.pointee.ts.tv_sec) * 1_000_000_000 + Int64(header.pointee.ts.tv_usec),
            linkType: UInt32(bitPattern: capture.dataLinkType),
            originalLength: Int(header.pointee.len),
            bytes: Array(UnsafeBufferPointer(start: data, count: caplen))))
    }
}

/// Minimal IPv4 + TCP headers (no payload) between two ports.
func ipv4TCP(sourcePort: UInt16, destinationPort: UInt16) -> [UInt8] {
    var ip: [UInt8] = [0x45, 0, 0, 40, 0, 1, 0, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2]
    ip += [UInt8(sourcePort >> 8), UInt8(sourcePort & 0xff), UInt8(destinationPort >> 8), UInt8(destinationPort & 0xff)]
    ip += [0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x02, 0xff, 0xff, 0, 0, 0, 0]
    return ip
}

/// `payload` in an Ethernet II frame carrying IPv4.
func ethernet(_ payload: [UInt8]) -> [UInt8] {
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0x08, 0x00] + payload
}

/// A `CapturedPacket` over `bytes` for feeding writers and filters; use it only inside `body`.
func withPacket<Result>(
    _ bytes: [UInt8], nanoseconds: Int64, linkType: LinkType, originalLength: Int? = nil,
    _ body: (CapturedPacket) throws -> Result
) rethrows -> Result {
    try bytes.withUnsafeBytes { buffer in
        try body(CapturedPacket(
            frameNumber: 0, timestamp: Timestamp(nanoseconds: nanoseconds), linkType: linkType,
            originalLength: originalLength ?? bytes.count, bytes: buffer))
    }
}

extension LinkType {
    /// The DLT_ value libpcap reports for a file of this link type (it maps LINKTYPE_RAW to DLT_RAW).
    var libpcapDataLinkType: UInt32 {
        self == .raw ? UInt32(DLT_RAW) : rawValue
    }
}

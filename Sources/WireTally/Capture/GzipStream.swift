import CZlib
import Glibc

/// Inflates a gzip file (one member or several concatenated) read from a file descriptor.
///
/// Every byte inflated before a problem is handed out; the problem (corrupt data, bad checksum,
/// compressed data cut short) is reported by the following `read`. zlib's `gzread` is not used
/// because it discards the output of the call that meets the error.
final class GzipStream {
    private let fileDescriptor: Int32
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private let compressed: UnsafeMutablePointer<UInt8>
    private static let compressedChunkSize = 256 * 1024
    private var inputEnded = false
    private var betweenMembers = false
    private var pendingError: String?
    /// Compressed bytes read from the file so far.
    private(set) var compressedBytesRead = 0

    /// Takes ownership of `fileDescriptor`, positioned at the start of the gzip data.
    init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
        compressed = .allocate(capacity: Self.compressedChunkSize)
        stream.initialize(to: z_stream())
        // windowBits 15 + 16: a gzip wrapper is required.
        if inflateInit2_(stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) != Z_OK {
            pendingError = "zlib cannot be initialised"
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
        compressed.deallocate()
        close(fileDescriptor)
    }

    /// Inflates up to `maximum` bytes into `destination`; returns how many, 0 at the clean end.
    /// Throws the inflate error's message once all data before the error has been returned.
    func read(into destination: UnsafeMutableRawPointer, maximum: Int) throws(GzipError) -> Int {
        if let pendingError { throw GzipError(message: pendingError) }
        stream.pointee.next_out = destination.assumingMemoryBound(to: UInt8.self)
        stream.pointee.avail_out = UInt32(clamping: maximum)
        while stream.pointee.avail_out > 0 && pendingError == nil {
            if stream.pointee.avail_in == 0 && !inputEnded { try readCompressed() }
            if stream.pointee.avail_in == 0 {
                if !betweenMembers { pendingError = "compressed data ends in the middle of a gzip member" }
                break
            }
            switch inflate(stream, Z_NO_FLUSH) {
            case Z_STREAM_END:
                betweenMembers = true
                inflateReset(stream)
            case Z_OK, Z_BUF_ERROR:
                betweenMembers = false
            default:
                pendingError = stream.pointee.msg.map { String(cString: $0) } ?? "corrupt compressed data"
            }
        }
        let produced = maximum - Int(stream.pointee.avail_out)
        if produced == 0, let pendingError { throw GzipError(message: pendingError) }
        return produced
    }

    private func readCompressed() throws(GzipError) {
        while true {
            let received = Glibc.read(fileDescriptor, compressed, Self.compressedChunkSize)
            if received < 0 && errno == EINTR { continue }
            guard received >= 0 else { throw GzipError(message: "read failed: \(String(cString: strerror(errno)))") }
            inputEnded = received == 0
            compressedBytesRead += received
            stream.pointee.next_in = compressed
            stream.pointee.avail_in = UInt32(received)
            return
        }
    }
}

/// Why gzip data could not be inflated.
struct GzipError: Error {
    var message: String
}

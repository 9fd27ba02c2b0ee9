import Glibc

/// Where a capture writer puts its bytes.
package enum CaptureDestination: Sendable {
    /// A file, created or truncated.
    case file(path: String)
    /// An in-memory array, read back through the writer's `bytes`.
    case memory
}

/// Collects a writer's output in a byte array, in one byte order, and flushes it to a file in
/// large chunks when writing to a file.
final class CaptureByteSink {
    private(set) var bytes: [UInt8] = []
    private let byteOrder: ByteOrder
    private let path: String?
    private var fileDescriptor: Int32 = -1
    private static let flushThreshold = 1 << 20

    init(destination: CaptureDestination, byteOrder: ByteOrder) throws(CaptureError) {
        self.byteOrder = byteOrder
        switch destination {
        case .memory:
            path = nil
        case let .file(path):
            self.path = path
            fileDescriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard fileDescriptor >= 0 else {
                throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
            }
        }
    }

    deinit { try? close() }

    func append(_ value: UInt8) { bytes.append(value) }
    func append(_ value: UInt16) { append(fixedWidth: byteOrder == .littleEndian ? value.littleEndian : value.bigEndian) }
    func append(_ value: UInt32) { append(fixedWidth: byteOrder == .littleEndian ? value.littleEndian : value.bigEndian) }
    func append(_ value: UInt64) { append(fixedWidth: byteOrder == .littleEndian ? value.littleEndian : value.bigEndian) }

    func append(_ data: UnsafeRawBufferPointer) { bytes.append(contentsOf: data) }
    func append(bytes data: some Collection<UInt8>) { bytes.append(contentsOf: data) }

    /// Appends the zero bytes that pad a field of `length` bytes to a multiple of 4.
    func padToFourBytes(_ length: Int) { bytes.append(contentsOf: repeatElement(0, count: (4 - length % 4) % 4)) }

    private func append<Value: FixedWidthInteger>(fixedWidth value: Value) {
        withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
    }

    /// Writes the collected bytes to the file once there are many of them.
    func flushIfLarge() throws(CaptureError) {
        if bytes.count >= Self.flushThreshold { try flush() }
    }

    /// Writes the collected bytes to the file (nothing for memory destinations).
    func flush() throws(CaptureError) {
        guard fileDescriptor >= 0, let path else { return }
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { write(fileDescriptor, $0.baseAddress.map { $0 + written }, $0.count - written) }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { throw .cannotOpen(path: path, reason: "write failed: \(String(cString: strerror(errno)))") }
            written += result
        }
        bytes.removeAll(keepingCapacity: true)
    }

    /// Flushes and closes the file; later calls do nothing.
    func close() throws(CaptureError) {
        guard fileDescriptor >= 0 else { return }
        defer {
            Glibc.close(fileDescriptor)
            fileDescriptor = -1
        }
        try flush()
    }
}

/// Why a capture could not be read (further). Each case has a message meant for people.
package enum CaptureError: Error, CustomStringConvertible, Equatable {
    /// The file could not be opened or read (`errno` text included).
    case cannotOpen(path: String, reason: String)
    /// The file's first bytes are not a pcap, pcapng or gzip magic number.
    case notACapture(path: String)
    /// The file ends in the middle of a header or packet record; `afterPackets` records were read.
    case truncated(path: String, afterPackets: Int, detail: String)
    /// A record's fields are impossible (length fields beyond limits, bad block structure...).
    case malformed(path: String, afterPackets: Int, detail: String)
    /// gzip data could not be inflated.
    case decompression(path: String, detail: String)
    /// A BPF filter expression did not compile for a link type of the capture.
    case badFilter(expression: String, reason: String)

    package var description: String {
        switch self {
        case let .cannotOpen(path, reason): return "\(path): cannot open: \(reason)"
        case let .notACapture(path): return "\(path): not a pcap, pcapng or gzip-compressed capture"
        case let .truncated(path, count, detail):
            return "\(path): file is truncated after \(count) complete packets (\(detail))"
        case let .malformed(path, count, detail):
            return "\(path): malformed capture after \(count) complete packets (\(detail))"
        case let .decompression(path, detail): return "\(path): gzip data is corrupt (\(detail))"
        case let .badFilter(expression, reason): return "filter \"\(expression)\": \(reason)"
        }
    }
}

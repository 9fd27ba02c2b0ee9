import Foundation
@testable import WireTally

/// Fixtures and helpers of the HTTP/3 and QPACK tests.
enum HTTP3Fixtures {
    static func json(_ name: String) throws -> [String: Any] {
        let url = TestPaths.root.appendingPathComponent("Tests/WireTallyTests/HTTP3/Fixtures/\(name)")
        return try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
    }

    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8.filter { $0 != UInt8(ascii: " ") })
        return stride(from: 0, to: digits.count - 1, by: 2).map { UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)! }
    }
}

/// Collects what an `HTTP3ConnectionParser` reports.
final class HTTP3Recorder: HTTP3ParserDelegate {
    var messages: [(stream: UInt64, direction: FlowDirection, message: HTTPMessage)] = []

    func http3MessageFinished(_ message: consuming HTTPMessage, stream: UInt64, direction: FlowDirection) {
        messages.append((stream, direction, message))
    }

    func message(_ stream: UInt64, _ direction: FlowDirection) -> HTTPMessage? {
        messages.first { $0.stream == stream && $0.direction == direction }?.message
    }

    /// A comparable digest of every message (for "same result whatever the split" checks).
    var digest: [String] {
        messages.map { entry in
            let m = entry.message
            return "\(entry.stream) \(entry.direction) \(m.exchangeIndex) \(m.method ?? "-") \(m.target ?? "-") \(m.status ?? 0) "
                + "\(m.bytes) \(m.headers) \(m.trailers) \(m.interimCount)/\(m.interimBytes) \(m.flags.rawValue) \(m.streamRange) "
                + "\(String(describing: m.http3)) \(m.decodedBodyBytes ?? -1)"
        }
    }
}

/// One piece of stream data to feed.
struct HTTP3Chunk {
    var stream: UInt64
    var fromClient: Bool
    var bytes: [UInt8]
    var fin: Bool
}

extension HTTP3ConnectionParser {
    /// Feeds `chunks` in order, each cut into pieces by `split` (sizes), tracking offsets per stream and direction.
    func feed(_ chunks: [HTTP3Chunk], split: (Int) -> [Int] = { [$0] }) {
        var offsets: [String: Int64] = [:]
        let origin = PacketOrigin(frameNumber: 1, timestamp: Timestamp(nanoseconds: 0))
        for chunk in chunks {
            let key = "\(chunk.stream)/\(chunk.fromClient)"
            var offset = offsets[key] ?? 0
            var start = 0
            let sizes = chunk.bytes.isEmpty ? [0] : split(chunk.bytes.count)
            for (index, size) in sizes.enumerated() {
                let piece = Array(chunk.bytes[start..<start + size])
                piece.withUnsafeBytes {
                    receive(stream: chunk.stream, fromClient: chunk.fromClient, offset: offset, bytes: $0,
                            fin: chunk.fin && index == sizes.count - 1, origin: origin)
                }
                start += size
                offset += Int64(size)
            }
            offsets[key] = offset
        }
    }
}

/// Splits of a count: single bytes, or random sizes from a seeded generator.
enum HTTP3Splits {
    static func bytes(_ count: Int) -> [Int] { Array(repeating: 1, count: count) }

    static func random(seed: UInt64) -> (Int) -> [Int] {
        var state = seed
        return { count in
            var sizes: [Int] = []
            var left = count
            while left > 0 {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let size = min(left, Int(state >> 59) + 1)
                sizes.append(size)
                left -= size
            }
            return sizes
        }
    }
}

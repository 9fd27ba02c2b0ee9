import NIOCore
import NIOHPACK
import Testing

@testable import WireTally

/// Builds HTTP/2 frames by RFC 9113 §4.1 and §6 for the synthetic tests; header blocks come from
/// NIOHPACK's `HPACKEncoder` (one per direction: its dynamic table is the sender's).
struct HTTP2FrameWriter {
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    private var encoder = HPACKEncoder(allocator: ByteBufferAllocator())

    /// One frame: 24-bit length, type, flags, 31-bit stream id, payload.
    static func frame(_ type: UInt8, flags: UInt8 = 0, stream: UInt32, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count
        return [UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff), type, flags]
            + be32(stream & 0x7fff_ffff) + payload
    }

    static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

    /// An HPACK header block of `fields` (in order) from this side's encoder.
    mutating func block(_ fields: [(String, String)]) -> [UInt8] {
        var buffer = ByteBufferAllocator().buffer(capacity: 256)
        try! encoder.encode(headers: HPACKHeaders(fields), to: &buffer)
        return buffer.readBytes(length: buffer.readableBytes)!
    }

    /// HEADERS carrying `fragment` (a whole block unless `endHeaders` is false), optionally padded and
    /// with the PRIORITY fields.
    static func headers(stream: UInt32, _ fragment: [UInt8], endStream: Bool = false, endHeaders: Bool = true,
                        padding: Int? = nil, priority: Bool = false) -> [UInt8] {
        var flags: UInt8 = (endStream ? 0x1 : 0) | (endHeaders ? 0x4 : 0)
        var payload: [UInt8] = []
        if let padding {
            flags |= 0x8
            payload.append(UInt8(padding))
        }
        if priority {
            flags |= 0x20
            payload += be32(0) + [15]
        }
        payload += fragment + [UInt8](repeating: 0, count: padding ?? 0)
        return frame(1, flags: flags, stream: stream, payload)
    }

    /// HEADERS with the block of `fields`.
    mutating func headers(stream: UInt32, _ fields: [(String, String)], endStream: Bool = false, padding: Int? = nil,
                          priority: Bool = false) -> [UInt8] {
        Self.headers(stream: stream, block(fields), endStream: endStream, padding: padding, priority: priority)
    }

    static func data(stream: UInt32, _ bytes: [UInt8], endStream: Bool = false, padding: Int? = nil) -> [UInt8] {
        guard let padding else { return frame(0, flags: endStream ? 0x1 : 0, stream: stream, bytes) }
        return frame(0, flags: (endStream ? 0x1 : 0) | 0x8, stream: stream, [UInt8(padding)] + bytes + [UInt8](repeating: 0, count: padding))
    }

    static func continuation(stream: UInt32, _ fragment: [UInt8], endHeaders: Bool) -> [UInt8] {
        frame(9, flags: endHeaders ? 0x4 : 0, stream: stream, fragment)
    }

    mutating func pushPromise(stream: UInt32, promised: UInt32, _ fields: [(String, String)], padding: Int? = nil) -> [UInt8] {
        var payload: [UInt8] = []
        var flags: UInt8 = 0x4
        if let padding {
            flags |= 0x8
            payload.append(UInt8(padding))
        }
        payload += Self.be32(promised) + block(fields) + [UInt8](repeating: 0, count: padding ?? 0)
        return Self.frame(5, flags: flags, stream: stream, payload)
    }

    static func settings(_ parameters: [(UInt16, UInt32)] = [], ack: Bool = false) -> [UInt8] {
        frame(4, flags: ack ? 1 : 0, stream: 0, parameters.flatMap { [UInt8($0.0 >> 8), UInt8($0.0 & 0xff)] + be32($0.1) })
    }

    static func rst(stream: UInt32, code: UInt32) -> [UInt8] { frame(3, stream: stream, be32(code)) }
    static func goaway(last: UInt32, code: UInt32) -> [UInt8] { frame(7, stream: 0, be32(last) + be32(code)) }
    static func windowUpdate(stream: UInt32, _ increment: UInt32) -> [UInt8] { frame(8, stream: stream, be32(increment)) }
    static func ping(ack: Bool = false) -> [UInt8] { frame(6, flags: ack ? 1 : 0, stream: 0, [UInt8](repeating: 7, count: 8)) }
    static func priority(stream: UInt32, dependsOn: UInt32 = 0) -> [UInt8] { frame(2, stream: stream, be32(dependsOn) + [200]) }
}

/// Records what an `HTTP2ConnectionParser` reports and checks the owner runs as they come.
final class HTTP2Recorder: HTTP2ParserDelegate {
    struct Run: Equatable { var offset: Int64; var owner: HTTP2ByteOwner }
    var runs = DirectionPair<[Run]>([], [])
    var messages: [(message: HTTPMessage, direction: FlowDirection)] = []
    var framesAfterEnd: [HTTP2ControlFrameAfterEnd] = []
    var cancels: [(exchange: Int, at: Timestamp)] = []

    func http2Bytes(direction: FlowDirection, from offset: Int64, owner: HTTP2ByteOwner) {
        if let last = runs[direction.rawValue].last {
            #expect(offset > last.offset, "owner runs of \(direction) out of order: \(offset) after \(last.offset)")
            #expect(owner != last.owner || owner.isDecidedPerFrame, "owner \(owner) reported twice in a row")
        }
        runs[direction.rawValue].append(Run(offset: offset, owner: owner))
    }

    func http2MessageFinished(_ message: consuming HTTPMessage, direction: FlowDirection) {
        let message = copy message
        #expect(message.http2 != nil)
        messages.append((message, direction))
    }

    func http2ControlFrameAfterEnd(_ frame: HTTP2ControlFrameAfterEnd) {
        if let last = runs[frame.direction.rawValue].last {
            #expect(last.owner == .endedStream(frame.exchange) || last.owner == .cancelledStream(frame.exchange),
                    "a frame after the end reported as \(last.owner)")
        }
        framesAfterEnd.append(frame)
    }

    func http2StreamCancelled(exchange: Int, at time: Timestamp) { cancels.append((exchange, time)) }

    var requests: [HTTPMessage] { messages.map(\.message).filter { $0.kind == .request } }
    var responses: [HTTPMessage] { messages.map(\.message).filter { $0.kind == .response } }

    /// Bytes of `range` per owner, by the runs of `direction`.
    func bytesByOwner(_ direction: FlowDirection, in range: Range<Int64>) -> [HTTP2ByteOwner: Int64] {
        var result: [HTTP2ByteOwner: Int64] = [:]
        let list = runs[direction.rawValue]
        for (index, run) in list.enumerated() {
            let end = index + 1 < list.count ? list[index + 1].offset : range.upperBound
            let lower = max(run.offset, range.lowerBound), upper = min(end, range.upperBound)
            if upper > lower { result[run.owner, default: 0] += upper - lower }
        }
        return result
    }

    /// The owner of the byte at `offset`.
    func owner(_ direction: FlowDirection, at offset: Int64) -> HTTP2ByteOwner? {
        runs[direction.rawValue].last { $0.offset <= offset }?.owner
    }

    /// Everything about the messages except packet origins, in order, for comparing runs.
    var summary: [String] {
        messages.map { entry in
            let m = entry.message
            return "\(entry.direction) \(m.kind) #\(m.exchangeIndex) \(m.streamRange) \(m.method ?? "-") \(m.target ?? "-") "
                + "\(m.status.map(String.init) ?? "-") \(m.headers.map { "\($0.name)=\($0.value)" }) \(m.trailers.count) "
                + "\(m.bytes) \(m.interimCount)/\(m.interimBytes) \(m.contentEncoding ?? "-") \(m.decodedBodyBytes ?? -1) "
                + "\(m.flags.rawValue) \(m.http2.map { "\($0)" } ?? "-")"
        }
    }
}

/// One direction's input to a parser: data at offsets, or gaps.
enum HTTP2Input {
    case data([UInt8], FlowDirection)
    case gap(Int, FlowDirection)
}

/// Drives a parser and keeps what was fed, to check the invariants.
final class HTTP2Harness {
    let recorder = HTTP2Recorder()
    let parser: HTTP2ConnectionParser
    /// Per direction: first offset fed and the next offset.
    var fed = DirectionPair<Range<Int64>?>(nil, nil)
    var packet = 0

    init(limits: HTTPLimits = HTTPLimits(), upgradedStream: HTTP2UpgradedStream? = nil, start: DirectionPair<Int64> = DirectionPair(0, 0)) {
        parser = HTTP2ConnectionParser(limits: limits, delegate: recorder, upgradedStream: upgradedStream)
        fed = DirectionPair(start.up..<start.up, start.down..<start.down)
    }

    /// Feeds `bytes` to `direction`, cut into pieces of the sizes `chunks` gives (whole when nil).
    func feed(_ bytes: [UInt8], _ direction: FlowDirection, chunks: ((Int) -> Int)? = nil) {
        var offset = 0
        while offset < bytes.count {
            let size = max(1, min(chunks?(bytes.count - offset) ?? bytes.count, bytes.count - offset))
            let position = fed[direction.rawValue]!.upperBound
            packet += 1
            let origin = PacketOrigin(frameNumber: packet, timestamp: Timestamp(nanoseconds: Int64(packet)))
            bytes[offset..<(offset + size)].withUnsafeBytes {
                parser.streamData($0, offset: position, direction: direction, origin: origin)
            }
            fed[direction.rawValue] = fed[direction.rawValue]!.lowerBound..<(position + Int64(size))
            offset += size
        }
    }

    func gap(_ length: Int, _ direction: FlowDirection) {
        let position = fed[direction.rawValue]!.upperBound
        parser.streamGap(offset: position, length: Int64(length), direction: direction, reason: .missing)
        fed[direction.rawValue] = fed[direction.rawValue]!.lowerBound..<(position + Int64(length))
    }

    func run(_ inputs: [HTTP2Input], chunks: ((Int) -> Int)? = nil, finish: Bool = true) {
        for input in inputs {
            switch input {
            case let .data(bytes, direction): feed(bytes, direction, chunks: chunks)
            case let .gap(length, direction): gap(length, direction)
            }
        }
        if finish { parser.finish() }
    }

    /// The invariants every run must keep: the first run starts at the first byte fed; every exchange's
    /// bytes by the runs equal its messages' totals (interim included) in that direction; the frame
    /// totals, preface and unparsed bytes add up to everything fed.
    func checkInvariants(sourceLocation: SourceLocation = #_sourceLocation) {
        for direction in FlowDirection.allCases {
            guard let range = fed[direction.rawValue], !range.isEmpty else { continue }
            #expect(recorder.runs[direction.rawValue].first?.offset == range.lowerBound,
                    "\(direction): the first run does not start at the first byte fed", sourceLocation: sourceLocation)
            let owned = recorder.bytesByOwner(direction, in: range)
            var counted: [Int: Int64] = [:]
            for (message, messageDirection) in recorder.messages where messageDirection == direction {
                counted[message.exchangeIndex, default: 0] += Int64(message.bytes.total + message.interimBytes)
            }
            for (owner, bytes) in owned {
                if case let .exchange(index) = owner {
                    #expect(counted[index] == bytes, "\(direction) exchange \(index): runs \(bytes) vs messages \(counted[index] ?? 0)",
                            sourceLocation: sourceLocation)
                }
            }
            for (index, bytes) in counted where owned[.exchange(index)] == nil {
                #expect(bytes == 0, "\(direction) exchange \(index): messages count \(bytes) bytes no run owns", sourceLocation: sourceLocation)
            }
            let totals = parser.frameTotals[direction.rawValue]
            let unparsed = parser.connectionInfo.unparsedBytes[direction.rawValue]
            #expect(totals.all.bytes + Int64(totals.prefaceBytes) + unparsed == Int64(range.count),
                    "\(direction): frames \(totals.all.bytes) + preface \(totals.prefaceBytes) + unparsed \(unparsed) ≠ \(range.count) fed",
                    sourceLocation: sourceLocation)
            #expect(Int64(owned[.unparsed] ?? 0) == unparsed, "\(direction): unparsed runs vs count", sourceLocation: sourceLocation)
            // frames on a stream already over: their runs are the frames reported once read
            var afterEnd: [Int: Int64] = [:]
            for frame in recorder.framesAfterEnd where frame.direction == direction { afterEnd[frame.exchange, default: 0] += Int64(frame.bytes) }
            for (owner, bytes) in owned {
                if case let .endedStream(index) = owner {
                    // (a frame cut by the end of the input is not reported)
                    #expect(afterEnd[index, default: 0] <= bytes, "\(direction) exchange \(index): runs after the end \(bytes) vs frames \(afterEnd[index] ?? 0)",
                            sourceLocation: sourceLocation)
                }
            }
        }
    }
}

extension Array where Element == UInt8 {
    /// `count` bytes of `byte`.
    static func filled(_ byte: UInt8, _ count: Int) -> [UInt8] { [UInt8](repeating: byte, count: count) }
}

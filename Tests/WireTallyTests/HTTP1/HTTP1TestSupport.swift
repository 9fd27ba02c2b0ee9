import CZlib
import CZstd
import Testing

@testable import WireTally

/// Records what an `HTTP1ConnectionParser` reports, and checks the byte-accounting invariants of each
/// finished message as it arrives.
final class RecordingHTTPDelegate: HTTPParserDelegate {
    enum Event: Equatable, CustomStringConvertible {
        case started(FlowDirection, Int64, Int)
        case finished(FlowDirection, String)
        case unparsed(FlowDirection, Int64)
        case upgraded(FlowDirection, Int64, Int)

        var description: String {
            switch self {
            case let .started(d, o, i): return "started(\(d), \(o), #\(i))"
            case let .finished(d, m): return "finished(\(d), \(m))"
            case let .unparsed(d, o): return "unparsed(\(d), \(o))"
            case let .upgraded(d, o, i): return "upgraded(\(d), \(o), #\(i))"
            }
        }
    }

    var events: [Event] = []
    var messages: [HTTPMessage] = []
    var requests: [HTTPMessage] { messages.filter { $0.kind == .request } }
    var responses: [HTTPMessage] { messages.filter { $0.kind == .response } }
    /// Messages started and not finished yet, per direction (to check each finishes exactly once).
    private var open: [FlowDirection: Int] = [:]

    func httpMessageStarted(direction: FlowDirection, offset: Int64, exchangeIndex: Int) {
        events.append(.started(direction, offset, exchangeIndex))
        open[direction, default: 0] += 1
        #expect(open[direction] == 1, "a message started before the previous one finished")
    }

    func httpMessageFinished(_ message: HTTPMessage, direction: FlowDirection) {
        events.append(.finished(direction, Self.summary(message)))
        messages.append(message)
        open[direction, default: 0] -= 1
        #expect(open[direction] == 0, "a message finished without being started")
        let length = message.streamRange.upperBound - message.streamRange.lowerBound
        #expect(Int64(message.bytes.total + message.interimBytes) == length, "bytes do not add up to the range")
    }

    func httpUnparsed(direction: FlowDirection, from offset: Int64) {
        events.append(.unparsed(direction, offset))
    }

    func httpUpgraded(direction: FlowDirection, from offset: Int64, exchangeIndex: Int) {
        events.append(.upgraded(direction, offset, exchangeIndex))
    }

    /// Everything about a message except the packet origins (which depend on segmentation).
    static func summary(_ m: HTTPMessage) -> String {
        let b = m.bytes
        let fields: [String] = [
            "\(m.kind)", "#\(m.exchangeIndex)", "\(m.streamRange)", m.method ?? "-", m.target ?? "-",
            m.status.map(String.init) ?? "-", m.reason ?? "-", m.version,
            m.headers.map { "\($0.name)=\($0.value)" }.joined(separator: "|"),
            m.trailers.map { "\($0.name)=\($0.value)" }.joined(separator: "|"),
            "s\(b.startLine) h\(b.headers) b\(b.body) f\(b.framing)", "i\(m.interimCount)/\(m.interimBytes)",
            m.contentEncoding ?? "-", m.decodedBodyBytes.map(String.init) ?? "-", "flags \(m.flags.rawValue)",
        ]
        return fields.joined(separator: " ")
    }
}

/// Feeds a parser a scripted connection: data pieces, gaps and ends per direction, with stream offsets
/// tracked and each piece given a new frame number.
final class HTTP1Script {
    enum Step {
        case up([UInt8])
        case down([UInt8])
        case gap(FlowDirection, Int64, StreamGapReason = .missing)
        case end(FlowDirection)
    }

    let delegate = RecordingHTTPDelegate()
    let parser: HTTP1ConnectionParser
    private(set) var offsets: [FlowDirection: Int64] = [.up: 0, .down: 0]
    private(set) var frame = 0

    init(limits: HTTPLimits = HTTPLimits()) {
        parser = HTTP1ConnectionParser(limits: limits, delegate: delegate)
    }

    static func origin(_ frame: Int) -> PacketOrigin {
        PacketOrigin(frameNumber: frame, timestamp: Timestamp(nanoseconds: Int64(frame) * 1_000_000))
    }

    func send(_ direction: FlowDirection, _ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        frame += 1
        let offset = offsets[direction]!
        bytes.withUnsafeBytes {
            parser.streamData($0, offset: offset, direction: direction, origin: Self.origin(frame))
        }
        offsets[direction] = offset + Int64(bytes.count)
    }

    func run(_ steps: [Step], finish: Bool = true) {
        for step in steps {
            switch step {
            case let .up(bytes): send(.up, bytes)
            case let .down(bytes): send(.down, bytes)
            case let .gap(direction, length, reason):
                parser.streamGap(offset: offsets[direction]!, length: length, direction: direction, reason: reason)
                offsets[direction]! += length
            case let .end(direction): parser.streamEnded(direction: direction)
            }
        }
        if finish { parser.finish() }
    }

    /// Runs `steps` and returns the recorder.
    static func run(_ steps: [Step], limits: HTTPLimits = HTTPLimits()) -> RecordingHTTPDelegate {
        let script = HTTP1Script(limits: limits)
        script.run(steps)
        return script.delegate
    }

    /// Runs both directions whole, then each cut at every position and both fed byte by byte, and
    /// expects the same events every time; returns the whole run's recorder.
    static func expectSameEventsAtEveryCut(
        up: [UInt8], down: [UInt8], limits: HTTPLimits = HTTPLimits(), sourceLocation: SourceLocation = #_sourceLocation
    ) -> RecordingHTTPDelegate {
        let reference = run([.up(up), .down(down)], limits: limits)
        for cut in 1..<max(1, up.count) {
            let r = run(pieces(up, cuts: [cut]).map { Step.up($0) } + [.down(down)], limits: limits)
            #expect(r.events == reference.events, "up cut at \(cut)", sourceLocation: sourceLocation)
        }
        for cut in 1..<max(1, down.count) {
            let r = run([.up(up)] + pieces(down, cuts: [cut]).map { Step.down($0) }, limits: limits)
            #expect(r.events == reference.events, "down cut at \(cut)", sourceLocation: sourceLocation)
        }
        let byteByByte = run(up.map { Step.up([$0]) } + down.map { Step.down([$0]) }, limits: limits)
        #expect(byteByByte.events == reference.events, "byte by byte", sourceLocation: sourceLocation)
        return reference
    }

    /// Feeds one direction's bytes cut at the given positions.
    static func pieces(_ bytes: [UInt8], cuts: [Int]) -> [[UInt8]] {
        var result: [[UInt8]] = []
        var start = 0
        for cut in cuts.sorted() where cut > start && cut < bytes.count {
            result.append(Array(bytes[start..<cut]))
            start = cut
        }
        result.append(Array(bytes[start...]))
        return result
    }
}

func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

/// Compresses with zlib's deflate in one of its three wrappers.
enum Compression {
    enum Wrapper { case gzip, zlib, raw }

    static func compress(_ input: [UInt8], _ wrapper: Wrapper, level: Int32 = 6) -> [UInt8] {
        var stream = z_stream()
        let windowBits: Int32 = wrapper == .gzip ? 15 + 16 : wrapper == .zlib ? 15 : -15
        precondition(
            deflateInit2_(&stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
                          Int32(MemoryLayout<z_stream>.size)) == Z_OK)
        defer { deflateEnd(&stream) }
        var output: [UInt8] = []
        var scratch = [UInt8](repeating: 0, count: 1 << 16)
        var source = input
        source.withUnsafeMutableBufferPointer { inBuffer in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = UInt32(inBuffer.count)
            var status: Int32 = Z_OK
            repeat {
                scratch.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(out.count)
                    status = deflate(&stream, Z_FINISH)
                    output.append(contentsOf: out[0..<(out.count - Int(stream.avail_out))])
                }
            } while status == Z_OK || status == Z_BUF_ERROR
            precondition(status == Z_STREAM_END)
        }
        return output
    }
}

extension Compression {
    /// A br stream of `input` (libbrotlienc at the `rebuilt` estimator's quality 6).
    static func brotli(_ input: [UInt8]) -> [UInt8] { Brotli.compress(input)! }

    /// A zstd frame of `input` (libzstd at `level`, content size in the header), with a window of
    /// 2^`windowLog` bytes when given.
    static func zstd(_ input: [UInt8], level: Int32 = 3, windowLog: Int32? = nil) -> [UInt8] {
        let context = ZSTD_createCCtx()!
        defer { ZSTD_freeCCtx(context) }
        precondition(ZSTD_isError(ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, level)) == 0)
        if let windowLog { precondition(ZSTD_isError(ZSTD_CCtx_setParameter(context, ZSTD_c_windowLog, windowLog)) == 0) }
        var output = [UInt8](repeating: 0, count: ZSTD_compressBound(input.count))
        let size = output.withUnsafeMutableBytes { out in
            input.withUnsafeBytes { ZSTD_compress2(context, out.baseAddress, out.count, $0.baseAddress, $0.count) }
        }
        precondition(ZSTD_isError(size) == 0)
        return Array(output.prefix(size))
    }
}

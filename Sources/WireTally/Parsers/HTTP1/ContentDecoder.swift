import CZlib

/// Streams a body through its content codings (`Content-Encoding`) only to count the decoded bytes.
///
/// The output is never kept: each coding stage inflates into a fixed scratch buffer whose contents go
/// to the next stage (codings are undone in reverse order of `Content-Encoding`), and the last stage
/// only counts. gzip, x-gzip and deflate are decoded; the wrapper of each stage is sniffed from its
/// first two bytes (gzip magic, zlib header, else raw deflate — servers often send raw deflate as
/// `deflate`). Decoding stops (a bomb) when the decoded size passes `maxDecodedBodyBytes`, or the
/// decoded/encoded ratio passes `maxDecodingRatio` once more than 1 MiB is decoded.
final class ContentDecoder {
    /// Codings wiretally decodes, lowercased as they appear in `Content-Encoding`.
    static func isDecodable(_ coding: String) -> Bool { coding == "gzip" || coding == "x-gzip" || coding == "deflate" }

    /// More stacked codings than this are not decoded (the body is flagged undecodable): servers send
    /// one, and each stage costs a zlib stream, a 32 KiB buffer and a level of recursion, which a
    /// header listing thousands of codings would otherwise multiply.
    static let maximumCodings = 4

    /// True when `contentEncoding` holds no coding other than `identity` (the body is not encoded).
    static func isIdentity(_ contentEncoding: String) -> Bool {
        contentEncoding.split(separator: ",").allSatisfy {
            let coding = $0.trimmingHTTPWhitespace().lowercased()
            return coding.isEmpty || coding == "identity"
        }
    }

    /// Body retention: how many decoded bytes to keep (0: none), and the decoded body's first bytes.
    var retainLimit = 0
    private(set) var retained: [UInt8] = []

    private let stages: [Inflater]
    private let scratch: UnsafeMutablePointer<UInt8>
    private static let scratchSize = 32 << 10
    private let maxDecoded: Int
    private let maxRatio: Int
    private static let ratioFloor = 1 << 20

    /// Decoded bytes counted so far.
    private(set) var decodedBytes = 0
    private(set) var unsupported = false
    private(set) var corrupt = false
    private(set) var bomb = false
    private(set) var sawGap = false

    /// nil when `contentEncoding` holds no coding other than `identity`.
    init?(contentEncoding: String, limits: HTTPLimits) {
        let codings = contentEncoding.split(separator: ",")
            .map { $0.trimmingHTTPWhitespace().lowercased() }
            .filter { !$0.isEmpty && $0 != "identity" }
        guard !codings.isEmpty else { return nil }
        unsupported = codings.count > Self.maximumCodings || codings.contains { !Self.isDecodable($0) }
        stages = unsupported ? [] : codings.reversed().map { Inflater(gzipMembers: $0 != "deflate") }
        scratch = .allocate(capacity: Self.scratchSize * max(stages.count, 1))
        maxDecoded = limits.maxDecodedBodyBytes
        maxRatio = limits.maxDecodingRatio
    }

    deinit { scratch.deallocate() }

    private var isStopped: Bool { unsupported || corrupt || bomb || sawGap }

    /// Feeds encoded body bytes (as sent, de-chunked).
    func feed(_ data: UnsafeRawBufferPointer) {
        guard !isStopped, !data.isEmpty else { return }
        _ = feed(stage: 0, data)
    }

    /// Part of the body was never captured: the rest cannot be decoded.
    func noteGap() { sawGap = true }

    /// The decoded size to report and the flags to add once the body is over.
    func result(bodyBytes: Int) -> (decoded: Int?, flags: HTTPMessageFlags) {
        if unsupported { return (nil, bodyBytes > 0 ? .undecodable : []) }
        if corrupt || sawGap { return (nil, .undecodable) }
        if bomb { return (decodedBytes, .decompressionBomb) }
        return (decodedBytes, [])
    }

    private func feed(stage: Int, _ data: UnsafeRawBufferPointer) -> Bool {
        if stage == stages.count {
            if retained.count < retainLimit { retained.append(contentsOf: data.prefix(retainLimit - retained.count)) }
            return count(data.count)
        }
        let inflater = stages[stage]
        let keepGoing = inflater.feed(data, scratch: scratch + stage * Self.scratchSize, size: Self.scratchSize) {
            self.feed(stage: stage + 1, $0)
        }
        if inflater.failed { corrupt = true }
        return keepGoing && !inflater.failed
    }

    private func count(_ produced: Int) -> Bool {
        decodedBytes += produced
        let encoded = stages.first?.consumed ?? 0
        if decodedBytes > maxDecoded
            || (decodedBytes > Self.ratioFloor && decodedBytes / max(encoded, 1) > maxRatio)
        {
            bomb = true
            return false
        }
        return true
    }
}

/// One zlib inflate stream whose wrapper (gzip, zlib or none) is chosen from its first two bytes.
private final class Inflater {
    private enum Phase { case sniffing, inflating, done }
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private var initialised = false
    private var phase = Phase.sniffing
    private var head: (UInt8, UInt8) = (0, 0)
    private var headCount = 0
    /// gzip allows several members back to back.
    private let gzipMembers: Bool
    private var isGzip = false
    /// Input bytes consumed (sniffed bytes included).
    private(set) var consumed = 0
    private(set) var failed = false

    init(gzipMembers: Bool) {
        self.gzipMembers = gzipMembers
        stream.initialize(to: z_stream())
    }

    deinit {
        if initialised { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Inflates `input`, handing each produced piece to `sink` (false: stop). Returns false when stopped
    /// by the sink or on corrupt data.
    func feed(
        _ input: UnsafeRawBufferPointer, scratch: UnsafeMutablePointer<UInt8>, size: Int,
        sink: (UnsafeRawBufferPointer) -> Bool
    ) -> Bool {
        guard var base = input.baseAddress else { return true }
        var remaining = input.count
        while remaining > 0 && !failed {
            switch phase {
            case .done:
                consumed += remaining
                return true
            case .sniffing:
                if headCount == 0 { head.0 = base.load(as: UInt8.self) } else { head.1 = base.load(as: UInt8.self) }
                headCount += 1
                base += 1
                remaining -= 1
                consumed += 1
                guard headCount == 2 else { continue }
                guard start() else { continue }
                var bytes = head
                let keepGoing = withUnsafeBytes(of: &bytes) { run($0.baseAddress!, 2, scratch, size, sink, counted: true) }
                if !keepGoing.goOn { return false }
            case .inflating:
                let step = run(base, remaining, scratch, size, sink, counted: false)
                base += step.used
                remaining -= step.used
                if !step.goOn { return false }
            }
        }
        return !failed
    }

    /// Chooses the wrapper from the two sniffed bytes and (re)starts the stream; false when the stream
    /// is over (a gzip stream followed by something other than another member).
    private func start() -> Bool {
        let isGzipMagic = head.0 == 0x1f && head.1 == 0x8b
        if initialised {
            // After a gzip member: only another member continues the stream; anything else is ignored.
            guard isGzip && isGzipMagic else {
                phase = .done
                return false
            }
            inflateReset(stream)
            phase = .inflating
            return true
        }
        let isZlib = head.0 & 0x0f == 8 && (Int(head.0) << 8 | Int(head.1)) % 31 == 0
        isGzip = isGzipMagic
        let windowBits: Int32 = isGzipMagic ? 15 + 16 : isZlib ? 15 : -15
        guard inflateInit2_(stream, windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            failed = true
            return false
        }
        initialised = true
        phase = .inflating
        return true
    }

    /// Inflates from `input`; returns the input bytes used and whether to go on.
    private func run(
        _ input: UnsafeRawPointer, _ length: Int, _ scratch: UnsafeMutablePointer<UInt8>, _ size: Int,
        _ sink: (UnsafeRawBufferPointer) -> Bool, counted: Bool
    ) -> (used: Int, goOn: Bool) {
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.assumingMemoryBound(to: UInt8.self))
        stream.pointee.avail_in = UInt32(clamping: length)
        let offered = Int(stream.pointee.avail_in)
        var usedBefore = 0
        while true {
            stream.pointee.next_out = scratch
            stream.pointee.avail_out = UInt32(size)
            let status = inflate(stream, Z_NO_FLUSH)
            let used = offered - Int(stream.pointee.avail_in)
            if !counted { consumed += used - usedBefore }
            usedBefore = used
            let produced = size - Int(stream.pointee.avail_out)
            if produced > 0 && !sink(UnsafeRawBufferPointer(start: scratch, count: produced)) {
                return (used, false)
            }
            switch status {
            case Z_STREAM_END:
                if gzipMembers && isGzip {
                    phase = .sniffing
                    headCount = 0
                } else {
                    phase = .done
                }
                return (used, true)
            case Z_OK:
                if stream.pointee.avail_in == 0 && produced < size { return (used, true) }
            case Z_BUF_ERROR:
                if stream.pointee.avail_in == 0 || produced == 0 { return (used, true) }
            default:
                failed = true
                return (used, false)
            }
        }
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    func trimmingHTTPWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}

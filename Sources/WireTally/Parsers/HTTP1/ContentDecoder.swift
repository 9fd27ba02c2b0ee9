/// Streams a body through its content codings (`Content-Encoding`) only to count the decoded bytes.
///
/// The output is never kept: each coding stage decodes into a fixed scratch buffer whose contents go
/// to the next stage (codings are undone in reverse order of `Content-Encoding`), and the last stage
/// only counts. gzip, x-gzip, deflate, br and zstd are decoded (`ContentCoding`); a deflate stage
/// sniffs its wrapper from its first two bytes (gzip magic, zlib header, else raw deflate — servers
/// often send raw deflate as `deflate`). Decoding stops (a bomb) when the decoded size — the output of
/// the last stage, whatever the stack — passes `maxDecodedBodyBytes`, or the decoded/encoded ratio
/// (against the body as sent) passes `maxDecodingRatio` once more than 1 MiB is decoded.
///
/// With the analysis's `HTTPLimits.bodyReencoder` (`compare`), a body is decoded once per distinct
/// encoded body: the encoded bytes are held until the body ends (up to `BodyBytesCache.largestBody`,
/// past it they are decoded and the rest streams as above) and a body seen before takes its decoded
/// bytes from the re-encoder's cache. Only results that cannot depend on how the body was cut into
/// pieces are remembered (whole body decoded without error or cap, at most 1 MiB decoded: the ratio
/// test never ran); a body decoded now is fed to the stages in the pieces it came in.
final class ContentDecoder {
    /// More stacked codings than this are not decoded (the body is flagged undecodable): servers send
    /// one, and each stage costs a decoder state, a 32 KiB buffer and a level of recursion, which a
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

    private let stages: [any ContentDecodingStage]
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

    /// Holding: the encoded body so far, where each fed piece ended, and its codings (cache key).
    private let bodies: BodyReencoder?
    private let codings: [ContentCoding]
    private var holding: Bool
    private var held: [UInt8] = []
    private var heldEnds: [Int] = []

    /// nil when `contentEncoding` holds no coding other than `identity`.
    init?(contentEncoding: String, limits: HTTPLimits) {
        guard !Self.isIdentity(contentEncoding) else { return nil }
        let codings = ContentCoding.list(contentEncoding) ?? []
        unsupported = codings.isEmpty || codings.count > Self.maximumCodings
        stages = unsupported ? [] : codings.reversed().map { $0.decodingStage() }
        scratch = .allocate(capacity: Self.scratchSize * max(stages.count, 1))
        maxDecoded = limits.maxDecodedBodyBytes
        maxRatio = limits.maxDecodingRatio
        self.codings = codings
        bodies = unsupported ? nil : limits.bodyReencoder
        holding = bodies != nil
    }

    deinit { scratch.deallocate() }

    private var isStopped: Bool { unsupported || corrupt || bomb || sawGap }

    /// Feeds encoded body bytes (as sent, de-chunked).
    func feed(_ data: UnsafeRawBufferPointer) {
        guard !isStopped, !data.isEmpty else { return }
        if holding {
            if held.count + data.count <= BodyBytesCache<[UInt8]>.largestBody {
                held.append(contentsOf: data)
                heldEnds.append(held.count)
                return
            }
            holding = false
            decodeHeld()
            dropHeld()
            guard !isStopped else { return }
        }
        _ = feed(stage: 0, data)
    }

    /// Part of the body was never captured: the rest cannot be decoded.
    func noteGap() {
        sawGap = true
        // undecodable whatever came before: nothing held needs decoding
        holding = false
        dropHeld()
    }

    /// The decoded size to report and the flags to add once the body is over (once).
    func result(bodyBytes: Int) -> (decoded: Int?, flags: HTTPMessageFlags) {
        if holding { finishHeld() }
        if unsupported { return (nil, bodyBytes > 0 ? .undecodable : []) }
        if corrupt || sawGap { return (nil, .undecodable) }
        if bomb { return (decodedBytes, .decompressionBomb) }
        return (decodedBytes, [])
    }

    /// The held body ended: its decoded bytes from the cache, else decoded now (and remembered when
    /// the result does not depend on the pieces).
    private func finishHeld() {
        holding = false
        defer { dropHeld() }
        if let decoded = bodies!.decodedBody(of: held, codings) {
            decodedBytes = decoded.count
            retained = decoded.count <= retainLimit ? decoded : Array(decoded.prefix(retainLimit))
            return
        }
        decodeHeld()
        if !isStopped && decodedBytes <= Self.ratioFloor && retained.count == decodedBytes {
            bodies!.rememberDecodedBody(retained, of: held, codings)
        }
    }

    /// Lets go of the held body and its piece boundaries (decoded, or no longer to be decoded).
    private func dropHeld() {
        held = []
        heldEnds = []
    }

    /// Feeds the held body to the stages in the pieces it came in.
    private func decodeHeld() {
        var start = 0
        held.withUnsafeBytes { raw in
            for end in heldEnds {
                guard !isStopped else { return }
                _ = feed(stage: 0, UnsafeRawBufferPointer(rebasing: raw[start..<end]))
                start = end
            }
        }
    }

    private func feed(stage: Int, _ data: UnsafeRawBufferPointer) -> Bool {
        if stage == stages.count {
            if retained.count < retainLimit { retained.append(contentsOf: data.prefix(retainLimit - retained.count)) }
            return count(data.count)
        }
        let decoder = stages[stage]
        let keepGoing = decoder.feed(data, scratch: scratch + stage * Self.scratchSize, size: Self.scratchSize) {
            self.feed(stage: stage + 1, $0)
        }
        if decoder.failed { corrupt = true }
        return keepGoing && !decoder.failed
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

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    func trimmingHTTPWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}

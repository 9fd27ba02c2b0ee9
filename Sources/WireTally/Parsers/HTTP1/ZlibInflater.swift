import CZlib

/// One zlib inflate stream whose wrapper (gzip, zlib or none) is chosen from its first two bytes.
final class ZlibInflater: ContentDecodingStage {
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

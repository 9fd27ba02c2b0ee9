import CZstd

/// Undoes `Content-Encoding: zstd` with libzstd's streaming decoder: frames back to back (skippable
/// frames skipped), the window capped at 8 MiB (`ZSTD_d_windowLogMax` 23, RFC 9659), so no frame makes
/// it allocate more.
final class ZstdDecodingStage: ContentDecodingStage {
    /// log2 of the largest window accepted: 8 MiB.
    static let windowLogMax: Int32 = 23
    private let context: OpaquePointer?
    private(set) var consumed = 0
    private(set) var failed = false

    init() {
        context = ZSTD_createDCtx()
        if let context {
            failed = ZSTD_isError(ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, Self.windowLogMax)) != 0
        } else {
            failed = true
        }
    }

    deinit { if let context { ZSTD_freeDCtx(context) } }

    func feed(
        _ input: UnsafeRawBufferPointer, scratch: UnsafeMutablePointer<UInt8>, size: Int,
        sink: (UnsafeRawBufferPointer) -> Bool
    ) -> Bool {
        guard let start = input.baseAddress, !failed else { return !failed }
        var source = ZSTD_inBuffer(src: start, size: input.count, pos: 0)
        let consumedBefore = consumed
        while true {
            var destination = ZSTD_outBuffer(dst: scratch, size: size, pos: 0)
            let status = ZSTD_decompressStream(context, &destination, &source)
            consumed = consumedBefore + source.pos
            if ZSTD_isError(status) != 0 {
                failed = true
                return false
            }
            if destination.pos > 0 && !sink(UnsafeRawBufferPointer(start: scratch, count: destination.pos)) { return false }
            // Everything taken and the output not full: the decoder holds nothing more to flush.
            if source.pos == source.size && destination.pos < size { return true }
        }
    }
}

import CZstd

/// zstd compression as the `rebuilt` estimator re-encodes a `zstd` body: libzstd one-shot
/// (`ZSTD_compressCCtx`, one frame with its content size — what `ZSTD_compress` does with a context of
/// its own) at level 3, the library's default (`ZSTD_CLEVEL_DEFAULT`), which the zstd tool, python's
/// `zstandard` and servers encoding on the fly use unless told otherwise.
///
/// One instance keeps its compression context from body to body; it is used on one thread at a time.
package final class Zstd {
    /// The compression level used.
    package static let level: Int32 = 3
    private var context: OpaquePointer?

    package init() {}

    deinit { if let context { ZSTD_freeCCtx(context) } }

    /// The zstd frame for `input` (nil only if the encoder fails).
    package func compress(_ input: [UInt8]) -> [UInt8]? {
        if context == nil { context = ZSTD_createCCtx() }
        guard let context else { return nil }
        let bound = ZSTD_compressBound(input.count)
        guard ZSTD_isError(bound) == 0 else { return nil }
        var output = [UInt8](repeating: 0, count: bound)
        let size = input.withUnsafeBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                ZSTD_compressCCtx(context, outBuffer.baseAddress, outBuffer.count, inBuffer.baseAddress, inBuffer.count,
                                  Self.level)
            }
        }
        guard ZSTD_isError(size) == 0 else { return nil }
        return Array(output.prefix(size))
    }
}

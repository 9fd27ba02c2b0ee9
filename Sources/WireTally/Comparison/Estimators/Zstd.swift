import CZstd

/// zstd compression as the `rebuilt` estimator re-encodes a `zstd` body: libzstd one-shot
/// (`ZSTD_compress`, one frame with its content size) at level 3, the library's default
/// (`ZSTD_CLEVEL_DEFAULT`), which the zstd tool, python's `zstandard` and servers encoding on the fly
/// use unless told otherwise.
package enum Zstd {
    /// The compression level used.
    package static let level: Int32 = 3

    /// The zstd frame for `input` (nil only if the encoder fails).
    package static func compress(_ input: [UInt8]) -> [UInt8]? {
        let bound = ZSTD_compressBound(input.count)
        guard ZSTD_isError(bound) == 0 else { return nil }
        var output = [UInt8](repeating: 0, count: bound)
        let size = input.withUnsafeBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                ZSTD_compress(outBuffer.baseAddress, outBuffer.count, inBuffer.baseAddress, inBuffer.count, level)
            }
        }
        guard ZSTD_isError(size) == 0 else { return nil }
        return Array(output.prefix(size))
    }
}

import CBrotli

/// brotli compression as the `rebuilt` estimator re-encodes a `br` body: libbrotlienc one-shot, quality
/// 6, window 22 (4 MiB, the library's default), generic mode. Quality 6 is what servers use when they
/// encode responses as they send them (nginx's brotli module: `brotli_comp_level` 6; Go's
/// `DefaultCompression`); the library's default 11 is for files compressed once ahead of time and
/// runs at about 1 MB/s, too slow for every body of a capture. Python's `brotli.compress(data,
/// quality=6)` gives the same size.
package enum Brotli {
    /// The quality and window (log2) used.
    package static let quality: Int32 = 6
    package static let window: Int32 = 22

    /// The brotli stream for `input` (nil only if the encoder fails).
    package static func compress(_ input: [UInt8]) -> [UInt8]? {
        let bound = BrotliEncoderMaxCompressedSize(input.count)
        guard bound > 0 else { return nil }
        var output = [UInt8](repeating: 0, count: bound)
        var size = bound
        let ok = input.withUnsafeBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                BrotliEncoderCompress(quality, window, BROTLI_MODE_GENERIC, inBuffer.count, inBuffer.baseAddress,
                                      &size, outBuffer.baseAddress)
            }
        }
        guard ok != 0 else { return nil }
        return Array(output.prefix(size))
    }
}

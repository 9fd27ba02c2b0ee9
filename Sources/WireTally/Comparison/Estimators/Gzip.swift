import CZlib

/// gzip compression as a client re-compressing a body would do it: zlib `deflateInit2_` with
/// windowBits 31 (gzip wrapper), level `Z_DEFAULT_COMPRESSION` (6), memLevel 8, default strategy — the
/// same deflate stream as python's `gzip.compress(data, 6)`, so the same size.
///
/// One instance keeps its deflate stream (~260 KiB of zlib state) and output buffer from body to body
/// (`deflateReset` gives the same output as a new stream); it is used on one thread at a time.
package final class Gzip {
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private var initialised = false
    private var output: [UInt8] = []

    package init() { stream.initialize(to: z_stream()) }

    deinit {
        if initialised { deflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// The gzip member for `input` (nil only if zlib fails).
    package func compress(_ input: [UInt8]) -> [UInt8]? {
        if initialised {
            guard deflateReset(stream) == Z_OK else { return nil }
        } else {
            guard deflateInit2_(stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
                                Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
            initialised = true
        }
        let bound = Int(deflateBound(stream, UInt(input.count))) + 32
        if output.count < bound { output = [UInt8](repeating: 0, count: bound) }
        var status: Int32 = Z_OK
        var produced = 0
        input.withUnsafeBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.pointee.next_in = UnsafeMutablePointer(mutating: inBuffer.baseAddress)
                stream.pointee.avail_in = UInt32(inBuffer.count)
                stream.pointee.next_out = outBuffer.baseAddress
                stream.pointee.avail_out = UInt32(outBuffer.count)
                status = deflate(stream, Z_FINISH)
                produced = outBuffer.count - Int(stream.pointee.avail_out)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        return Array(output.prefix(produced))
    }

    /// The gzip member for `input` from a stream of its own (nil only if zlib fails).
    package static func compress(_ input: [UInt8]) -> [UInt8]? { Gzip().compress(input) }

    /// The size of `compress(input)`.
    package static func compressedSize(_ input: [UInt8]) -> Int? { compress(input)?.count }
}

import CZlib

/// gzip compression as a client re-compressing a body would do it: zlib `deflateInit2_` with
/// windowBits 31 (gzip wrapper), level `Z_DEFAULT_COMPRESSION` (6), memLevel 8, default strategy — the
/// same deflate stream as python's `gzip.compress(data, 6)`, so the same size.
package enum Gzip {
    /// The gzip member for `input` (nil only if zlib fails).
    package static func compress(_ input: [UInt8], level: Int32 = Z_DEFAULT_COMPRESSION) -> [UInt8]? {
        var stream = z_stream()
        guard deflateInit2_(&stream, level, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
                            Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, UInt(input.count))) + 32
        var output = [UInt8](repeating: 0, count: bound)
        var status: Int32 = Z_OK
        var produced = 0
        input.withUnsafeBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = UnsafeMutablePointer(mutating: inBuffer.baseAddress)
                stream.avail_in = UInt32(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = UInt32(outBuffer.count)
                status = deflate(&stream, Z_FINISH)
                produced = outBuffer.count - Int(stream.avail_out)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        return Array(output.prefix(produced))
    }

    /// The size of `compress(input)`.
    package static func compressedSize(_ input: [UInt8]) -> Int? { compress(input)?.count }
}

import CBrotli

/// Undoes `Content-Encoding: br` with libbrotlidec's streaming decoder. The decoder allocates its ring
/// buffer (at most the stream's window, 16 MiB) when the first meta-block needs it.
final class BrotliDecodingStage: ContentDecodingStage {
    private let state: OpaquePointer?
    private var done = false
    private(set) var consumed = 0
    private(set) var failed = false

    init() {
        state = BrotliDecoderCreateInstance(nil, nil, nil)
        failed = state == nil
    }

    deinit { if let state { BrotliDecoderDestroyInstance(state) } }

    func feed(
        _ input: UnsafeRawBufferPointer, scratch: UnsafeMutablePointer<UInt8>, size: Int,
        sink: (UnsafeRawBufferPointer) -> Bool
    ) -> Bool {
        guard let start = input.baseAddress, !failed else { return !failed }
        if done {
            consumed += input.count
            return true
        }
        var nextIn: UnsafePointer<UInt8>? = start.assumingMemoryBound(to: UInt8.self)
        var availableIn = input.count
        let consumedBefore = consumed
        while true {
            var nextOut: UnsafeMutablePointer<UInt8>? = scratch
            var availableOut = size
            let result = BrotliDecoderDecompressStream(state, &availableIn, &nextIn, &availableOut, &nextOut, nil)
            consumed = consumedBefore + input.count - availableIn
            let produced = size - availableOut
            if produced > 0 && !sink(UnsafeRawBufferPointer(start: scratch, count: produced)) { return false }
            switch result {
            case BROTLI_DECODER_RESULT_SUCCESS:
                done = true
                consumed += availableIn
                return true
            case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT:
                return true
            case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT:
                continue
            default:
                failed = true
                return false
            }
        }
    }
}

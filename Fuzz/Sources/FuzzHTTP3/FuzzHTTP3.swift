import FuzzDriver
@testable import WireTally

/// The stream ids a record can name (its op byte's low 4 bits): request streams (client-initiated
/// bidirectional), the client's and the server's control, QPACK encoder and decoder streams (in the
/// order aioquic opens them), an unknown unidirectional stream of each side, a server-initiated
/// bidirectional stream (not used by HTTP/3), and the largest client bidirectional id.
let streamIDs: [UInt64] = [0, 4, 8, 12, 2, 6, 10, 14, 3, 7, 11, 15, 1, 16, 20, (1 << 62) - 4]

/// Checks the parser's reports: each direction of a request stream is delivered once.
final class Delegate: HTTP3ParserDelegate {
    var delivered: Set<[UInt64]> = []
    func http3MessageFinished(_ message: consuming HTTPMessage, stream: UInt64, direction: FlowDirection) {
        precondition(stream & 3 == 0 && message.exchangeIndex >= 0)
        precondition(delivered.insert([stream, direction == .up ? 0 : 1]).inserted, "stream \(stream) delivered twice")
    }
}

/// Layout: byte 0 = limits (bits 0–1: body retention ×16 bytes; bit 2: header limit 512 bytes, else
/// 16 KiB; bit 3: at most 2 open request streams; bit 4: no content decoding); byte 1 = seed of the
/// piece sizes (0: every record whole, else cut into pieces of 1–16 bytes); then records of
/// `op`, `arg`, data. `op`: bits 0–3 the stream (`streamIDs`), bit 4 the other sender than the
/// stream's own (client for 0b00 and 0b10 ids, server for 0b01 and 0b11), bits 5–7 the kind:
/// 0–3 data of `arg` bytes, 4 the same ending the stream (FIN), 5 a gap of `arg` bytes, 6
/// RESET_STREAM (error 0x100 + `arg`, final size the offset + `arg` − 16, `arg` 255: 2^64 − 1),
/// 7 STOP_SENDING (error 0x100 + `arg`). Offsets are kept per stream and direction (data and gaps
/// are contiguous, as the QUIC reassembler delivers them); `finish()` at the end.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 2 else { return 0 }
    var limits = HTTPLimits()
    limits.retainedBodyBytes = Int(data[0] & 0x3) * 16
    limits.maxHeaderBytes = data[0] & 0x4 != 0 ? 512 : 16 << 10
    if data[0] & 0x8 != 0 { limits.maxOpenRequests = 2 }
    limits.decodeBodies = data[0] & 0x10 == 0
    var state = UInt32(data[1]) &* 2_654_435_761 | 1
    func next() -> UInt32 {
        state ^= state << 13; state ^= state >> 17; state ^= state << 5
        return state
    }
    let delegate = Delegate()
    let parser = HTTP3ConnectionParser(limits: limits, delegate: delegate)
    var offsets: [[UInt64]: Int64] = [:]
    var position = 2
    var frame = 0
    while position + 2 <= size {
        let op = data[position], arg = Int(data[position + 1])
        position += 2
        let stream = streamIDs[Int(op & 0xF)]
        let ownSenderIsClient = stream & 0x1 == 0
        let fromClient = ownSenderIsClient != (op & 0x10 != 0)
        let key = [stream, fromClient ? 1 : 0]
        let offset = offsets[key, default: 0]
        switch op >> 5 {
        case 0...4:
            let count = min(arg, size - position)
            let fin = op >> 5 == 4
            var done = 0
            repeat {
                let piece = data[1] == 0 ? count - done : min(Int(next() & 15) + 1, count - done)
                frame += 1
                let origin = PacketOrigin(frameNumber: frame, timestamp: Timestamp(nanoseconds: Int64(frame) * 1000))
                // An exact-size copy, so that AddressSanitizer sees any read past the piece.
                let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: piece, alignment: 1)
                defer { copy.deallocate() }
                copy.copyMemory(from: UnsafeRawBufferPointer(start: data + position + done, count: piece))
                parser.receive(stream: stream, fromClient: fromClient, offset: offset + Int64(done), bytes: UnsafeRawBufferPointer(copy),
                               fin: fin && done + piece == count, origin: origin)
                done += piece
            } while done < count
            offsets[key] = offset + Int64(count)
            position += count
        case 5:
            parser.gap(stream: stream, fromClient: fromClient, offset: offset, length: Int64(arg))
            offsets[key] = offset + Int64(arg)
        case 6:
            let finalSize = arg == 255 ? UInt64.max : UInt64(max(0, offset + Int64(arg) - 16))
            parser.reset(stream: stream, fromClient: fromClient, errorCode: 0x100 + UInt64(arg), finalSize: finalSize)
        default:
            parser.stopSending(stream: stream, fromClient: fromClient, errorCode: 0x100 + UInt64(arg))
        }
    }
    parser.finish()
    return 0
}

@_cdecl("FuzzHTTP3_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

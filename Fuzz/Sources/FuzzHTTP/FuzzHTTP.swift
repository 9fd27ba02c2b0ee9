import FuzzDriver
@testable import WireTally

/// Checks the parser's calls for sanity: offsets never go backwards per direction.
final class Delegate: HTTPParserDelegate {
    var messages = 0
    func httpMessageStarted(direction: FlowDirection, offset: Int64, exchangeIndex: Int) {
        precondition(offset >= 0 && exchangeIndex >= 0)
    }
    func httpMessageFinished(_ message: HTTPMessage, direction: FlowDirection) { messages += 1 }
    func httpUnparsed(direction: FlowDirection, from offset: Int64) { precondition(offset >= 0) }
    func httpUpgraded(direction: FlowDirection, from offset: Int64, exchangeIndex: Int) {
        precondition(offset >= 0 && exchangeIndex >= 0)
    }
}

/// Layout: byte 0 = share of the rest that goes up (x/255), byte 1 = seed of the piece sizes and of
/// the gaps, then the payload. The two streams are fed interleaved in pieces of 1...64 bytes;
/// about one piece in 32 becomes a gap of its length instead of data.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 2 else { return 0 }
    let payload = UnsafeBufferPointer(start: data + 2, count: size - 2)
    let upCount = payload.count * Int(data[0]) / 255
    var state = UInt32(data[1]) &* 2_654_435_761 | 1
    func next() -> UInt32 {
        state ^= state << 13; state ^= state >> 17; state ^= state << 5
        return state
    }
    let delegate = Delegate()
    var limits = HTTPLimits()
    limits.maxHeaderBytes = 4096
    limits.retainedBodyBytes = Int(data[1] & 0x3) * 16
    let parser = HTTP1ConnectionParser(limits: limits, delegate: delegate)
    let streams: [(FlowDirection, UnsafeBufferPointer<UInt8>)] = [
        (.up, UnsafeBufferPointer(rebasing: payload[0..<upCount])),
        (.down, UnsafeBufferPointer(rebasing: payload[upCount...])),
    ]
    var positions = [0, 0]
    var frame = 0
    while positions[0] < streams[0].1.count || positions[1] < streams[1].1.count {
        let r = next()
        var which = Int(r & 1)
        if positions[which] >= streams[which].1.count { which = 1 - which }
        let (direction, bytes) = streams[which]
        let piece = min(Int((r >> 1) & 63) + 1, bytes.count - positions[which])
        let offset = Int64(positions[which])
        if (r >> 8) & 31 == 0 {
            parser.streamGap(offset: offset, length: Int64(piece), direction: direction, reason: .missing)
        } else {
            frame += 1
            let origin = PacketOrigin(frameNumber: frame, timestamp: Timestamp(nanoseconds: Int64(frame) * 1000))
            // An exact-size copy, so that AddressSanitizer sees any read past the piece.
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: piece, alignment: 1)
            defer { copy.deallocate() }
            copy.copyMemory(from: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[positions[which]..<positions[which] + piece])))
            parser.streamData(UnsafeRawBufferPointer(copy), offset: offset, direction: direction, origin: origin)
        }
        positions[which] += piece
        if positions[which] == bytes.count, (r >> 13) & 1 == 0 { parser.streamEnded(direction: direction) }
    }
    parser.finish()
    return 0
}

@_cdecl("FuzzHTTP_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, fuzz)
}

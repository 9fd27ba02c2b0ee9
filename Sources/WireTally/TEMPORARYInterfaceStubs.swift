// TEMPORARY: the interfaces being built on branches quic-keys and http3; deleted at the merge.
struct QUICFrame: Equatable { let type: UInt64; let range: Range<Int>; let kind: QUICFrameKind }
enum QUICFrameKind: Equatable {
    case padding
    case ping
    case ack(largest: UInt64, ranges: [ClosedRange<UInt64>], ecn: Bool)
    case resetStream(streamID: UInt64, errorCode: UInt64, finalSize: UInt64)
    case stopSending(streamID: UInt64, errorCode: UInt64)
    case crypto(offset: UInt64, data: Range<Int>)
    case newToken
    case stream(streamID: UInt64, offset: UInt64, data: Range<Int>, fin: Bool)
    case maxData(UInt64)
    case maxStreamData(streamID: UInt64, maximum: UInt64)
    case maxStreams(bidirectional: Bool, maximum: UInt64)
    case dataBlocked(UInt64)
    case streamDataBlocked(streamID: UInt64, limit: UInt64)
    case streamsBlocked(bidirectional: Bool, limit: UInt64)
    case newConnectionID(sequence: UInt64, retirePriorTo: UInt64, connectionID: Range<Int>)
    case retireConnectionID(sequence: UInt64)
    case pathChallenge, pathResponse
    case connectionClose(errorCode: UInt64, frameType: UInt64?, reasonLength: Int)
    case handshakeDone
    case datagram(data: Range<Int>)
}
struct QUICPacketRecord {
    var space: QUICPacketSpace?
    var range: Range<Int>
    var headerLength: Int
    var tagLength: Int
    var packetNumber: UInt64?
    var keyPhase: Bool?
    var decrypted: Bool
    var plaintext: [UInt8]
    var frames: [QUICFrame]
}
protocol HTTP3ParserDelegate: AnyObject {
    func http3MessageFinished(_ message: consuming HTTPMessage, stream: UInt64, direction: FlowDirection)
}
struct HTTP3ConnectionInfo {}
final class HTTP3ConnectionParser {
    init(limits: HTTPLimits, delegate: HTTP3ParserDelegate) {}
    func receive(stream: UInt64, fromClient: Bool, offset: Int64, bytes: UnsafeRawBufferPointer, fin: Bool, origin: PacketOrigin) {}
    func gap(stream: UInt64, fromClient: Bool, offset: Int64, length: Int64) {}
    func reset(stream: UInt64, fromClient: Bool, errorCode: UInt64, finalSize: UInt64) {}
    func stopSending(stream: UInt64, fromClient: Bool, errorCode: UInt64) {}
    func finish() {}
    func exchangeIndex(ofStream: UInt64) -> Int? { nil }
    var info: HTTP3ConnectionInfo { HTTP3ConnectionInfo() }
}
extension QUICConnectionObserver { convenience init(keys: TLSKeyStore?) { self.init() } }

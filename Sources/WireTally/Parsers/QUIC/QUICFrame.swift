/// One frame of a decrypted QUIC packet: its type, its encoded bytes in the packet's plaintext, and what it says.
struct QUICFrame: Equatable, Sendable {
    let type: UInt64
    let range: Range<Int>
    let kind: QUICFrameKind
}

/// What a QUIC frame says (RFC 9000 §19, DATAGRAM RFC 9221). Ranges are offsets in the packet's plaintext.
enum QUICFrameKind: Equatable, Sendable {
    case padding  // range = all consecutive PADDING bytes
    case ping
    case ack(largest: UInt64, ranges: [ClosedRange<UInt64>], ecn: Bool)  // acknowledged packet numbers, largest range first
    case resetStream(streamID: UInt64, errorCode: UInt64, finalSize: UInt64)
    case stopSending(streamID: UInt64, errorCode: UInt64)
    case crypto(offset: UInt64, data: Range<Int>)  // data range in the plaintext
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
    case connectionClose(errorCode: UInt64, frameType: UInt64?, reasonLength: Int)  // frameType nil: application close (0x1d)
    case handshakeDone
    case datagram(data: Range<Int>)
}

/// Where and why a frame walk stopped before the end of the plaintext.
struct QUICFrameError: Equatable, Sendable, Error {
    /// Offset of the frame's first byte in the plaintext.
    let offset: Int
    /// The frame's type; nil when not even the type could be read.
    let type: UInt64?
    /// The type is not one of RFC 9000 §19 or RFC 9221 (the frame's fields were not readable), rather
    /// than a known type whose fields run past the plaintext or break its rules.
    let unknownType: Bool
}

/// The frames of one decrypted packet, and the error that stopped the walk (nil: it reached the end).
struct QUICFrameWalk: Equatable {
    var frames: [QUICFrame] = []
    var error: QUICFrameError?
}

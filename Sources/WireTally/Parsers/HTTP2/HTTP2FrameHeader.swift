/// The frame types of RFC 9113 §6 and their rules. Any other type is an extension frame, ignored.
enum HTTP2FrameType {
    static let data: UInt8 = 0
    static let headers: UInt8 = 1
    static let priority: UInt8 = 2
    static let rstStream: UInt8 = 3
    static let settings: UInt8 = 4
    static let pushPromise: UInt8 = 5
    static let ping: UInt8 = 6
    static let goaway: UInt8 = 7
    static let windowUpdate: UInt8 = 8
    static let continuation: UInt8 = 9

    static func isKnown(_ type: UInt8) -> Bool { type <= continuation }

    /// The flags RFC 9113 defines for `type` (undefined flags are ignored in sync, rejected when resynchronising).
    static func definedFlags(_ type: UInt8) -> UInt8 {
        switch type {
        case data: return HTTP2Flags.endStream | HTTP2Flags.padded
        case headers: return HTTP2Flags.endStream | HTTP2Flags.endHeaders | HTTP2Flags.padded | HTTP2Flags.priority
        case settings, ping: return HTTP2Flags.ack
        case pushPromise: return HTTP2Flags.endHeaders | HTTP2Flags.padded
        case continuation: return HTTP2Flags.endHeaders
        default: return 0
        }
    }

    /// The frame types that must be on stream 0 (true), on a stream (false), or either (nil: WINDOW_UPDATE).
    static func requiresStreamZero(_ type: UInt8) -> Bool? {
        switch type {
        case settings, ping, goaway: return true
        case windowUpdate: return nil
        default: return false
        }
    }

    /// Whether a payload of `length` bytes is one RFC 9113 allows for the type (`flags` for SETTINGS ACK).
    static func allowsLength(_ length: Int, type: UInt8, flags: UInt8) -> Bool {
        switch type {
        case priority: return length == 5
        case rstStream, windowUpdate: return length == 4
        case ping: return length == 8
        case goaway: return length >= 8
        case settings: return flags & HTTP2Flags.ack != 0 ? length == 0 : length % 6 == 0
        default: return true
        }
    }
}

/// Frame flags (RFC 9113 §6).
enum HTTP2Flags {
    static let endStream: UInt8 = 0x01
    static let ack: UInt8 = 0x01
    static let endHeaders: UInt8 = 0x04
    static let padded: UInt8 = 0x08
    static let priority: UInt8 = 0x20
}

/// The 9-byte frame header (RFC 9113 §4.1): 24-bit length, type, flags, reserved bit and 31-bit stream id.
struct HTTP2FrameHeader: Equatable {
    static let size = 9
    /// The smallest SETTINGS_MAX_FRAME_SIZE (and the default), and the largest a peer may advertise.
    static let defaultMaxFrameSize = 1 << 14
    static let largestMaxFrameSize = (1 << 24) - 1

    var length: Int
    var type: UInt8
    var flags: UInt8
    var streamID: UInt32
    var reservedBit: Bool

    /// Reads the header from `bytes`, which must hold at least 9 bytes.
    init(_ bytes: UnsafePointer<UInt8>) {
        length = Int(bytes[0]) << 16 | Int(bytes[1]) << 8 | Int(bytes[2])
        type = bytes[3]
        flags = bytes[4]
        reservedBit = bytes[5] & 0x80 != 0
        streamID = (UInt32(bytes[5] & 0x7f) << 24) | UInt32(bytes[6]) << 16 | UInt32(bytes[7]) << 8 | UInt32(bytes[8])
    }

    /// The whole frame on the stream.
    var frameSize: Int { Self.size + length }

    func has(_ flag: UInt8) -> Bool { flags & flag != 0 }
}

/// How a frame header is recognised where the framing is not known: at the first byte of a direction
/// that did not start with the client preface, and after a gap or invalid framing (lost sync).
///
/// A position is taken as a frame start when its 9 bytes read as a header that RFC 9113 allows and
/// that fits the connection: length ≤ the receiver's SETTINGS_MAX_FRAME_SIZE; a defined type other than
/// CONTINUATION (which continues a header block that was lost); only flags the type defines; reserved
/// bit clear; stream 0 exactly for SETTINGS, PING and GOAWAY; the type's fixed length (PRIORITY 5,
/// RST_STREAM and WINDOW_UPDATE 4, PING 8, GOAWAY ≥ 8, SETTINGS a multiple of 6, an ACK empty); a
/// stream id no higher than `maxStreamID` (the highest id seen on the connection + 2^16, or 2^24
/// when none was seen). When the next frame's header lies in the same buffer it must validate too.
/// A random 9 bytes pass with a probability of about 1e-8 (1e-9 on text).
struct HTTP2ResyncRule {
    var maxFrameSize: Int
    var maxStreamID: UInt32

    /// Whether the `count` bytes available at `bytes` (≥ 1) can still begin a valid header.
    func couldBegin(_ bytes: UnsafePointer<UInt8>, count: Int) -> Bool {
        if count >= 3 {
            let length = Int(bytes[0]) << 16 | Int(bytes[1]) << 8 | Int(bytes[2])
            if length > maxFrameSize { return false }
        } else if Int(bytes[0]) << 16 > maxFrameSize {
            return false
        }
        if count >= 4 {
            let type = bytes[3]
            if !HTTP2FrameType.isKnown(type) || type == HTTP2FrameType.continuation { return false }
            if count >= 5, bytes[4] & ~HTTP2FrameType.definedFlags(type) != 0 { return false }
            if count >= 6, bytes[5] & 0x80 != 0 { return false }
        }
        guard count >= HTTP2FrameHeader.size else { return true }
        return accepts(HTTP2FrameHeader(bytes))
    }

    /// Whether a whole header is plausible as a frame start.
    func accepts(_ header: HTTP2FrameHeader) -> Bool {
        guard header.length <= maxFrameSize, HTTP2FrameType.isKnown(header.type),
            header.type != HTTP2FrameType.continuation, !header.reservedBit,
            header.flags & ~HTTP2FrameType.definedFlags(header.type) == 0,
            HTTP2FrameType.allowsLength(header.length, type: header.type, flags: header.flags),
            header.streamID <= maxStreamID
        else { return false }
        switch HTTP2FrameType.requiresStreamZero(header.type) {
        case true?: return header.streamID == 0
        case false?: return header.streamID != 0
        case nil: return true
        }
    }
}

/// What the frames of a decrypted Initial (or Handshake) packet carry, as far as wiretally reads them.
struct QUICFrameSummary {
    /// CRYPTO frames: stream offset and data (copied out of the plaintext).
    var crypto: [(offset: Int, data: ArraySlice<UInt8>)] = []
    var paddingBytes = 0
    var pings = 0
    var acks = 0
    /// CONNECTION_CLOSE (transport, 0x1c): the error code.
    var connectionCloseError: UInt64?
    /// The walk stopped at a frame type not allowed or not read here, or at a malformed frame.
    var stoppedAtFrameType: UInt64?
    var malformed = false
}

/// Walks the frames of a decrypted Initial packet (RFC 9000 §12.4, §19): PADDING, PING, ACK (with
/// or without ECN counts), CRYPTO and CONNECTION_CLOSE; anything else stops the walk and is reported.
/// Bounds-checked throughout: a malformed frame stops the walk, never traps.
enum QUICFrameWalker {
    static func walk(_ plaintext: [UInt8]) -> QUICFrameSummary {
        var summary = QUICFrameSummary()
        plaintext.withUnsafeBytes { raw in
            var reader = QUICByteReader(raw)
            while reader.remaining > 0 {
                guard let type = reader.varint() else { summary.malformed = true; return }
                switch type {
                case 0x00:
                    summary.paddingBytes += 1
                case 0x01:
                    summary.pings += 1
                case 0x02, 0x03:
                    guard skipAck(&reader, ecn: type == 0x03) else { summary.malformed = true; return }
                    summary.acks += 1
                case 0x06:
                    guard let offset = reader.varintCount(), let length = reader.varintCount(),
                          let range = reader.skip(length), offset <= Int.max - length
                    else { summary.malformed = true; return }
                    summary.crypto.append((offset, plaintext[range]))
                case 0x1c:
                    guard let code = reader.varint(), reader.varint() != nil, let reasonLength = reader.varintCount(),
                          reader.skip(reasonLength) != nil
                    else { summary.malformed = true; return }
                    summary.connectionCloseError = code
                default:
                    summary.stoppedAtFrameType = type
                    return
                }
            }
        }
        return summary
    }

    /// ACK: largest, delay, range count, first range, then (gap, length) pairs; ECN adds three counts.
    private static func skipAck(_ reader: inout QUICByteReader, ecn: Bool) -> Bool {
        guard reader.varint() != nil, reader.varint() != nil, let rangeCount = reader.varint(),
              reader.varint() != nil
        else { return false }
        // each further range takes at least 2 bytes: a count beyond that cannot be honest
        guard rangeCount <= UInt64(reader.remaining / 2) else { return false }
        for _ in 0 ..< rangeCount {
            guard reader.varint() != nil, reader.varint() != nil else { return false }
        }
        if ecn {
            for _ in 0 ..< 3 { guard reader.varint() != nil else { return false } }
        }
        return true
    }
}

/// Reads every frame of a decrypted QUIC packet (RFC 9000 §19 and DATAGRAM, RFC 9221) over borrowed
/// plaintext. Bounds-checked throughout: a malformed or unknown frame stops the walk, which reports it
/// (`QUICFrameWalk.error`); nothing traps on hostile input and no count read from the packet is trusted
/// beyond the bytes that remain. Consecutive PADDING bytes are one frame (as tshark counts them).
enum QUICFrameParser {
    /// The frames of `plaintext`, in order.
    static func parse(_ plaintext: UnsafeRawBufferPointer) -> QUICFrameWalk {
        var walk = QUICFrameWalk()
        var reader = QUICByteReader(plaintext)
        while reader.remaining > 0 {
            let start = reader.index
            guard let type = reader.varint() else {
                walk.error = QUICFrameError(offset: start, type: nil, unknownType: false)
                return walk
            }
            guard let kind = frame(type, &reader) else {
                walk.error = QUICFrameError(offset: start, type: type, unknownType: !isKnown(type))
                return walk
            }
            walk.frames.append(QUICFrame(type: type, range: start ..< reader.index, kind: kind))
        }
        return walk
    }

    /// Convenience for byte arrays.
    static func parse(_ plaintext: [UInt8]) -> QUICFrameWalk {
        plaintext.withUnsafeBytes { parse($0) }
    }

    /// RFC 9000 §19 types 0x00–0x1e and DATAGRAM 0x30/0x31.
    static func isKnown(_ type: UInt64) -> Bool { type <= 0x1e || type == 0x30 || type == 0x31 }

    /// Reads the fields of a frame of `type` (its type already read): nil when malformed or unknown.
    private static func frame(_ type: UInt64, _ reader: inout QUICByteReader) -> QUICFrameKind? {
        switch type {
        case 0x00:
            while reader.peek() == 0 { _ = reader.u8() }
            return .padding
        case 0x01: return .ping
        case 0x02, 0x03: return ack(&reader, ecn: type == 0x03)
        case 0x04:
            guard let id = reader.varint(), let code = reader.varint(), let size = reader.varint() else { return nil }
            return .resetStream(streamID: id, errorCode: code, finalSize: size)
        case 0x05:
            guard let id = reader.varint(), let code = reader.varint() else { return nil }
            return .stopSending(streamID: id, errorCode: code)
        case 0x06:
            guard let offset = reader.varint(), let length = reader.varintCount(), let data = reader.skip(length) else { return nil }
            return .crypto(offset: offset, data: data)
        case 0x07:
            guard let length = reader.varintCount(), length > 0, reader.skip(length) != nil else { return nil }
            return .newToken
        case 0x08 ... 0x0f: return stream(type, &reader)
        case 0x10: return reader.varint().map { .maxData($0) }
        case 0x11:
            guard let id = reader.varint(), let maximum = reader.varint() else { return nil }
            return .maxStreamData(streamID: id, maximum: maximum)
        case 0x12, 0x13: return reader.varint().map { .maxStreams(bidirectional: type == 0x12, maximum: $0) }
        case 0x14: return reader.varint().map { .dataBlocked($0) }
        case 0x15:
            guard let id = reader.varint(), let limit = reader.varint() else { return nil }
            return .streamDataBlocked(streamID: id, limit: limit)
        case 0x16, 0x17: return reader.varint().map { .streamsBlocked(bidirectional: type == 0x16, limit: $0) }
        case 0x18:
            guard let sequence = reader.varint(), let retire = reader.varint(), retire <= sequence,
                  let length = reader.u8(), (1 ... 20).contains(length), let id = reader.skip(Int(length)),
                  reader.skip(16) != nil  // stateless reset token
            else { return nil }
            return .newConnectionID(sequence: sequence, retirePriorTo: retire, connectionID: id)
        case 0x19: return reader.varint().map { .retireConnectionID(sequence: $0) }
        case 0x1a, 0x1b:
            guard reader.skip(8) != nil else { return nil }
            return type == 0x1a ? .pathChallenge : .pathResponse
        case 0x1c, 0x1d:
            guard let code = reader.varint() else { return nil }
            let frameType = type == 0x1c ? reader.varint() : nil
            guard type == 0x1d || frameType != nil, let length = reader.varintCount(), reader.skip(length) != nil
            else { return nil }
            return .connectionClose(errorCode: code, frameType: frameType, reasonLength: length)
        case 0x1e: return .handshakeDone
        case 0x30, 0x31:
            let length = type == 0x31 ? reader.varintCount() : reader.remaining
            guard let length, let data = reader.skip(length) else { return nil }
            return .datagram(data: data)
        default: return nil
        }
    }

    /// STREAM (0x08–0x0f): the OFF (0x04), LEN (0x02) and FIN (0x01) bits say which fields follow;
    /// without LEN the data runs to the end of the packet. Offset + length must stay below 2^62.
    private static func stream(_ type: UInt64, _ reader: inout QUICByteReader) -> QUICFrameKind? {
        guard let id = reader.varint() else { return nil }
        let offset = type & 0x04 != 0 ? reader.varint() : 0
        guard let offset else { return nil }
        let length = type & 0x02 != 0 ? reader.varintCount() : reader.remaining
        guard let length, let data = reader.skip(length), offset + UInt64(length) < 1 << 62 else { return nil }
        return .stream(streamID: id, offset: offset, data: data, fin: type & 0x01 != 0)
    }

    /// ACK (0x02, with ECN counts 0x03): largest, delay, range count, first range, then (gap, length)
    /// pairs, each range below the previous one (RFC 9000 §19.3.1); a range below packet number 0 is
    /// malformed. The count is checked against the bytes left (each pair takes at least two) before
    /// anything is allocated.
    private static func ack(_ reader: inout QUICByteReader, ecn: Bool) -> QUICFrameKind? {
        guard let largest = reader.varint(), reader.varint() != nil, let count = reader.varint(),
              let first = reader.varint(), first <= largest, count <= UInt64(reader.remaining / 2)
        else { return nil }
        var ranges = [largest - first ... largest]
        ranges.reserveCapacity(Int(count) + 1)
        var smallest = largest - first
        for _ in 0 ..< count {
            guard let gap = reader.varint(), let length = reader.varint(), smallest >= 2, gap <= smallest - 2,
                  smallest - gap - 2 >= length
            else { return nil }
            let high = smallest - gap - 2
            smallest = high - length
            ranges.append(smallest ... high)
        }
        if ecn {
            for _ in 0 ..< 3 { guard reader.varint() != nil else { return nil } }
        }
        return .ack(largest: largest, ranges: ranges, ecn: ecn)
    }
}

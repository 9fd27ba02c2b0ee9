/// TLS record content types (RFC 8446 §5.1; 24 is heartbeat).
package enum TLSContentType: UInt8, Sendable, CaseIterable {
    case changeCipherSpec = 20
    case alert = 21
    case handshake = 22
    case applicationData = 23
    case heartbeat = 24
}

/// What a `TLSRecordReader` finds, in stream order.
enum TLSRecordEvent {
    /// A record header was read: `offset` is the stream offset of its first header byte, `origin` the
    /// packet that delivered that byte, `headerLength` 5 (2 for an SSL 2.0-format ClientHello).
    case recordStarted(type: TLSContentType, version: UInt16, length: Int, headerLength: Int, offset: Int64, origin: PacketOrigin)
    /// The record's last byte was delivered (by `origin`); `end` is the offset after it.
    case recordEnded(type: TLSContentType, end: Int64, origin: PacketOrigin)
    /// A complete cleartext handshake message (type, body without its 4-byte header).
    case handshakeMessage(type: UInt8, body: [UInt8], origin: PacketOrigin)
    /// An SSL 2.0-format ClientHello (its body after the 2-byte header).
    case sslv2ClientHello(body: [UInt8], origin: PacketOrigin)
    /// A cleartext alert.
    case alert(level: UInt8, description: UInt8, origin: PacketOrigin)
    /// The bytes from `offset` on are not TLS records: a gap or a damaged header lost the record
    /// boundaries (`mayResume`: records are looked for again), or the direction is not TLS at all.
    case lost(offset: Int64, mayResume: Bool)
    /// After lost boundaries, a record header was found again: records resume at `offset`.
    case resynchronized(offset: Int64)
    /// A handshake message longer than the buffer cap was skipped (counted, not parsed).
    case handshakeTooLarge
    /// A protected record is complete (only with `TLSRecordReader.keepsProtectedRecords`): sent just
    /// before its `recordEnded`. Its bytes and segments are the reader's buffers, valid during the call
    /// (the nonce room before the body may be written).
    case protectedRecord(TLSProtectedRecord)
}

/// Incremental reader of one direction's TLS records: records split across segments, several records
/// per segment, handshake messages split across records. Only cleartext handshake messages are
/// buffered (up to `maxHandshakeMessage` bytes each); application data is counted, never kept. Any
/// input is safe: a header that is not a TLS record (bad type, version or length) as the direction's
/// first makes the rest of the direction `lost`; after records were read, it loses the record boundaries
/// as a gap does, until the next record header is confirmed (`gap(offset:length:)`).
final class TLSRecordReader {
    /// Largest handshake message buffered; longer ones are skipped.
    let maxHandshakeMessage: Int
    /// Asked at each handshake/alert record's start: is its content encrypted (after this direction's
    /// ChangeCipherSpec in TLS ≤ 1.2)?
    var isEncrypted: (TLSContentType) -> Bool = { _ in false }
    /// Receives the events.
    var handler: (TLSRecordEvent) -> Void = { _ in }
    /// Keep each protected record's bytes (application data, and handshake/alert records `isEncrypted`
    /// calls encrypted) and send them as `protectedRecord`: set when there are keys to open them.
    var keepsProtectedRecords = false

    private enum State {
        case header
        /// `kept`: the body is collected for a `protectedRecord` event.
        case body(type: TLSContentType, remaining: Int, encrypted: Bool, kept: Bool)
        case sslv2(remaining: Int)
        /// After a gap: looking for two consecutive plausible record headers.
        case resync
        case lost
    }

    private var state = State.header
    private var header: [UInt8] = []
    private var headerOffset: Int64 = 0
    private var headerOrigin = PacketOrigin(frameNumber: 0, timestamp: Timestamp(nanoseconds: 0))
    private var recordsSeen = 0
    private var handshake: [UInt8] = []
    private var handshakeOrigin: PacketOrigin?
    private var skipHandshake = 0
    private var alertBytes: [UInt8] = []
    private var sslv2Body: [UInt8] = []
    /// The protected record being read (its type, version, offset and segments) and its body.
    private var protectedRecord = TLSProtectedRecord(
        type: .applicationData, version: 0, offset: 0, sealed: UnsafeMutableRawBufferPointer(start: nil, count: 0), segments: [])
    private var protectedBody = TLSRecordGatherBuffer()
    private(set) var isLost = false
    private var resyncBuffer: [UInt8] = []
    private var resyncBase: Int64 = 0
    /// Minor version byte of the last record header (resynchronisation wants the same one).
    private var lastMinorVersion: UInt8?

    /// Stream offset of the next byte expected.
    private(set) var position: Int64 = 0

    init(maxHandshakeMessage: Int = 64 << 10, isClient: Bool) {
        self.maxHandshakeMessage = maxHandshakeMessage
        self.isClient = isClient
    }

    private let isClient: Bool

    /// Largest record body accepted: 2^14 + 2048 (TLS 1.2 ciphertext limit).
    static let maxRecordLength = (1 << 14) + 2048

    func feed(_ data: UnsafeRawBufferPointer, offset: Int64, origin: PacketOrigin) {
        position = offset + Int64(data.count)
        var index = 0
        let count = data.count
        while index < count {
            switch state {
            case .lost:
                return
            case .resync:
                resyncBuffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: data[index...]))
                index = count
                resynchronize(origin: origin)
                return
            case .header:
                if header.isEmpty {
                    headerOffset = offset + Int64(index)
                    headerOrigin = origin
                }
                while header.count < 5 && index < count {
                    header.append(data[index])
                    index += 1
                }
                if header.count == 5 { startRecord() }
            case let .body(type, remaining, encrypted, kept):
                let n = min(remaining, count - index)
                let chunk = UnsafeRawBufferPointer(rebasing: data[index ..< index + n])
                if kept {
                    protectedRecord.segments.append(TLSRecordSegment(offset: offset + Int64(index), origin: origin))
                    protectedBody.append(chunk)
                } else if !encrypted {
                    if type == .handshake { takeHandshake(chunk, origin: origin) }
                    if type == .alert { takeAlert(chunk, origin: origin) }
                }
                index += n
                if remaining - n == 0 {
                    state = .header
                    header.removeAll(keepingCapacity: true)
                    if type == .alert { alertBytes.removeAll() }
                    if kept { sendProtectedRecord() }
                    handler(.recordEnded(type: type, end: offset + Int64(index), origin: origin))
                } else {
                    state = .body(type: type, remaining: remaining - n, encrypted: encrypted, kept: kept)
                }
            case let .sslv2(remaining):
                let n = min(remaining, count - index)
                sslv2Body.append(contentsOf: UnsafeRawBufferPointer(rebasing: data[index ..< index + n]))
                index += n
                if remaining - n == 0 {
                    state = .header
                    header.removeAll(keepingCapacity: true)
                    handler(.sslv2ClientHello(body: sslv2Body, origin: origin))
                    sslv2Body = []
                    handler(.recordEnded(type: .handshake, end: offset + Int64(index), origin: origin))
                } else {
                    state = .sslv2(remaining: remaining - n)
                }
            }
        }
    }

    /// Bytes that cannot be delivered: the record boundaries are lost until a plausible record header
    /// (same version as before the gap) is confirmed by the next header or by its record ending exactly at
    /// the end of a delivered segment; the bytes before it are lost.
    /// Resynchronising buffers at most one record plus a header (about 18 KiB).
    func gap(offset: Int64, length: Int64) {
        position = offset + length
        if case .lost = state { return }
        loseBoundaries(at: offset, resumingAt: offset + length, buffered: [])
    }

    /// Records are lost from `offset` (a gap, or a damaged header): look for the next record from
    /// `base` on, where the bytes `buffered` are already there.
    private func loseBoundaries(at offset: Int64, resumingAt base: Int64, buffered: [UInt8]) {
        let wasResyncing: Bool
        if case .resync = state { wasResyncing = true } else { wasResyncing = false }
        state = .resync
        header.removeAll()
        handshake.removeAll()
        skipHandshake = 0
        alertBytes.removeAll()
        resyncBuffer = buffered
        resyncBase = base
        if !wasResyncing { handler(.lost(offset: offset, mayResume: true)) }
    }

    private func plausibleHeader(at index: Int) -> Int? {
        let b = resyncBuffer
        guard index + 5 <= b.count, (20 ... 23).contains(b[index]), b[index + 1] == 3,
              b[index + 2] == (lastMinorVersion ?? b[index + 2]), b[index + 2] <= 4 else { return nil }
        let length = Int(b[index + 3]) << 8 | Int(b[index + 4])
        return length > 0 && length <= Self.maxRecordLength ? length : nil
    }

    private func resynchronize(origin: PacketOrigin) {
        var p = 0
        while p + 5 <= resyncBuffer.count {
            guard let length = plausibleHeader(at: p) else {
                p += 1
                continue
            }
            let next = p + 5 + length
            // Confirmed by the next header, or by the record ending exactly where the delivered bytes
            // (a segment) end; else wait for more bytes.
            if next != resyncBuffer.count && next + 5 > resyncBuffer.count { break }
            guard next == resyncBuffer.count || plausibleHeader(at: next) != nil else {
                p += 1
                continue
            }
            let tail = Array(resyncBuffer[p...])
            let base = resyncBase + Int64(p)
            resyncBuffer = []
            state = .header
            header.removeAll()
            handler(.resynchronized(offset: base))
            tail.withUnsafeBytes { feed($0, offset: base, origin: origin) }
            return
        }
        if p > 0 {
            resyncBuffer.removeFirst(min(p, resyncBuffer.count))
            resyncBase += Int64(p)
        }
    }

    private func startRecord() {
        let rawType = header[0]
        let version = UInt16(header[1]) << 8 | UInt16(header[2])
        let length = Int(header[3]) << 8 | Int(header[4])
        recordsSeen += 1
        if recordsSeen == 1, isClient, rawType & 0x80 != 0, header[2] == 1 {
            // SSL 2.0-format ClientHello: 2-byte header, length 15 bits; we hold 3 body bytes already.
            let total = (Int(rawType & 0x7f) << 8) | Int(header[1])
            if total >= 9 {
                handler(.recordStarted(type: .handshake, version: 0x0002, length: total, headerLength: 2, offset: headerOffset, origin: headerOrigin))
                sslv2Body = Array(header[2 ..< 5])
                state = .sslv2(remaining: total - 3)
                return
            }
        }
        guard let type = TLSContentType(rawValue: rawType), header[1] == 3, header[2] <= 4,
              length <= Self.maxRecordLength
        else {
            if lastMinorVersion != nil {
                // Records were read before: a damaged header (or a record longer than TLS allows) loses
                // the boundaries, as a gap does; the next record is looked for from its second byte on.
                loseBoundaries(at: headerOffset, resumingAt: headerOffset + 1, buffered: Array(header.dropFirst()))
                return
            }
            isLost = true
            state = .lost
            handler(.lost(offset: headerOffset, mayResume: false))
            return
        }
        lastMinorVersion = header[2]
        let encrypted = (type == .handshake || type == .alert) && isEncrypted(type)
        handler(.recordStarted(type: type, version: version, length: length, headerLength: 5, offset: headerOffset, origin: headerOrigin))
        if type == .handshake && encrypted {
            handshake.removeAll()
            skipHandshake = 0
        }
        let kept = keepsProtectedRecords && (type == .applicationData || encrypted)
        if kept {
            protectedRecord.type = type
            protectedRecord.version = version
            protectedRecord.offset = headerOffset
            protectedBody.start(length: length)
            protectedRecord.segments.removeAll(keepingCapacity: true)
        }
        if length == 0 {
            state = .header
            header.removeAll(keepingCapacity: true)
            if kept { sendProtectedRecord() }
            handler(.recordEnded(type: type, end: headerOffset + 5, origin: headerOrigin))
        } else {
            state = .body(type: type, remaining: length, encrypted: encrypted, kept: kept)
        }
    }

    /// Sends the protected record just read, its body in `protectedBody`.
    private func sendProtectedRecord() {
        protectedRecord.sealed = protectedBody.sealed
        handler(.protectedRecord(protectedRecord))
    }

    private func takeAlert(_ chunk: UnsafeRawBufferPointer, origin: PacketOrigin) {
        for byte in chunk {
            alertBytes.append(byte)
            if alertBytes.count == 2 {
                handler(.alert(level: alertBytes[0], description: alertBytes[1], origin: origin))
            }
        }
    }

    private func takeHandshake(_ chunk: UnsafeRawBufferPointer, origin: PacketOrigin) {
        var chunk = chunk[...]
        while !chunk.isEmpty {
            if skipHandshake > 0 {
                let n = min(skipHandshake, chunk.count)
                skipHandshake -= n
                chunk = chunk.dropFirst(n)
                continue
            }
            if handshake.isEmpty { handshakeOrigin = origin }
            if handshake.count < 4 {
                let n = min(4 - handshake.count, chunk.count)
                handshake.append(contentsOf: chunk.prefix(n))
                chunk = chunk.dropFirst(n)
                if handshake.count < 4 { return }
            }
            let length = Int(handshake[1]) << 16 | Int(handshake[2]) << 8 | Int(handshake[3])
            if length > maxHandshakeMessage {
                skipHandshake = length
                handshake.removeAll()
                handler(.handshakeTooLarge)
                continue
            }
            let n = min(length + 4 - handshake.count, chunk.count)
            handshake.append(contentsOf: chunk.prefix(n))
            chunk = chunk.dropFirst(n)
            if handshake.count == length + 4 {
                let type = handshake[0]
                let body = Array(handshake[4...])
                handshake.removeAll(keepingCapacity: true)
                handler(.handshakeMessage(type: type, body: body, origin: handshakeOrigin ?? origin))
            }
        }
    }
}

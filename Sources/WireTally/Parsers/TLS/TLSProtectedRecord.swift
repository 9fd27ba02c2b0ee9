/// The packet that delivered the record bytes from stream offset `offset` on.
struct TLSRecordSegment {
    var offset: Int64
    var origin: PacketOrigin
}

/// A protected record as read from the stream (kept for decryption). Its bytes are not its own: the
/// reader's buffer (valid during the `protectedRecord` event), or a `TLSHeldRecord`'s copy.
struct TLSProtectedRecord {
    var type: TLSContentType
    var version: UInt16
    /// Stream offset of the record's first header byte.
    var offset: Int64
    /// `TLSRecordCipher.nonceRoom` bytes of room, then the record body: the cipher writes the nonce
    /// into the room, so that nonce, ciphertext and tag lie together as swift-crypto's sealed box takes
    /// them (`AEADOpening`), without gathering the body again.
    var sealed: UnsafeMutableRawBufferPointer
    /// The packets that delivered the body, in stream order, each from the offset of its first body byte.
    var segments: [TLSRecordSegment]

    /// The record body (explicit nonce or IV, ciphertext, tag or MAC and padding).
    var body: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: sealed[TLSRecordCipher.nonceRoom...])
    }

    /// The 5-byte record header (the additional data of TLS 1.3 AEAD), as an array (`withHeader`'s bytes).
    var header: [UInt8] { withHeader { Array($0) } }

    /// Calls `body` with the 5-byte record header, built on the stack (`header` allocates an array).
    func withHeader<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        let length = self.body.count
        return withUnsafeTemporaryAllocation(byteCount: 5, alignment: 1) { header in
            header[0] = type.rawValue
            header[1] = UInt8(version >> 8)
            header[2] = UInt8(version & 0xff)
            header[3] = UInt8(length >> 8)
            header[4] = UInt8(length & 0xff)
            return body(UnsafeRawBufferPointer(header))
        }
    }

    /// Stream offset just past the record.
    var end: Int64 { offset + 5 + Int64(body.count) }
}

/// A reader's buffer for the body of the protected record being read, reused from record to record:
/// `TLSRecordCipher.nonceRoom` bytes of room, then the body as its segments deliver it (the one copy
/// of the ciphertext before swift-crypto's own). It grows to the largest record read, at most
/// `TLSRecordReader.maxRecordLength` bytes of body.
struct TLSRecordGatherBuffer: ~Copyable {
    private var storage = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    /// Body bytes gathered.
    private(set) var count = 0

    init() {}

    deinit { storage.deallocate() }

    /// Starts a record of `length` body bytes.
    mutating func start(length: Int) {
        count = 0
        let needed = TLSRecordCipher.nonceRoom + length
        guard needed > storage.count else { return }
        storage.deallocate()
        storage = .allocate(byteCount: needed, alignment: 16)
    }

    /// Appends body bytes (at most the length the record was started with, in all).
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        let start = TLSRecordCipher.nonceRoom + count
        UnsafeMutableRawBufferPointer(rebasing: storage[start ..< start + bytes.count]).copyMemory(from: bytes)
        count += bytes.count
    }

    /// The room and the body gathered (see `TLSProtectedRecord.sealed`).
    var sealed: UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(rebasing: storage[..<(TLSRecordCipher.nonceRoom + count)])
    }
}

/// A protected record kept past its event (held while the connection's secrets may still be logged),
/// with its own copy of the bytes.
final class TLSHeldRecord {
    /// The record, its bytes in this object's storage.
    let record: TLSProtectedRecord

    init(copying record: TLSProtectedRecord) {
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: record.sealed.count, alignment: 16)
        storage.copyMemory(from: UnsafeRawBufferPointer(record.sealed))
        var copy = record
        copy.sealed = storage
        self.record = copy
    }

    deinit { record.sealed.deallocate() }
}

/// One direction's CRYPTO stream of one packet-number space, reassembled by offset (CRYPTO frames
/// arrive out of order, repeated, or split across packets), delivering the TLS handshake messages
/// (type, 3-byte length, body) as soon as they are contiguous. Bounded: bytes at or beyond
/// `capacity` from the stream start are dropped and `overflowed` is set.
struct QUICCryptoStream {
    static let defaultCapacity = 64 * 1024

    let capacity: Int
    /// Contiguous bytes from offset 0 not yet consumed as messages start at `consumed`.
    private var contiguous: [UInt8] = []
    private var consumed = 0
    /// Received bytes beyond the contiguous prefix, by offset (pieces may overlap).
    private var pending: [Int: ArraySlice<UInt8>] = [:]
    private var pendingBytes = 0
    private(set) var overflowed = false

    init(capacity: Int = Self.defaultCapacity) { self.capacity = capacity }

    /// Bytes contiguous from the start of the stream.
    var contiguousLength: Int { contiguous.count }

    /// Adds CRYPTO data at `offset`; returns the handshake messages completed by it, in order.
    mutating func add(offset: Int, data: ArraySlice<UInt8>) -> [(type: UInt8, body: [UInt8])] {
        guard offset >= 0, offset < capacity else {
            if !data.isEmpty, offset >= 0 { overflowed = true }
            return []
        }
        var data = data
        if offset + data.count > capacity {
            overflowed = true
            data = data.prefix(capacity - offset)
        }
        insert(offset: offset, data: data)
        return messages()
    }

    private mutating func insert(offset: Int, data: ArraySlice<UInt8>) {
        let end = offset + data.count
        if offset <= contiguous.count {
            if end > contiguous.count { contiguous += data.suffix(end - contiguous.count) }
            // drain pending pieces that now touch the prefix
            var progressed = true
            while progressed {
                progressed = false
                for (start, piece) in pending where start <= contiguous.count {
                    pending[start] = nil
                    pendingBytes -= piece.count
                    let pieceEnd = start + piece.count
                    if pieceEnd > contiguous.count { contiguous += piece.suffix(pieceEnd - contiguous.count) }
                    progressed = true
                }
            }
        } else if pending[offset].map({ $0.count < data.count }) ?? true {
            // out of order: keep the longest piece at this offset, bounded by the capacity
            guard pendingBytes + data.count <= capacity else { overflowed = true; return }
            pendingBytes += data.count - (pending[offset]?.count ?? 0)
            pending[offset] = data
        }
    }

    private mutating func messages() -> [(type: UInt8, body: [UInt8])] {
        var found: [(type: UInt8, body: [UInt8])] = []
        while contiguous.count - consumed >= 4 {
            let length = Int(contiguous[consumed + 1]) << 16 | Int(contiguous[consumed + 2]) << 8
                | Int(contiguous[consumed + 3])
            guard contiguous.count - consumed - 4 >= length else { break }
            found.append((contiguous[consumed], Array(contiguous[consumed + 4 ..< consumed + 4 + length])))
            consumed += 4 + length
        }
        return found
    }
}

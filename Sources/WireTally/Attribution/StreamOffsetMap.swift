/// How one direction of a carrier stream (a TCP stream) carries a derived stream (the plaintext of its
/// TLS records): consecutive pieces of carrier bytes in stream order, each either carrying a run of
/// derived bytes (`payload`: a record's header and leading bytes, then one carrier byte per derived
/// byte, then trailing bytes such as a tag, MAC or padding), carrying none (`control`: a handshake,
/// alert or other record), or lost (`lost`: bytes that are not records, records that did not open,
/// bytes missing from the capture).
///
/// Both offsets grow along the pieces, so either maps to the other by binary search. Pieces are
/// dropped from the front once the exchanges they belong to are reported (`discard(before:)`).
struct StreamOffsetMap {
    enum Kind: UInt8 {
        case payload, control, lost
    }

    struct Piece {
        /// Carrier offsets of the piece: `start..<end`.
        var start: Int64
        var end: Int64
        /// Carrier offset of the first carried derived byte (`payload`).
        var dataStart: Int64
        /// Derived offset of the first carried byte (`payload`); for the other kinds, the derived
        /// length before the piece.
        var derivedStart: Int64
        /// Derived bytes carried (`payload`), or lost with the piece (`lost`: the derived stream's gap).
        var derivedLength: Int64
        var kind: Kind
        /// The record's content type (its inner type once decrypted).
        var contentType: UInt8
        /// Bytes of the piece after its header that are protection rather than content (explicit
        /// nonce or IV, tag or MAC, padding, the TLS 1.3 inner content type).
        var protection: Int32
        /// `control`: the exchange the piece was given when it was read (`setupOwner`: the connection's
        /// first exchange, once there is one).
        var owner: Int32 = StreamOffsetMap.setupOwner

        var derivedEnd: Int64 { derivedStart + derivedLength }
        var dataEnd: Int64 { dataStart + derivedLength }
    }

    private(set) var pieces: [Piece] = []
    /// Index of the first piece kept (those before were discarded).
    private var firstKept = 0
    /// Derived bytes mapped so far.
    private(set) var derivedEnd: Int64 = 0
    /// Carrier bytes mapped so far.
    private(set) var carrierEnd: Int64 = 0

    /// Maps carrier bytes `start..<end`, `derivedLength` of them carried from `dataStart` on.
    /// `Piece.owner` of a control piece that goes to the connection's first exchange (setup).
    static let setupOwner: Int32 = -2

    mutating func append(
        start: Int64, end: Int64, kind: Kind, dataStart: Int64 = 0, derivedLength: Int64 = 0, contentType: UInt8 = 0,
        protection: Int = 0, owner: Int32 = StreamOffsetMap.setupOwner
    ) {
        guard end > start || (kind == .lost && derivedLength > 0) else { return }
        let carries = derivedLength > 0 && kind != .control
        pieces.append(Piece(
            start: start, end: end, dataStart: carries ? dataStart : start, derivedStart: derivedEnd,
            derivedLength: carries ? derivedLength : 0, kind: kind == .payload && !carries ? .control : kind,
            contentType: contentType, protection: Int32(clamping: protection), owner: owner))
        if carries { derivedEnd += derivedLength }
        carrierEnd = max(carrierEnd, end)
    }

    /// The kept pieces.
    var keptPieces: ArraySlice<Piece> { pieces[firstKept...] }

    /// The kept pieces that end after carrier offset `start` and begin before `end`.
    func keptPieces(from start: Int64, to end: Int64) -> ArraySlice<Piece> {
        var low = firstKept, high = pieces.count
        while low < high {  // first piece ending after `start`
            let middle = (low + high) / 2
            if pieces[middle].end <= start { low = middle + 1 } else { high = middle }
        }
        var last = low
        while last < pieces.count, pieces[last].start < end { last += 1 }
        return pieces[low ..< last]
    }

    /// Index of the kept piece containing carrier offset `offset`; nil before the first kept piece or
    /// past the last.
    func pieceIndex(carrier offset: Int64) -> Int? {
        if let last = pieces.last, last.start <= offset { return offset < last.end ? pieces.count - 1 : nil }
        var low = firstKept, high = pieces.count
        while low < high {
            let middle = (low + high) / 2
            if pieces[middle].start <= offset { low = middle + 1 } else { high = middle }
        }
        guard low > firstKept, offset < pieces[low - 1].end else { return nil }
        return low - 1
    }

    /// The carrier offset that carries derived offset `offset`: the piece's start for its first derived
    /// byte (its header goes with it), else the byte's own position; for an offset not carried by a kept
    /// piece, the start of the first kept piece after it (or the carrier end).
    func carrierOffset(derived offset: Int64) -> Int64 {
        guard let index = pieceIndex(derived: offset) else { return carrierEnd }
        let piece = pieces[index]
        guard piece.kind == .payload, offset > piece.derivedStart else { return piece.start }
        return piece.dataStart + (offset - piece.derivedStart)
    }

    /// The start of the piece that carries derived offset `offset` (its record's first byte); the
    /// carrier end past the kept pieces.
    func carrierStart(derived offset: Int64) -> Int64 {
        pieceIndex(derived: offset).map { pieces[$0].start } ?? carrierEnd
    }

    /// The first kept piece whose derived range ends after `offset`.
    private func pieceIndex(derived offset: Int64) -> Int? {
        var low = firstKept, high = pieces.count
        while low < high {
            let middle = (low + high) / 2
            if pieces[middle].derivedEnd <= offset { low = middle + 1 } else { high = middle }
        }
        return low < pieces.count ? low : nil
    }

    /// The carrier offset after the piece that carries derived byte `offset - 1` (the end of the record
    /// with the derived bytes before `offset`); the first kept piece's start for 0 or an offset before
    /// the kept pieces, the carrier end past them.
    func carrierEnd(ofDerivedBefore offset: Int64) -> Int64 {
        guard offset > 0 else { return firstKeptStart ?? carrierEnd }
        var low = firstKept, high = pieces.count
        while low < high {  // first piece whose derived range ends at or after `offset`
            let middle = (low + high) / 2
            if pieces[middle].derivedEnd < offset { low = middle + 1 } else { high = middle }
        }
        guard low < pieces.count else { return carrierEnd }
        return pieces[low].derivedStart < offset ? pieces[low].end : pieces[low].start
    }

    /// The carrier offset where the kept pieces begin.
    var firstKeptStart: Int64? { firstKept < pieces.count ? pieces[firstKept].start : nil }

    /// Drops the pieces that end at or before carrier offset `offset`.
    mutating func discard(before offset: Int64) {
        while firstKept < pieces.count, pieces[firstKept].end <= offset { firstKept += 1 }
        if firstKept > 1024 && firstKept * 2 > pieces.count {
            pieces.removeFirst(firstKept)
            firstKept = 0
        }
    }
}

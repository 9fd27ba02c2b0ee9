import FoundationEssentials

/// The plaintext of a TLS connection whose keys are known, as a layer between the TCP streams and the
/// application protocol: opens each protected record (`TLSDecryptor`), hands the application data of
/// each direction to the child analysis (HTTP/1.x: the same parser and attribution as cleartext) as one
/// continuous stream, and keeps, per direction, the map from every plaintext byte back to the record and
/// the TCP stream bytes that carried it (`StreamOffsetMap`). As the connection's `StreamAttribution` it
/// answers the ledger in TCP stream offsets by walking that map down to the child's ownership:
/// - a record's ciphertext bytes belong to the exchange owning the plaintext bytes they carry; its
///   header and leading bytes (explicit nonce, IV) to the owner of its first plaintext byte; its
///   trailing bytes (tag or MAC, padding, the TLS 1.3 inner type) to the owner of its last — so a record
///   carrying the end of one exchange and the start of the next is split by plaintext bytes. When the
///   child's exchanges are multiplexed (HTTP/2, `splitsPacketsByShare`) a record whose plaintext several
///   exchanges own has its header and protection bytes split by their shares of the plaintext instead
///   (`OverheadShare`, largest remainder), as the ledger splits packets;
/// - a record without application data (handshake, ChangeCipherSpec, post-handshake messages such as
///   NewSessionTicket and KeyUpdate, alerts) belongs to the connection's latest exchange when the record
///   is read: the records before the direction's first plaintext are the setup of the connection's
///   first exchange, a KeyUpdate between two exchanges goes to the one under way (never to one already
///   written), a close_notify after the last response is the teardown of the last exchange;
/// - records that did not open, bytes after a gap until records resume, and bytes that are not records
///   belong to nobody.
final class TLSPlaintextLayer: StreamAttribution {
    let decryptor: TLSDecryptor
    /// The application protocol's analysis (HTTP/1.x, or HTTP/2 for ALPN `h2`); nil when the protocol
    /// is not one wiretally parses.
    private(set) var child: (any ExchangeAnalysis)?
    /// `child` unretained by its type (`child` holds it; all are set once, together), for the ledger's
    /// questions and the delivered plaintext: a call through the optional existential retains and
    /// releases the child around it, several times a packet. The helpers that take the child from
    /// `withChild` take it as a generic (`some`) parameter: through an existential parameter the
    /// compiler still retained an HTTP/1.x child around each call.
    private var unretainedHTTP: Unmanaged<HTTPConnectionAnalysis>?
    private var unretainedHTTP2: Unmanaged<HTTP2ConnectionAnalysis>?
    /// True once the negotiated protocol decided `child`.
    private(set) var childChosen = false
    private let httpLimits: HTTPLimits
    private var maps = DirectionPair(StreamOffsetMap(), StreamOffsetMap())
    /// Per direction: stream offset where bytes stopped being TLS records for good, if they did.
    private var lostFrom = DirectionPair<Int64?>(nil, nil)
    /// Per direction: where the records were lost after a gap, until they resume.
    private var gapFrom = DirectionPair<Int64?>(nil, nil)
    /// Per direction: bytes delivered or declared missing (the TCP layer's examined length).
    private var delivered = DirectionPair<Int64>(0, 0)
    /// Application-data plaintext bytes per direction.
    private(set) var plaintextBytes = DirectionPair<Int64>(0, 0)
    /// Records lost in gaps and resumed after (`tls_gap`), and records that did not open.
    private(set) var gaps = 0
    /// The first exchange index not discarded.
    private var discardedBefore = 0
    /// Decides from the negotiated protocol whether plaintext is HTTP/1.x (nil: not known in clear).
    private let negotiatedProtocol: () -> String?

    /// `body` run on the child (nil when there is none), reached without retaining it.
    @inline(__always)
    private func withChild<Result>(_ body: (any ExchangeAnalysis) -> Result) -> Result? {
        if let http = unretainedHTTP { return http._withUnsafeGuaranteedRef { body($0) } }
        if let http2 = unretainedHTTP2 { return http2._withUnsafeGuaranteedRef { body($0) } }
        return nil
    }

    init(decryptor: TLSDecryptor, httpLimits: HTTPLimits, negotiatedProtocol: @escaping () -> String?) {
        self.decryptor = decryptor
        self.httpLimits = httpLimits
        self.negotiatedProtocol = negotiatedProtocol
    }

    /// The application protocol: TLS 1.3 EncryptedExtensions' ALPN once decrypted, else what the
    /// handshake showed in clear.
    var applicationProtocol: String? {
        decryptor.sawEncryptedExtensions ? decryptor.encryptedExtensionsALPN : negotiatedProtocol()
    }

    /// True when the plaintext is a protocol wiretally does not parse.
    var isUnparsedProtocol: Bool { childChosen && child == nil }

    // MARK: Input from the TLS record reader

    /// Maps stream bytes `start..<end` of `direction` that carry no plaintext (cleartext handshake
    /// records, ChangeCipherSpec).
    func controlRecord(start: Int64, end: Int64, type: TLSContentType, _ direction: FlowDirection) {
        resumeAfterGap(at: start, lostPlaintext: nil, direction)
        mapControl(start: start, end: end, contentType: type.rawValue, protection: 0, direction)
    }

    /// Maps a record without plaintext, given to `controlOwner` now.
    private func mapControl(start: Int64, end: Int64, contentType: UInt8, protection: Int, _ direction: FlowDirection) {
        let owner = controlOwner(direction)
        maps.update(direction.rawValue) {
            $0.append(start: start, end: end, kind: .control, contentType: contentType, protection: protection, owner: owner)
        }
    }

    /// The owner of a record without plaintext read now: setup before the direction's first plaintext,
    /// else the connection's latest exchange.
    private func controlOwner(_ direction: FlowDirection) -> Int32 {
        let count = exchangeCount
        guard maps.readInPlace(direction.rawValue, { $0.derivedEnd }) > 0, count > 0 else { return StreamOffsetMap.setupOwner }
        return Int32(clamping: count - 1)
    }

    /// What became of a protected record.
    enum RecordResult {
        case opened
        /// A TLS 1.3 handshake record the key log has no secret for: mapped as handshake.
        case skipped
        case failed
    }

    /// Opens a protected record and maps it.
    @discardableResult
    func protectedRecord(_ record: TLSProtectedRecord, _ direction: FlowDirection) -> RecordResult {
        let d = direction.rawValue
        let gapStart = gapFrom[d].flatMap { $0 < record.offset ? $0 : nil }
        if let gapStart { decryptor.lost(record.offset - gapStart, direction) }
        let outcome = decryptor.open(record, direction)
        if let gapStart {
            // The lost bytes held the records whose sequence numbers were skipped: with a fixed
            // overhead per record, their plaintext length is exact.
            var lostPlaintext: Int64?
            if case let .opened(opened) = outcome, let overhead = decryptor.recordOverhead {
                lostPlaintext = max(0, record.offset - gapStart - Int64(opened.skippedRecords * overhead))
            }
            resumeAfterGap(at: record.offset, lostPlaintext: lostPlaintext, direction)
        }
        switch outcome {
        case let .opened(opened):
            let protection = record.body.count - opened.plaintext.count
            guard opened.contentType == TLSContentType.applicationData.rawValue, !opened.plaintext.isEmpty else {
                mapControl(start: record.offset, end: record.end, contentType: opened.contentType, protection: protection, direction)
                return .opened
            }
            let dataStart = record.offset + 5 + Int64(opened.leading)
            let plainStart = maps.readInPlace(d) { $0.derivedEnd }
            maps.update(d) {
                $0.append(start: record.offset, end: record.end, kind: .payload, dataStart: dataStart,
                          derivedLength: Int64(opened.plaintext.count), contentType: opened.contentType,
                          protection: protection)
            }
            plaintextBytes.update(d) { $0 += Int64(opened.plaintext.count) }
            deliver(opened.plaintext, at: plainStart, dataStart: dataStart, record: record, direction)
            return .opened
        case .handshakeWithoutKey:
            mapControl(start: record.offset, end: record.end, contentType: TLSContentType.handshake.rawValue,
                       protection: min(record.body.count, decryptor.suite.tagLength + 1), direction)
            return .skipped
        case .failed:
            // Its plaintext is lost for the child: about the record minus the suite's overhead.
            let overhead = decryptor.suite.protectionOverhead(recordLength: record.body.count, version: decryptor.version)
            let lost = Int64(max(0, record.body.count - overhead))
            gaps += 1
            maps.update(d) { $0.append(start: record.offset, end: record.end, kind: .lost, derivedLength: lost) }
            declareGap(lost, direction)
            return .failed
        }
    }

    /// Bytes from `offset` on are lost: records may resume after them (`mayResume`: a gap, a damaged
    /// header) or the rest is not TLS records.
    func lost(from offset: Int64, mayResume: Bool, _ direction: FlowDirection) {
        if mayResume {
            if gapFrom[direction.rawValue] == nil { gapFrom[direction.rawValue] = offset }
        } else {
            lostFrom[direction.rawValue] = offset
        }
    }

    /// Notes how far the TCP layer delivered (or declared missing) `direction`'s bytes.
    func delivered(upTo offset: Int64, _ direction: FlowDirection) {
        delivered[direction.rawValue] = offset
    }

    func ended(_ direction: FlowDirection) {
        child?.streamEnded(direction: direction)
    }

    /// Closes a gap: the bytes from where records were lost to `offset` are lost, and the plaintext
    /// they carried too: `lostPlaintext` when known, else estimated from the stream bytes at the
    /// direction's plaintext ratio.
    private func resumeAfterGap(at offset: Int64, lostPlaintext: Int64?, _ direction: FlowDirection) {
        let d = direction.rawValue
        guard let from = gapFrom[d], offset > from else { return }
        gapFrom[d] = nil
        gaps += 1
        let carried = maps[d].carrierEnd
        let ratio = carried > 0 ? Double(maps[d].derivedEnd) / Double(carried) : 0.95
        let lost = lostPlaintext ?? Int64(Double(offset - from) * ratio)
        maps.update(d) { $0.append(start: from, end: offset, kind: .lost, derivedLength: lost) }
        declareGap(lost, direction)
    }

    private func declareGap(_ length: Int64, _ direction: FlowDirection) {
        guard length > 0 else { return }
        let d = direction.rawValue
        child?.streamGap(offset: maps[d].derivedEnd - length, length: length, direction: direction, reason: .missing)
    }

    /// Hands a record's plaintext to the child, in pieces by the packets that carried its ciphertext
    /// (each piece's origin is that packet; the last piece's is the packet that completed the record).
    private func deliver(_ plaintext: Data, at plainStart: Int64, dataStart: Int64, record: TLSProtectedRecord, _ direction: FlowDirection) {
        if !childChosen {
            childChosen = true
            switch applicationProtocol {
            case "h2":
                let http2 = HTTP2ConnectionAnalysis(limits: httpLimits)
                (child, unretainedHTTP2) = (http2, .passUnretained(http2))
            case let name? where !name.hasPrefix("http/1"): break
            default:
                let http = HTTPConnectionAnalysis(limits: httpLimits)
                (child, unretainedHTTP) = (http, .passUnretained(http))
            }
        }
        _ = withChild { deliver(plaintext, at: plainStart, dataStart: dataStart, record: record, direction, to: $0) }
    }

    private func deliver(_ plaintext: Data, at plainStart: Int64, dataStart: Int64, record: TLSProtectedRecord,
                         _ direction: FlowDirection, to child: some ExchangeAnalysis) {
        let count = Int64(plaintext.count)
        let segments = record.segments
        let lastOrigin = segments.last?.origin ?? PacketOrigin(frameNumber: 0, timestamp: Timestamp(nanoseconds: 0))
        plaintext.withUnsafeBytes { bytes in
            var from: Int64 = 0
            for (index, segment) in segments.enumerated() where from < count {
                let segmentEnd = index + 1 < segments.count ? segments[index + 1].offset : record.end
                let to = min(count, segmentEnd - dataStart)
                guard to > from else { continue }
                child.streamData(
                    UnsafeRawBufferPointer(rebasing: bytes[Int(from) ..< Int(to)]), offset: plainStart + from,
                    direction: direction, origin: to == count ? lastOrigin : segment.origin)
                from = to
            }
        }
    }

    // MARK: StreamAttribution (TCP stream offsets)

    func examinedLength(_ direction: FlowDirection) -> Int64 {
        withChild { examinedLength(direction, child: $0) } ?? (childChosen ? delivered[direction.rawValue] : 0)
    }

    private func examinedLength(_ direction: FlowDirection, child: some ExchangeAnalysis) -> Int64 {
        let d = direction.rawValue
        // Until the child has found an exchange or given up on some bytes, setup records wait: they go
        // to the first exchange.
        if child.exchangeCount == 0 && child.examinedLength(.up) == 0 && child.examinedLength(.down) == 0 { return 0 }
        if lostFrom[d] != nil || gapFrom[d] != nil { return delivered[d] }
        let examined = child.examinedLength(direction)
        let splitsByShare = child.splitsPacketsByShare
        return maps.readInPlace(d) { map in
            if examined >= map.derivedEnd { return map.carrierEnd }
            // Multiplexed: a record's header and protection are shared by its plaintext's owners, known
            // once all of it is examined.
            return splitsByShare ? map.carrierStart(derived: examined) : map.carrierOffset(derived: examined)
        }
    }

    func ownership(_ direction: FlowDirection) -> OwnershipRuns {
        // Built by walking the map: only for callers that want every run (tests, diagnostics).
        OwnershipRuns(walking: self, direction, from: maps[direction.rawValue].keptPieces.first?.start ?? 0,
                      to: examinedLength(direction))
    }

    func ownerRun(at offset: Int64, _ direction: FlowDirection) -> OwnerRun {
        withChild { ownerRun(at: offset, direction, child: $0) } ?? OwnerRun(owner: .nobody, end: .max)
    }

    private func ownerRun(at offset: Int64, _ direction: FlowDirection, child: some ExchangeAnalysis) -> OwnerRun {
        let d = direction.rawValue
        guard let index = maps.readInPlace(d, { $0.pieceIndex(carrier: offset) }) else {
            if let first = maps.readInPlace(d, { $0.firstKeptStart }), offset < first {
                return OwnerRun(owner: discardedBefore > 0 ? StreamOwner(exchange: discardedBefore - 1) : .nobody, end: first)
            }
            // Past the mapped records: lost bytes, or the tail of a record the capture did not complete.
            if lostFrom[d] != nil || gapFrom[d] != nil { return OwnerRun(owner: .nobody, end: .max) }
            return OwnerRun(owner: owner(of: controlOwner(direction), child), end: .max)
        }
        let piece = maps.readInPlace(d) { $0.pieces[index] }
        switch piece.kind {
        case .lost:
            return OwnerRun(owner: .nobody, end: piece.end)
        case .control:
            return OwnerRun(owner: owner(of: piece.owner, child), end: piece.end)
        case .payload:
            let shares = child.splitsPacketsByShare ? overheadShares(of: piece, direction, child) : nil
            if offset < piece.dataStart || offset >= piece.dataEnd, let shares {
                return overheadRun(at: offset, of: piece, shares)
            }
            let derived = offset < piece.dataStart ? piece.derivedStart
                : offset >= piece.dataEnd ? piece.derivedEnd - 1 : piece.derivedStart + (offset - piece.dataStart)
            let run = child.ownerRun(at: derived, direction)
            // the last owner's run goes on over the trailing bytes, unless they are shared out
            let recordEnd = shares == nil ? piece.end : piece.dataEnd
            let end = offset >= piece.dataEnd || run.end >= piece.derivedEnd ? recordEnd : piece.dataStart + (run.end - piece.derivedStart)
            return OwnerRun(owner: run.owner, end: end)
        }
    }

    /// What one owner of a record's plaintext gets of the record beyond it, when the child's exchanges
    /// are multiplexed (HTTP/2): the record itself (1 for the largest share of the plaintext), its
    /// header bytes and its protection bytes (explicit nonce, tag…), each split by the owners' shares
    /// of the plaintext with the largest remainder method.
    struct OverheadShare {
        var owner: StreamOwner
        var records: Int
        var headerBytes: Int
        var protectionBytes: Int
    }

    /// The shares of a record whose plaintext has several owners, in the order of their first byte;
    /// nil when one owner has it all (the record is theirs).
    private func overheadShares(of piece: StreamOffsetMap.Piece, _ direction: FlowDirection, _ child: some ExchangeAnalysis) -> [OverheadShare]? {
        guard piece.derivedLength > 0, child.ownerRun(at: piece.derivedStart, direction).end < piece.derivedEnd else { return nil }
        let (owners, bytes) = child.ownerShares(in: piece.derivedStart ..< piece.derivedEnd, direction)
        guard owners.count > 1 else { return nil }
        let header = Int(piece.start < piece.dataStart ? min(5, piece.dataStart - piece.start) : 0)
        let overhead = Int(piece.dataStart - piece.start + piece.end - piece.dataEnd)
        let records = LargestRemainder.split(1, by: bytes)
        let headers = LargestRemainder.split(header, by: bytes)
        let protection = LargestRemainder.split(overhead - header, by: bytes)
        return owners.indices.map {
            OverheadShare(owner: owners[$0], records: records[$0], headerBytes: headers[$0], protectionBytes: protection[$0])
        }
    }

    /// The owner of overhead byte `offset` of a record split by `shares`: the record's bytes beyond its
    /// plaintext (header and leading bytes, then trailing bytes) laid out as one sequence, each owner's
    /// share after the previous one's.
    private func overheadRun(at offset: Int64, of piece: StreamOffsetMap.Piece, _ shares: [OverheadShare]) -> OwnerRun {
        let leading = piece.dataStart - piece.start
        let position = offset < piece.dataStart ? offset - piece.start : leading + (offset - piece.dataEnd)
        var shareEnd: Int64 = 0
        for share in shares {
            shareEnd += Int64(share.headerBytes + share.protectionBytes)
            guard position < shareEnd else { continue }
            // back to stream offsets: the share ends in the leading bytes or in the trailing ones
            let end = offset < piece.dataStart ? min(piece.start + shareEnd, piece.dataStart) : piece.dataEnd + (shareEnd - leading)
            return OwnerRun(owner: share.owner, end: end)
        }
        return OwnerRun(owner: shares[shares.count - 1].owner, end: piece.end)
    }

    /// The owner of a record carrying no plaintext given `owner` when it was read: that exchange, or
    /// for setup the connection's first exchange once there is one.
    private func owner(of owner: Int32, _ child: some ExchangeAnalysis) -> StreamOwner {
        guard owner == StreamOffsetMap.setupOwner else { return StreamOwner(exchange: Int(owner)) }
        return child.exchangeCount > 0 ? StreamOwner(exchange: 0) : .nobody
    }

    func start(ofExchangeAfter index: Int, _ direction: FlowDirection) -> Int64? {
        guard let derived = withChild({ $0.start(ofExchangeAfter: index, direction) }) ?? nil else { return nil }
        return maps.readInPlace(direction.rawValue) { $0.carrierOffset(derived: derived) }
    }

    /// After the record that carries the last plaintext byte of the exchanges up to `index` (its
    /// trailing protection goes with that byte).
    func end(ofExchangesThrough index: Int, _ direction: FlowDirection) -> Int64? {
        guard let derived = withChild({ $0.end(ofExchangesThrough: index, direction) }) ?? nil else { return nil }
        return maps.readInPlace(direction.rawValue) { $0.carrierEnd(ofDerivedBefore: derived) }
    }

    var exchangeInFlight: Int? { withChild { $0.exchangeInFlight } ?? nil }

    var splitsPacketsByShare: Bool { withChild { $0.splitsPacketsByShare } ?? false }

    var exchangeCount: Int { withChild { $0.exchangeCount } ?? 0 }

    func isFinal(_ index: Int) -> Bool { withChild { $0.isFinal(index) } ?? false }

    func cancelTime(of index: Int) -> Timestamp? { withChild { $0.cancelTime(of: index) } ?? nil }

    func noteClientClose(exchange index: Int) { _ = withChild { $0.noteClientClose(exchange: index) } }

    func discardExchanges(before index: Int) {
        guard let child, index > discardedBefore else { return }
        for direction in FlowDirection.allCases {
            let keepFrom = start(ofExchangeAfter: index - 1, direction) ?? maps[direction.rawValue].carrierEnd
            maps.update(direction.rawValue) { $0.discard(before: keepFrom) }
        }
        discardedBefore = index
        // the kept records' plaintext is still split by its owners when they are reported
        child.discardExchanges(before: index, keepingOwnersFrom: DirectionPair(
            maps[0].keptPieces.first?.derivedStart ?? maps[0].derivedEnd,
            maps[1].keptPieces.first?.derivedStart ?? maps[1].derivedEnd))
    }

    // MARK: Per-exchange record bytes

    /// What the records of `direction` owned by exchanges `range` cost beyond their plaintext, by the
    /// ownership rules above (a record's header goes with its first plaintext byte, its trailing
    /// protection with its last).
    func recordBytes(of range: Range<Int>, _ direction: FlowDirection) -> [Int: TLSExchangeRecordBytes] {
        var result: [Int: TLSExchangeRecordBytes] = [:]
        guard let child, !range.isEmpty else { return result }
        // The records of exchanges `range` lie before the first byte of the exchange after the range,
        // and after the first byte of the exchange before the range (a control record read once
        // exchange k began goes to k, wherever it lies in its direction; setup records for exchange 0).
        let map = maps[direction.rawValue]
        let from = range.lowerBound <= 1 ? 0 : start(ofExchangeAfter: range.lowerBound - 2, direction) ?? map.carrierEnd
        // (multiplexed exchanges interleave: theirs may come after a later one's first byte)
        let to = max(start(ofExchangeAfter: range.upperBound - 1, direction) ?? .max,
                     end(ofExchangesThrough: range.upperBound - 1, direction) ?? .max)
        for piece in map.keptPieces(from: from, to: to) where piece.kind != .lost {
            if piece.kind == .payload, child.splitsPacketsByShare, let shares = overheadShares(of: piece, direction, child) {
                for share in shares where !share.owner.isNobody && range.contains(share.owner.exchange) {
                    result[share.owner.exchange, default: TLSExchangeRecordBytes()].add(share)
                }
                continue
            }
            let first = ownerRun(at: piece.start, direction).owner
            if !first.isNobody && range.contains(first.exchange) {
                result[first.exchange, default: TLSExchangeRecordBytes()].add(piece)
            }
            guard piece.kind == .payload, piece.end > piece.dataEnd else { continue }
            let last = child.ownerRun(at: piece.derivedEnd - 1, direction).owner
            if !last.isNobody && range.contains(last.exchange) {
                result[last.exchange, default: TLSExchangeRecordBytes()].protectionBytes += Int(piece.end - piece.dataEnd)
            }
        }
        return result
    }
}

/// The TLS bytes of one exchange in one direction beyond its plaintext: record headers, protection
/// (explicit nonces and IVs, tags and MACs, padding, TLS 1.3 inner content types), handshake and other
/// control records (ChangeCipherSpec, post-handshake messages), alerts; and the records it owns.
package struct TLSExchangeRecordBytes: Hashable, Sendable {
    /// Records whose header the exchange owns.
    package var records = 0
    package var recordHeaderBytes = 0
    package var protectionBytes = 0
    /// Content of handshake, ChangeCipherSpec and other non-application records.
    package var handshakeBytes = 0
    /// Content of alert records.
    package var alertBytes = 0

    package init() {}

    /// Adds an owner's share of a record whose plaintext several owners have.
    mutating func add(_ share: TLSPlaintextLayer.OverheadShare) {
        records += share.records
        recordHeaderBytes += share.headerBytes
        protectionBytes += share.protectionBytes
    }

    /// Adds a record's header (and, for a control record, all of it; for a record with plaintext, its
    /// leading protection bytes).
    mutating func add(_ piece: StreamOffsetMap.Piece) {
        records += 1
        recordHeaderBytes += 5
        switch piece.kind {
        case .payload:
            protectionBytes += Int(piece.dataStart - piece.start) - 5
        case .control:
            let content = Int(piece.end - piece.start) - 5 - Int(piece.protection)
            protectionBytes += Int(piece.protection)
            if piece.contentType == TLSContentType.alert.rawValue { alertBytes += content } else { handshakeBytes += content }
        case .lost:
            break
        }
    }
}

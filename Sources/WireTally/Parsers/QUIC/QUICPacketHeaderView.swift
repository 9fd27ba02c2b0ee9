/// A read-only view of one QUIC packet's header inside a UDP datagram (RFC 8999 invariants, RFC 9000
/// §17, RFC 9369 §3.2), holding only offsets into the borrowed datagram. Built by `init?`, which
/// returns nil when the bytes cannot be a QUIC packet header; it never traps on hostile input.
///
/// Long headers: form bit, fixed bit, 32-bit version, DCID and SCID with their lengths (≤ 20 bytes for
/// v1 and v2), then by type: Initial (token length and token, Length, packet number), 0-RTT and
/// Handshake (Length, packet number), Retry (token and 16-byte integrity tag to the end of the
/// datagram). Version 0 is Version Negotiation (a list of 32-bit versions). Other versions are read as
/// far as the invariants go and run to the end of the datagram. A short header (form bit 0) carries
/// only a DCID, whose length the observer must know from the handshake, and runs to the end.
struct QUICPacketHeaderView {
    enum Kind: Equatable {
        /// A v1/v2 long header of this type.
        case long(QUICLongPacketType)
        /// A long header of a version wiretally does not know (only the invariant fields are read).
        case unknownVersion
        case versionNegotiation
        case short
    }

    /// The whole datagram.
    let bytes: UnsafeRawBufferPointer
    /// Offset of this packet's first byte in the datagram.
    let start: Int
    let kind: Kind
    /// The first byte as sent (still header-protected for Initial, 0-RTT, Handshake and short packets).
    let firstByte: UInt8
    /// Nil for short headers.
    let version: QUICVersion?
    let destinationConnectionID: Range<Int>
    /// Empty for short headers.
    let sourceConnectionID: Range<Int>
    /// The token of an Initial or Retry packet (empty otherwise).
    let token: Range<Int>
    /// Offset of the (protected) packet number: Initial, 0-RTT, Handshake and short packets; else `end`.
    let packetNumberOffset: Int
    /// Offset just past this packet: by the Length field for Initial, 0-RTT and Handshake (the next
    /// coalesced packet starts there); the end of the datagram otherwise.
    let end: Int
    /// The Length field points past the captured datagram (`end` is then clamped to it).
    let truncated: Bool

    /// The fixed bit (0x40): 1 in every v1/v2 packet unless the peers agreed to grease it (RFC 9287).
    var fixedBit: Bool { firstByte & 0x40 != 0 }
    /// Bytes of this packet on the wire.
    var length: Int { end - start }
    var isLongHeader: Bool { kind != .short }

    /// Parses the packet starting at `start` of `datagram`. `shortHeaderDCIDLength` is the DCID length
    /// to assume for a short header (the connection's chosen length, 0 when unknown).
    init?(datagram: UnsafeRawBufferPointer, at start: Int = 0, shortHeaderDCIDLength: Int = 0) {
        var reader = QUICByteReader(datagram, from: start)
        guard start >= 0, start < datagram.count, let first = reader.u8() else { return nil }
        bytes = datagram
        self.start = start
        firstByte = first
        if first & 0x80 == 0 {
            guard let dcid = reader.skip(shortHeaderDCIDLength), reader.remaining > 0 else { return nil }
            kind = .short
            version = nil
            destinationConnectionID = dcid
            sourceConnectionID = dcid.upperBound ..< dcid.upperBound
            token = sourceConnectionID
            packetNumberOffset = dcid.upperBound
            end = datagram.count
            truncated = false
            return
        }
        guard let rawVersion = reader.u32(), let dcidLength = reader.u8(), let dcid = reader.skip(Int(dcidLength)),
              let scidLength = reader.u8(), let scid = reader.skip(Int(scidLength))
        else { return nil }
        let version = QUICVersion(rawValue: rawVersion)
        self.version = version
        destinationConnectionID = dcid
        sourceConnectionID = scid
        let here = scid.upperBound
        // Version Negotiation (a list of 32-bit versions, at least one) and unknown versions take the
        // rest of the datagram.
        let whole: Kind?
        if version == .negotiation {
            guard reader.remaining >= 4, reader.remaining % 4 == 0 else { return nil }
            whole = .versionNegotiation
        } else {
            whole = version.packetType(typeBits: first >> 4) == nil ? .unknownVersion : nil
        }
        if let whole {
            kind = whole
            token = here ..< here
            packetNumberOffset = datagram.count
            end = datagram.count
            truncated = false
            return
        }
        guard let type = version.packetType(typeBits: first >> 4) else { return nil }
        guard dcidLength <= 20, scidLength <= 20 else { return nil }
        kind = .long(type)
        switch type {
        case .retry:
            guard reader.remaining >= 16 else { return nil }
            token = here ..< datagram.count - 16
            packetNumberOffset = datagram.count
            end = datagram.count
            truncated = false
        case .initial, .zeroRTT, .handshake:
            if type == .initial {
                guard let tokenLength = reader.varintCount(), let tokenRange = reader.skip(tokenLength) else { return nil }
                token = tokenRange
            } else {
                token = reader.index ..< reader.index
            }
            guard let length = reader.varintCount(), length >= 1 else { return nil }
            packetNumberOffset = reader.index
            let declaredEnd = reader.index.addingReportingOverflow(length)
            truncated = declaredEnd.overflow || declaredEnd.partialValue > datagram.count
            end = truncated ? datagram.count : declaredEnd.partialValue
        }
    }

    /// The versions a Version Negotiation packet offers (empty for other packets).
    var supportedVersions: [QUICVersion] {
        guard kind == .versionNegotiation else { return [] }
        var reader = QUICByteReader(bytes, from: sourceConnectionID.upperBound, end: end)
        var versions: [QUICVersion] = []
        while let raw = reader.u32() { versions.append(QUICVersion(rawValue: raw)) }
        return versions
    }

    /// Copies of the connection IDs (small: ≤ 20 bytes for v1/v2).
    var destinationConnectionIDBytes: [UInt8] { Array(bytes[destinationConnectionID]) }
    var sourceConnectionIDBytes: [UInt8] { Array(bytes[sourceConnectionID]) }
}

extension QUICPacketHeaderView {
    /// True when `datagram` starts like a QUIC long-header packet of a version wiretally knows (v1, v2)
    /// or a Version Negotiation packet: the test for QUIC on any UDP port.
    static func looksLikeQUIC(_ datagram: UnsafeRawBufferPointer) -> Bool {
        guard let header = QUICPacketHeaderView(datagram: datagram) else { return false }
        switch header.kind {
        case .long: return header.fixedBit
        case .versionNegotiation: return true
        case .unknownVersion, .short: return false
        }
    }
}

/// What one datagram carried, as far as an observer without keys can tell.
public struct QUICDatagramContents: Equatable, Sendable {
    /// Its first packet is an Initial, Handshake, Retry or Version Negotiation packet (or a long
    /// header of an unknown version).
    public var opensWithHandshakePacket = false
    /// Bytes of its 0-RTT and 1-RTT packets past their headers and packet numbers (taken as one byte)
    /// and AEAD tags: the protected frames, as far as an observer without keys can size them.
    public var protectedPayloadBytes = 0
    /// One of its Initial packets carried a CONNECTION_CLOSE (Initial packets are the only ones an
    /// observer without keys can read).
    public var closesConnection = false

    /// AEAD tag length of every QUIC packet (AES-GCM, ChaCha20-Poly1305).
    static let tagLength = 16

    /// The ledger's category of the datagram: `teardown` with a CONNECTION_CLOSE, else `setup` when it
    /// opens with a handshake packet, else `payload` (protected 0-RTT/1-RTT packets, whatever they carry).
    public var category: PacketCategory {
        closesConnection ? .teardown : opensWithHandshakePacket ? .setup : .payload
    }
}

/// A connection ID the long headers showed, and which endpoint chose it (the one that receives
/// packets addressed to it). The client's first Destination Connection ID counts as the server's.
struct QUICSeenConnectionID: Equatable {
    var bytes: [UInt8]
    var chosenByClient: Bool
}

/// Follows one QUIC connection from its UDP payloads in both directions, without keys: parses every
/// packet header (walking coalesced packets by their Length), decrypts the Initial packets with the
/// keys derived from the client's first Destination Connection ID, reassembles the CRYPTO streams and
/// reads the ClientHello and ServerHello with TLSHello's parsers, and a CONNECTION_CLOSE in an Initial.
/// Counts packets and bytes per packet-number space. Never traps on hostile input; work is bounded
/// (at most `maxInitialDecryptions` Initial packets are decrypted).
public final class QUICConnectionObserver {
    static let maxInitialDecryptions = 64
    static let maxSourceConnectionIDs = 8

    public private(set) var info = QUICConnectionInfo()
    /// The DCID the Initial keys derive from (the client's first, or its first after a Retry).
    private var keyConnectionID: [UInt8]?
    private var keys: QUICInitialKeys?
    private var awaitingInitialAfterRetry = false
    private var largestInitialPacketNumber: [UInt64?] = [nil, nil]
    private var cryptoStreams = [QUICCryptoStream(), QUICCryptoStream()]
    private var decryptionAttempts = 0
    /// The SCID lengths each side chose (a short header's DCID is the peer's SCID).
    private var clientSCIDLength: Int?
    private var serverSCIDLength: Int?
    /// The original DCID, then the Source Connection IDs of long headers, in the order first seen
    /// (at most `maxSourceConnectionIDs` + 1).
    private(set) var seenConnectionIDs: [QUICSeenConnectionID] = []
    /// What the datagram being observed carried.
    private var contents = QUICDatagramContents()

    public init() {}

    /// True once a v1/v2 long header or Version Negotiation packet was seen.
    public var isQUIC: Bool { info.version != nil || info.versionNegotiationSeen }

    /// One UDP payload; `fromClient` is its direction.
    @discardableResult
    public func observe(_ datagram: UnsafeRawBufferPointer, fromClient: Bool) -> QUICDatagramContents {
        contents = QUICDatagramContents()
        walk(datagram, fromClient: fromClient)
        return contents
    }

    /// Convenience for byte arrays (tests).
    @discardableResult
    public func observe(_ datagram: [UInt8], fromClient: Bool) -> QUICDatagramContents {
        datagram.withUnsafeBytes { observe($0, fromClient: fromClient) }
    }

    /// The length of the connection IDs the client (`ofClient`) or the server chose, as long headers
    /// showed it: a short header's DCID is its receiver's.
    func connectionIDLength(ofClient: Bool) -> Int? { ofClient ? clientSCIDLength : serverSCIDLength }

    /// True when `id` is one the connection's long headers showed (the original DCID included).
    func knows(_ id: UnsafeRawBufferPointer) -> Bool {
        seenConnectionIDs.contains { $0.bytes.elementsEqual(id) }
    }

    private func walk(_ datagram: UnsafeRawBufferPointer, fromClient: Bool) {
        var offset = 0
        while offset < datagram.count {
            let dcidLength = (fromClient ? serverSCIDLength : clientSCIDLength) ?? 0
            guard let header = QUICPacketHeaderView(datagram: datagram, at: offset, shortHeaderDCIDLength: dcidLength)
            else { return }
            // past the first packet, zero bytes are padding of the datagram, not packets
            if offset > 0, header.firstByte == 0 { return }
            if offset == 0 { contents.opensWithHandshakePacket = header.isLongHeader && header.kind != .long(.zeroRTT) }
            handle(header, fromClient: fromClient)
            guard header.end > offset else { return }
            offset = header.end
        }
    }

    private func handle(_ header: QUICPacketHeaderView, fromClient: Bool) {
        switch header.kind {
        case .short:
            guard isQUIC, header.fixedBit else { return }
            count(.oneRTT, header.length, fromClient: fromClient)
            noteProtectedPayload(header)
        case .versionNegotiation:
            info.versionNegotiationSeen = true
            info.offeredVersions = header.supportedVersions
        case .unknownVersion:
            if isQUIC { info.flags.insert("unknown_version") }
        case let .long(type):
            guard header.fixedBit || isQUIC else { return }
            info.version = header.version
            noteSourceConnectionID(header, fromClient: fromClient)
            if header.truncated { info.flags.insert("truncated_packet") }
            switch type {
            case .retry:
                info.retrySeen = true
                awaitingInitialAfterRetry = true
            case .handshake:
                count(.handshake, header.length, fromClient: fromClient)
            case .zeroRTT:
                count(.zeroRTT, header.length, fromClient: fromClient)
                noteProtectedPayload(header)
            case .initial:
                count(.initial, header.length, fromClient: fromClient)
                initial(header, fromClient: fromClient)
            }
        }
    }

    private func noteProtectedPayload(_ header: QUICPacketHeaderView) {
        contents.protectedPayloadBytes += max(0, header.end - header.packetNumberOffset - 1 - QUICDatagramContents.tagLength)
    }

    private func count(_ space: QUICPacketSpace, _ length: Int, fromClient: Bool) {
        if fromClient { info.up[space, default: QUICPacketCounters()].add(length) }
        else { info.down[space, default: QUICPacketCounters()].add(length) }
    }

    private func noteSourceConnectionID(_ header: QUICPacketHeaderView, fromClient: Bool) {
        if fromClient { clientSCIDLength = header.sourceConnectionID.count }
        else { serverSCIDLength = header.sourceConnectionID.count }
        let scid = header.sourceConnectionIDBytes
        if !info.sourceConnectionIDs.contains(scid), info.sourceConnectionIDs.count < Self.maxSourceConnectionIDs {
            info.sourceConnectionIDs.append(scid)
            if !scid.isEmpty { seenConnectionIDs.append(QUICSeenConnectionID(bytes: scid, chosenByClient: fromClient)) }
        }
    }

    /// Decrypts an Initial packet and feeds its CRYPTO frames to the direction's stream.
    private func initial(_ header: QUICPacketHeaderView, fromClient: Bool) {
        guard let version = header.version else { return }
        if fromClient, info.originalDestinationConnectionID == nil {
            let dcid = header.destinationConnectionIDBytes
            info.originalDestinationConnectionID = dcid
            if !dcid.isEmpty { seenConnectionIDs.append(QUICSeenConnectionID(bytes: dcid, chosenByClient: false)) }
        }
        if fromClient, keyConnectionID == nil || awaitingInitialAfterRetry {
            keyConnectionID = header.destinationConnectionIDBytes
            keys = nil
            awaitingInitialAfterRetry = false
        }
        guard decryptionAttempts < Self.maxInitialDecryptions, let keyConnectionID
        else { return }
        decryptionAttempts += 1
        if keys?.version != version { keys = QUICInitialKeys(version: version, clientDestinationConnectionID: keyConnectionID) }
        guard let keys else { return }
        let side = fromClient ? 0 : 1
        var opened = QUICPacketProtection.open(
            header, keys: fromClient ? keys.client : keys.server, largestPacketNumber: largestInitialPacketNumber[side])
        if opened == nil, fromClient, header.destinationConnectionIDBytes != keyConnectionID,
           let own = QUICInitialKeys(version: version, clientDestinationConnectionID: header.destinationConnectionIDBytes),
           let retried = QUICPacketProtection.open(header, keys: own.client, largestPacketNumber: nil)
        {
            // a new connection on the same addresses and ports: follow it
            self.keyConnectionID = header.destinationConnectionIDBytes
            self.keys = own
            opened = retried
        }
        guard let opened else {
            info.flags.insert("undecryptable_initial")
            return
        }
        largestInitialPacketNumber[side] = max(largestInitialPacketNumber[side] ?? 0, opened.packetNumber)
        if fromClient { info.decryptedInitialsUp += 1 } else { info.decryptedInitialsDown += 1 }
        let frames = QUICFrameWalker.walk(opened.plaintext)
        if frames.malformed { info.flags.insert("malformed_frame") }
        if frames.stoppedAtFrameType != nil { info.flags.insert("unexpected_frame") }
        if let error = frames.connectionCloseError {
            contents.closesConnection = true
            if info.close == nil { info.close = QUICConnectionClose(errorCode: error, byClient: fromClient) }
        }
        for crypto in frames.crypto {
            for message in cryptoStreams[side].add(offset: crypto.offset, data: crypto.data) {
                read(message, fromClient: fromClient)
            }
        }
        if cryptoStreams[side].overflowed { info.flags.insert("crypto_buffer_overflow") }
    }

    private func read(_ message: (type: UInt8, body: [UInt8]), fromClient: Bool) {
        if fromClient, message.type == 1, info.clientHello == nil, let hello = TLSHelloParser.clientHello(message.body) {
            info.clientHello = hello
            info.transportParameters = hello.quicTransportParameters.map(QUICTransportParameters.ids) ?? []
            info.clientMaxIdleTimeoutMilliseconds = hello.quicTransportParameters.flatMap {
                QUICTransportParameters.integer(QUICTransportParameters.maxIdleTimeout, in: $0)
            }
        } else if !fromClient, message.type == 2, info.serverHello == nil,
                  let hello = TLSHelloParser.serverHello(message.body)
        {
            info.serverHello = hello
        }
    }
}

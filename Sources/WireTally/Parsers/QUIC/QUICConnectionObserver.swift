/// Follows one QUIC connection from its UDP payloads in both directions, without keys: parses every
/// packet header (walking coalesced packets by their Length), decrypts the Initial packets with the
/// keys derived from the client's first Destination Connection ID, reassembles the CRYPTO streams and
/// reads the ClientHello and ServerHello with TLSHello's parsers. Counts packets and bytes per
/// packet-number space. Never traps on hostile input; work is bounded (Initial decryption stops once
/// both hellos are read, or after `maxInitialDecryptions` attempts).
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

    public init() {}

    /// True once a v1/v2 long header or Version Negotiation packet was seen.
    public var isQUIC: Bool { info.version != nil || info.versionNegotiationSeen }

    /// One UDP payload; `fromClient` is its direction.
    public func observe(_ datagram: UnsafeRawBufferPointer, fromClient: Bool) {
        var offset = 0
        while offset < datagram.count {
            let dcidLength = (fromClient ? serverSCIDLength : clientSCIDLength) ?? 0
            guard let header = QUICPacketHeaderView(datagram: datagram, at: offset, shortHeaderDCIDLength: dcidLength)
            else { return }
            // past the first packet, zero bytes are padding of the datagram, not packets
            if offset > 0, header.firstByte == 0 { return }
            handle(header, fromClient: fromClient)
            guard header.end > offset else { return }
            offset = header.end
        }
    }

    /// Convenience for byte arrays (tests).
    public func observe(_ datagram: [UInt8], fromClient: Bool) {
        datagram.withUnsafeBytes { observe($0, fromClient: fromClient) }
    }

    private func handle(_ header: QUICPacketHeaderView, fromClient: Bool) {
        switch header.kind {
        case .short:
            guard isQUIC, header.fixedBit else { return }
            count(.oneRTT, header.length, fromClient: fromClient)
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
            case .initial:
                count(.initial, header.length, fromClient: fromClient)
                initial(header, fromClient: fromClient)
            }
        }
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
        }
    }

    /// Decrypts an Initial packet and feeds its CRYPTO frames to the direction's stream.
    private func initial(_ header: QUICPacketHeaderView, fromClient: Bool) {
        guard let version = header.version else { return }
        if fromClient, info.originalDestinationConnectionID == nil {
            info.originalDestinationConnectionID = header.destinationConnectionIDBytes
        }
        if fromClient, keyConnectionID == nil || awaitingInitialAfterRetry {
            keyConnectionID = header.destinationConnectionIDBytes
            keys = nil
            awaitingInitialAfterRetry = false
        }
        guard info.clientHello == nil || info.serverHello == nil,
              decryptionAttempts < Self.maxInitialDecryptions, let keyConnectionID
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
        } else if !fromClient, message.type == 2, info.serverHello == nil,
                  let hello = TLSHelloParser.serverHello(message.body)
        {
            info.serverHello = hello
        }
    }
}

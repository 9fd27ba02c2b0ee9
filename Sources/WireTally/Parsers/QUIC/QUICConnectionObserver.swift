/// What one datagram carried: every packet as the observer read it (decrypted with keys), and what an
/// observer without keys can tell.
package struct QUICDatagramContents: Equatable, Sendable {
    /// Its first packet is an Initial, Handshake, Retry or Version Negotiation packet (or a long
    /// header of an unknown version).
    package var opensWithHandshakePacket = false
    /// Bytes of its 0-RTT and 1-RTT packets past their headers and packet numbers (taken as one byte)
    /// and AEAD tags: the protected frames, as far as an observer without keys can size them.
    package var protectedPayloadBytes = 0
    /// One of its packets carried a CONNECTION_CLOSE (without keys only Initial packets can be read).
    package var closesConnection = false
    /// The datagram is a stateless reset (RFC 9000 §10.3): a short-header-looking datagram ending with a
    /// reset token its sender issued (in its transport parameters or a NEW_CONNECTION_ID frame: only
    /// known with keys). It also `closesConnection`.
    package var isStatelessReset = false
    /// The client's TLS Finished (Handshake level) became complete in it: the client's handshake is
    /// done (only known with keys).
    package var completesClientFinished = false
    /// Every packet of the datagram, in order (Σ `range.count` + `trailingBytes` = the UDP payload).
    var packets: [QUICPacketRecord] = []
    /// Datagram bytes after its last packet (aioquic pads datagrams with Initials with zero bytes).
    var trailingBytes = 0

    /// The ledger's category of the datagram: `teardown` with a CONNECTION_CLOSE, else `setup` when it
    /// opens with a handshake packet, else `payload` (protected 0-RTT/1-RTT packets, whatever they carry).
    package var category: PacketCategory {
        closesConnection ? .teardown : opensWithHandshakePacket ? .setup : .payload
    }
}

/// A connection ID the long headers showed, and which endpoint chose it (the one that receives
/// packets addressed to it). The client's first Destination Connection ID counts as the server's.
struct QUICSeenConnectionID: Equatable {
    var bytes: [UInt8]
    var chosenByClient: Bool
}

/// Follows one QUIC connection from its UDP payloads in both directions: parses every packet header
/// (walking coalesced packets by their Length), decrypts the Initial packets with the keys derived from
/// the client's first Destination Connection ID, and — given a TLS key store — the Handshake, 0-RTT and
/// 1-RTT packets (`QUICPacketDecryptor`); reads every frame of what it decrypted (`QUICFrameParser`),
/// reassembles the Initial and Handshake CRYPTO streams and reads the ClientHello, ServerHello and
/// EncryptedExtensions with TLSHello's parsers, and CONNECTION_CLOSE frames. Counts packets and bytes
/// per packet-number space, and decrypted packets. Never traps on hostile input; work per datagram is
/// bounded (one trial per packet and key candidate; at most `maxInitialDecryptions` Initial packets).
package final class QUICConnectionObserver {
    static let maxInitialDecryptions = 64
    static let maxSourceConnectionIDs = 8
    /// Connection IDs taken from NEW_CONNECTION_ID frames (with keys), both sides together.
    static let maxIssuedConnectionIDs = 32
    /// Stateless reset tokens remembered per issuing side.
    static let maxStatelessResetTokens = 16

    package private(set) var info = QUICConnectionInfo()
    /// The DCID the Initial keys derive from (the client's first, or its first after a Retry).
    private var keyConnectionID: [UInt8]?
    private var keys: QUICInitialKeys?
    private var awaitingInitialAfterRetry = false
    private var largestInitialPacketNumber: [UInt64?] = [nil, nil]
    /// The CRYPTO streams of the Initial (0) and Handshake (1) levels, per direction (0 client).
    private var cryptoStreams = [[QUICCryptoStream(), QUICCryptoStream()], [QUICCryptoStream(), QUICCryptoStream()]]
    private var decryptionAttempts = 0
    private var issuedConnectionIDs = 0
    /// Stateless reset tokens the client (0) and the server (1) issued (RFC 9000 §10.3).
    private var statelessResetTokens: [[[UInt8]]] = [[], []]
    /// Decrypts the other packets with a key log; nil without one.
    private var decryptor: QUICPacketDecryptor?
    /// The SCID lengths each side chose (a short header's DCID is the peer's SCID).
    private var clientSCIDLength: Int?
    private var serverSCIDLength: Int?
    /// The original DCID, then the Source Connection IDs of long headers, in the order first seen
    /// (at most `maxSourceConnectionIDs` + 1), and with keys the IDs NEW_CONNECTION_ID frames issued
    /// (at most `maxIssuedConnectionIDs`).
    private(set) var seenConnectionIDs: [QUICSeenConnectionID] = []
    /// What the datagram being observed carried.
    private var contents = QUICDatagramContents()

    /// An observer that decrypts what `keys` (a key log) has secrets for: Handshake, 0-RTT and 1-RTT
    /// packets; without keys only Initial packets.
    package init(keys: TLSKeyStore? = nil) {
        decryptor = keys.map { QUICPacketDecryptor(store: $0) }
        if keys != nil { info.decryption = QUICDecryptionCounts() }
    }

    /// True once a v1/v2 long header or Version Negotiation packet was seen.
    package var isQUIC: Bool { info.version != nil || info.versionNegotiationSeen }

    /// One UDP payload; `fromClient` is its direction.
    @discardableResult
    package func observe(_ datagram: UnsafeRawBufferPointer, fromClient: Bool) -> QUICDatagramContents {
        contents = QUICDatagramContents()
        walk(datagram, fromClient: fromClient)
        return contents
    }

    /// Convenience for byte arrays (tests).
    @discardableResult
    package func observe(_ datagram: [UInt8], fromClient: Bool) -> QUICDatagramContents {
        datagram.withUnsafeBytes { observe($0, fromClient: fromClient) }
    }

    /// True when `id` is one the connection's long headers showed (the original DCID included).
    func knows(_ id: UnsafeRawBufferPointer) -> Bool {
        seenConnectionIDs.contains { $0.bytes.elementsEqual(id) }
    }

    private func walk(_ datagram: UnsafeRawBufferPointer, fromClient: Bool) {
        var offset = 0
        while offset < datagram.count {
            let dcidLength = (fromClient ? serverSCIDLength : clientSCIDLength) ?? 0
            guard let header = QUICPacketHeaderView(datagram: datagram, at: offset, shortHeaderDCIDLength: dcidLength)
            else { break }
            // past the first packet, zero bytes are padding of the datagram, not packets
            if offset > 0, header.firstByte == 0 { break }
            if offset == 0 { contents.opensWithHandshakePacket = header.isLongHeader && header.kind != .long(.zeroRTT) }
            contents.packets.append(handle(header, fromClient: fromClient))
            guard header.end > offset else { break }
            offset = header.end
        }
        contents.trailingBytes = datagram.count - offset
    }

    private func handle(_ header: QUICPacketHeaderView, fromClient: Bool) -> QUICPacketRecord {
        switch header.kind {
        case .short:
            guard isQUIC, header.fixedBit else { return QUICPacketRecord(header, space: nil) }
            if isStatelessReset(header, fromClient: fromClient) {
                contents.isStatelessReset = true
                contents.closesConnection = true
                info.flags.insert(fromClient ? "stateless_reset_by_client" : "stateless_reset_by_server")
                return QUICPacketRecord(header, space: nil)
            }
            count(.oneRTT, header.length, fromClient: fromClient)
            noteProtectedPayload(header)
            return decrypt(header, space: .oneRTT, fromClient: fromClient)
        case .versionNegotiation:
            info.versionNegotiationSeen = true
            info.offeredVersions = header.supportedVersions
        case .unknownVersion:
            if isQUIC { info.flags.insert("unknown_version") }
        case let .long(type):
            guard header.fixedBit || isQUIC else { return QUICPacketRecord(header, space: nil) }
            info.version = header.version
            noteSourceConnectionID(header, fromClient: fromClient)
            if header.truncated { info.flags.insert("truncated_packet") }
            switch type {
            case .retry:
                info.retrySeen = true
                awaitingInitialAfterRetry = true
            case .handshake:
                count(.handshake, header.length, fromClient: fromClient)
                return decrypt(header, space: .handshake, fromClient: fromClient)
            case .zeroRTT:
                count(.zeroRTT, header.length, fromClient: fromClient)
                noteProtectedPayload(header)
                return decrypt(header, space: .zeroRTT, fromClient: fromClient)
            case .initial:
                count(.initial, header.length, fromClient: fromClient)
                return initial(header, fromClient: fromClient)
            }
        }
        return QUICPacketRecord(header, space: nil)
    }

    private func noteProtectedPayload(_ header: QUICPacketHeaderView) {
        contents.protectedPayloadBytes += max(0, header.end - header.packetNumberOffset - 1 - QUICPacketProtection.tagLength)
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

    /// True when the short-header `header` (which runs to the end of its datagram) is at least 21 bytes
    /// and ends with a stateless reset token its sender issued.
    private func isStatelessReset(_ header: QUICPacketHeaderView, fromClient: Bool) -> Bool {
        let tokens: [[UInt8]] = statelessResetTokens[fromClient ? 0 : 1]
        guard !tokens.isEmpty, header.length >= 21 else { return false }
        let tail = UnsafeRawBufferPointer(rebasing: header.bytes[header.end - 16 ..< header.end])
        return tokens.contains(where: { (token: [UInt8]) in token.elementsEqual(tail) })
    }

    /// Remembers a stateless reset token issued by the client (`byClient`) or the server.
    private func noteStatelessResetToken(_ token: [UInt8], byClient: Bool) {
        let side = byClient ? 0 : 1
        guard token.count == 16, statelessResetTokens[side].count < Self.maxStatelessResetTokens,
              !statelessResetTokens[side].contains(where: { $0 == token }) else { return }
        statelessResetTokens[side].append(token)
    }

    /// Decrypts a Handshake, 0-RTT or 1-RTT packet with the key log, when the observer has one.
    private func decrypt(_ header: QUICPacketHeaderView, space: QUICPacketSpace, fromClient: Bool) -> QUICPacketRecord {
        var record = QUICPacketRecord(header, space: space)
        // mutated in place (optional chaining): no copy of its state per packet
        guard let version = header.version ?? info.version,
              let result = decryptor?.open(header, space: space, version: version, fromClient: fromClient,
                                           clientHello: info.clientHello, serverHello: info.serverHello)
        else { return record }
        info.decryption?.note(result)
        info.decryption?.keyUpdatesUp = decryptor?.keyUpdates(fromClient: true) ?? 0
        info.decryption?.keyUpdatesDown = decryptor?.keyUpdates(fromClient: false) ?? 0
        switch result {
        case let .opened(opened):
            record.take(opened)
            read(record, fromClient: fromClient)
        case .failed:
            info.flags.insert("decrypt_failed")
        case .noKey:
            break
        }
        return record
    }

    /// Decrypts an Initial packet with the keys of the client's first DCID.
    private func initial(_ header: QUICPacketHeaderView, fromClient: Bool) -> QUICPacketRecord {
        var record = QUICPacketRecord(header, space: .initial)
        guard let version = header.version else { return record }
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
        else { return record }
        decryptionAttempts += 1
        if keys?.version != version { keys = QUICInitialKeys(version: version, clientDestinationConnectionID: keyConnectionID) }
        guard let keys else { return record }
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
            return record
        }
        largestInitialPacketNumber[side] = max(largestInitialPacketNumber[side] ?? 0, opened.packetNumber)
        record.take(opened)
        read(record, fromClient: fromClient)
        return record
    }

    /// Counts a decrypted packet and reads its frames: CRYPTO data of the Initial and Handshake levels
    /// into their streams, CONNECTION_CLOSE; flags frame types its space does not allow (RFC 9000
    /// §12.4: Initial and Handshake packets carry only PADDING, PING, ACK, CRYPTO and transport
    /// CONNECTION_CLOSE) and a walk that stopped early.
    private func read(_ record: QUICPacketRecord, fromClient: Bool) {
        guard let space = record.space else { return }
        if fromClient { info.decryptedUp[space, default: 0] += 1 } else { info.decryptedDown[space, default: 0] += 1 }
        if let error = record.frameError { info.flags.insert(error.unknownType ? "unexpected_frame" : "malformed_frame") }
        let level: Int? = space == .initial ? 0 : space == .handshake ? 1 : nil
        let side = fromClient ? 0 : 1
        for frame in record.frames {
            switch frame.kind {
            case let .crypto(offset, data):
                guard let level, offset < UInt64(Int.max) else { continue }
                for message in cryptoStreams[level][side].add(offset: Int(offset), data: record.plaintext[data]) {
                    read(message, level: level, fromClient: fromClient)
                }
                if cryptoStreams[level][side].overflowed { info.flags.insert("crypto_buffer_overflow") }
            case let .connectionClose(errorCode, frameType, _):
                if level != nil, frameType == nil { info.flags.insert("unexpected_frame") }
                contents.closesConnection = true
                if info.close == nil {
                    info.close = QUICConnectionClose(errorCode: errorCode, byClient: fromClient, isApplication: frameType == nil)
                }
            case let .newConnectionID(_, _, id) where id.upperBound + 16 <= record.plaintext.count:
                noteStatelessResetToken(Array(record.plaintext[id.upperBound ..< id.upperBound + 16]), byClient: fromClient)
                // an ID its sender will receive packets on (a path it may migrate to)
                let issued = Array(record.plaintext[id])
                if issuedConnectionIDs < Self.maxIssuedConnectionIDs, !seenConnectionIDs.contains(where: { $0.bytes == issued }) {
                    issuedConnectionIDs += 1
                    seenConnectionIDs.append(QUICSeenConnectionID(bytes: issued, chosenByClient: fromClient))
                }
            case .padding, .ping, .ack:
                break
            default:
                if level != nil { info.flags.insert("unexpected_frame") }
            }
        }
    }

    /// A complete handshake message of the Initial (0) or Handshake (1) level.
    private func read(_ message: (type: UInt8, body: [UInt8]), level: Int, fromClient: Bool) {
        switch (message.type, fromClient, level) {
        case (1, true, 0) where info.clientHello == nil:
            guard let hello = TLSHelloParser.clientHello(message.body) else { return }
            info.clientHello = hello
            info.transportParameters = hello.quicTransportParameters.map(QUICTransportParameters.ids) ?? []
            info.clientMaxIdleTimeoutMilliseconds = hello.quicTransportParameters.flatMap {
                QUICTransportParameters.integer(QUICTransportParameters.maxIdleTimeout, in: $0)
            }
        case (20, true, 1):
            contents.completesClientFinished = true
        case (2, false, 0) where info.serverHello == nil:
            info.serverHello = TLSHelloParser.serverHello(message.body)
        case (8, false, 1) where !info.sawEncryptedExtensions:
            info.sawEncryptedExtensions = true
            info.negotiatedALPN = TLSHelloParser.encryptedExtensionsALPN(message.body)
            if let parameters = TLSHelloParser.encryptedExtensionsQUICTransportParameters(message.body),
               let token = QUICTransportParameters.value(QUICTransportParameters.statelessResetToken, in: parameters) {
                noteStatelessResetToken(token, byClient: false)
            }
        default:
            break
        }
    }
}

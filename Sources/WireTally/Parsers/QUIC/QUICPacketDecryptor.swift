/// What became of one protected packet given to `QUICPacketDecryptor`.
enum QUICDecryptResult {
    case opened(QUICOpenedPacket)
    /// No secret (yet) for its level, or no cipher suite known: left undecrypted.
    case noKey
    /// Keys were there but the AEAD did not open it (wrong key, damaged bytes) or it was too short.
    case failed
}

/// Decrypts the Handshake, 0-RTT and 1-RTT packets of one QUIC connection with the TLS 1.3 traffic
/// secrets a key log has for it (found by the ClientHello's random). The cipher suite is the
/// ServerHello's; 0-RTT packets that come before it try the TLS 1.3 suites the ClientHello offered, in
/// order, and the first that opens one is kept. Packet numbers decode against the largest opened per
/// direction and space (Handshake; application data, shared by 0-RTT and 1-RTT); 1-RTT keys follow key
/// updates (`QUICKeyPhases`). A store that grows while capturing is asked again while a secret is
/// missing: packets before their secret stay undecrypted. Initial packets are not its job (their keys
/// come from the connection ID: `QUICInitialKeys`).
struct QUICPacketDecryptor {
    private let store: TLSKeyStore
    private var secrets: TLSKeyLog.Secrets?
    private var lookedUp = false
    /// Per direction (0 client, 1 server).
    private var handshakeKeys: [QUICPacketKeys?] = [nil, nil]
    private var earlyKeys: QUICPacketKeys?
    private var applicationKeys: [QUICKeyPhases?] = [nil, nil]
    /// Largest packet number opened, per direction and space: index 2 × side + space, space 0 the
    /// Handshake space, 1 the application data space.
    private var largest: [UInt64?] = [nil, nil, nil, nil]

    /// The ServerHello's cipher suite, by its code.
    private var serverSuite: (code: UInt16, suite: TLSCipherSuite)?

    init(store: TLSKeyStore) { self.store = store }

    /// Key updates the client (`fromClient`) or the server made, as seen in its 1-RTT packets.
    func keyUpdates(fromClient: Bool) -> Int { applicationKeys[fromClient ? 0 : 1]?.updates ?? 0 }

    /// Decrypts the Handshake, 0-RTT or short-header packet `header` of `version`, sent by the client
    /// (`fromClient`) or the server, given the connection's hellos so far.
    mutating func open(_ header: QUICPacketHeaderView, space: QUICPacketSpace, version: QUICVersion, fromClient: Bool,
                       clientHello: TLSClientHello?, serverHello: TLSServerHello?) -> QUICDecryptResult {
        let side = fromClient ? 0 : 1
        let suite = suite(of: serverHello)
        switch space {
        case .initial:
            return .noKey
        case .handshake:
            if handshakeKeys[side]?.version != version {
                let path = fromClient ? \TLSKeyLog.Secrets.clientHandshakeTraffic : \.serverHandshakeTraffic
                handshakeKeys[side] = secret(path, clientHello).flatMap { secret in
                    suite.flatMap { QUICPacketKeys(secret: secret, suite: $0, version: version) }
                }
            }
            guard let keys = handshakeKeys[side] else { return .noKey }
            return open(header, keys, side: side, space: 0)
        case .zeroRTT:
            return openEarly(header, version: version, clientHello: clientHello, suite: suite)
        case .oneRTT:
            if applicationKeys[side]?.current.version != version {
                let path = fromClient ? \TLSKeyLog.Secrets.clientApplicationTraffic : \.serverApplicationTraffic
                applicationKeys[side] = secret(path, clientHello).flatMap { secret in
                    suite.flatMap { QUICPacketKeys(secret: secret, suite: $0, version: version) }
                }.map(QUICKeyPhases.init)
            }
            guard applicationKeys[side] != nil else { return .noKey }
            return openApplication(header, side: side)
        }
    }

    /// The ServerHello's cipher suite (kept: working it out from its name is not for every packet).
    private mutating func suite(of serverHello: TLSServerHello?) -> TLSCipherSuite? {
        guard let code = serverHello?.cipherSuite else { return nil }
        if let known = serverSuite, known.code == code { return known.suite }
        let suite = TLSCipherSuite(code: code)
        serverSuite = (code, suite)
        return suite
    }

    /// The secret at `path`, looked up by the ClientHello's random: once, or again while it is missing
    /// from a store that grows.
    private mutating func secret(_ path: KeyPath<TLSKeyLog.Secrets, [UInt8]?>, _ clientHello: TLSClientHello?) -> [UInt8]? {
        if let secret = secrets?[keyPath: path] { return secret }
        guard let random = clientHello?.random, !random.isEmpty, !lookedUp || store.isGrowing else { return nil }
        lookedUp = true
        secrets = store.secrets(clientRandom: random)
        return secrets?[keyPath: path]
    }

    /// Opens `header` with `keys` in packet-number `space` of direction `side`.
    private mutating func open(_ header: QUICPacketHeaderView, _ keys: QUICPacketKeys, side: Int, space: Int) -> QUICDecryptResult {
        guard let unprotected = QUICPacketProtection.unprotect(header, keys: keys) else { return .failed }
        let packetNumber = decode(unprotected, side: side, space: space)
        guard let plaintext = QUICPacketProtection.openPayload(header, unprotected, packetNumber: packetNumber, keys: keys)
        else { return .failed }
        return opened(header, unprotected, packetNumber, plaintext, side: side, space: space)
    }

    /// 0-RTT (client only): the ServerHello's suite, else the ClientHello's TLS 1.3 suites in order until
    /// one opens a packet (then kept).
    private mutating func openEarly(_ header: QUICPacketHeaderView, version: QUICVersion, clientHello: TLSClientHello?,
                                    suite: TLSCipherSuite?) -> QUICDecryptResult {
        if let keys = earlyKeys, keys.version == version { return open(header, keys, side: 0, space: 1) }
        guard let secret = secret(\.clientEarlyTraffic, clientHello) else { return .noKey }
        let offered = (clientHello?.cipherSuites ?? []).filter { (0x1301 ... 0x1303).contains($0) }.map(TLSCipherSuite.init(code:))
        let suites = suite.map { [$0] } ?? offered
        for suite in suites {
            guard let keys = QUICPacketKeys(secret: secret, suite: suite, version: version) else { continue }
            let result = open(header, keys, side: 0, space: 1)
            if case .opened = result {
                earlyKeys = keys
                return result
            }
        }
        return suites.isEmpty ? .noKey : .failed
    }

    /// 1-RTT: header protection with the (unchanging) header-protection key, then the key generation
    /// its key phase bit and packet number point to.
    private mutating func openApplication(_ header: QUICPacketHeaderView, side: Int) -> QUICDecryptResult {
        guard var phases = applicationKeys[side],
              let unprotected = QUICPacketProtection.unprotect(header, keys: phases.current)
        else { return .failed }
        let packetNumber = decode(unprotected, side: side, space: 1)
        defer { applicationKeys[side] = phases }
        for generation in phases.candidates(phase: unprotected.keyPhase, packetNumber: packetNumber) {
            guard let keys = phases.keys(generation),
                  let plaintext = QUICPacketProtection.openPayload(header, unprotected, packetNumber: packetNumber, keys: keys)
            else { continue }
            phases.opened(packetNumber: packetNumber, with: generation)
            return opened(header, unprotected, packetNumber, plaintext, side: side, space: 1)
        }
        return .failed
    }

    private func decode(_ unprotected: QUICUnprotectedHeader, side: Int, space: Int) -> UInt64 {
        QUICPacketProtection.decodePacketNumber(truncated: unprotected.truncatedPacketNumber,
                                                length: unprotected.packetNumberLength, largest: largest[2 * side + space])
    }

    private mutating func opened(_ header: QUICPacketHeaderView, _ unprotected: QUICUnprotectedHeader, _ packetNumber: UInt64,
                                 _ plaintext: [UInt8], side: Int, space: Int) -> QUICDecryptResult {
        largest[2 * side + space] = max(largest[2 * side + space] ?? 0, packetNumber)
        return .opened(QUICOpenedPacket(unprotected, packetNumber: packetNumber, plaintext: plaintext, header: header))
    }
}

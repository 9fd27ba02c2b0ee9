/// Records of one content type on one direction: how many and their bytes on the stream (5-byte
/// header included).
package struct TLSRecordTally: Hashable, Sendable {
    package var records = 0
    package var bytes = 0
    package init() {}
}

/// One direction's TLS records.
package struct TLSDirectionStats: Hashable, Sendable {
    /// Handshake records as sent on the wire (type 22; SSL 2.0-format ClientHello included).
    package var handshake = TLSRecordTally()
    package var changeCipherSpec = TLSRecordTally()
    package var alert = TLSRecordTally()
    /// Records of type 23 on the wire. In TLS 1.3 this includes the encrypted handshake (counted again
    /// in `encryptedHandshake`).
    package var applicationData = TLSRecordTally()
    /// Heartbeat records (type 24).
    package var heartbeat = TLSRecordTally()
    /// TLS 1.3 records of type 23 that carry the handshake (server's EncryptedExtensions…Finished,
    /// client's Finished) or post-handshake messages before the first request (NewSessionTicket): a
    /// subset of `applicationData`.
    package var encryptedHandshake = TLSRecordTally()
    /// Record headers: 5 bytes per record (2 for an SSL 2.0-format ClientHello).
    package var headerBytes = 0
    /// Estimated bytes spent on protection (explicit nonce/IV, AEAD tag or MAC, CBC padding, TLS 1.3
    /// inner content type) over the protected records: see `TLSCipherSuite.protectionOverhead`.
    package var protectionOverheadBytes = 0
    /// Records whose protection overhead was estimated (protected records with a known suite).
    package var protectedRecords = 0

    package init() {}

    /// All records and their bytes.
    package var total: TLSRecordTally {
        var sum = TLSRecordTally()
        for tally in [handshake, changeCipherSpec, alert, applicationData, heartbeat] {
            sum.records += tally.records
            sum.bytes += tally.bytes
        }
        return sum
    }
}

/// An alert seen on the connection.
package struct TLSAlertInfo: Hashable, Sendable {
    package var direction: FlowDirection
    /// Level (1 warning, 2 fatal) and description (0 close_notify, 40 handshake_failure…) when the alert
    /// was in clear; nil when encrypted.
    package var level: UInt8?
    package var description: UInt8?
    package var origin: PacketOrigin
    package var isEncrypted: Bool { level == nil }
}

/// Where `TLSSessionInfo.alpn` comes from.
package enum TLSALPNSource: String, Sendable {
    /// The ServerHello's ALPN extension (TLS ≤ 1.2).
    case serverHello = "server_hello"
    /// TLS 1.3: the server's choice is encrypted; the ClientHello offered exactly this one protocol.
    case onlyOffered = "only_offered"
    /// TLS 1.3 with several protocols offered: the choice is encrypted and unknown (`alpn` nil).
    case unknown
    /// TLS 1.3 with keys: the decrypted EncryptedExtensions (nil `alpn`: the server selected none).
    case encryptedExtensions = "encrypted_extensions"
    /// The client offered no ALPN, or the server (TLS ≤ 1.2) selected none.
    case none
}

/// What is visible of one TLS session without keys.
package struct TLSSessionInfo: Sendable {
    package var clientHello: TLSClientHello?
    package var serverHello: TLSServerHello? {
        didSet { cachedSuite = serverHello.map { TLSCipherSuite(code: $0.cipherSuite) } }
    }
    /// SNI host name from the ClientHello.
    package var sni: String? { clientHello?.serverName }
    /// Negotiated version (wire code: 0x0300 SSL 3.0 … 0x0304 TLS 1.3), from the ServerHello
    /// (supported_versions for 1.3); nil without a ServerHello.
    package var version: UInt16? { serverHello?.version }
    /// `TLS 1.2`, `TLS 1.3`, `SSL 3.0`…
    package var versionName: String? { version.map(TLSVersion.name) }
    /// The negotiated application protocol, and where it was learnt.
    package var alpn: String?
    package var alpnSource: TLSALPNSource = .none
    /// The cipher suite the server chose (worked out once per ServerHello: records ask for it).
    package var cipherSuite: TLSCipherSuite? {
        guard let serverHello else { return nil }
        if let cached = cachedSuite, cached.code == serverHello.cipherSuite { return cached }
        return TLSCipherSuite(code: serverHello.cipherSuite)
    }
    /// The suite of `serverHello`, set with it.
    private var cachedSuite: TLSCipherSuite?
    /// The session was resumed: TLS ≤ 1.2 — the ServerHello echoed the client's non-empty session id, or
    /// the handshake was abbreviated (the server's ChangeCipherSpec came without a ServerHelloDone);
    /// TLS 1.3 — the ServerHello accepted a pre_shared_key.
    package var resumed = false
    /// A HelloRetryRequest was sent.
    package var helloRetry = false
    /// Alerts in order (at most 64 kept; `alertCount` counts them all).
    package var alerts: [TLSAlertInfo] = []
    package var alertCount = 0
    /// Per direction (`FlowDirection.rawValue`).
    package var stats = [TLSDirectionStats(), TLSDirectionStats()]
    /// The packet carrying the ClientHello's first byte.
    package var clientHelloOrigin: PacketOrigin?
    /// The packet completing the client's Finished as seen on the wire: TLS ≤ 1.2 the client's record
    /// after its ChangeCipherSpec; TLS 1.3 the client's first type-23 record after the server's
    /// encrypted flight.
    package var clientFinishedOrigin: PacketOrigin?
    /// Handshake messages seen in clear, by type, per direction (for diagnostics).
    package var handshakeMessages: [[UInt8]] = [[], []]
    /// Where each direction first stopped being parsed (a gap, or bytes that are not TLS records). After
    /// a gap the reader looks for record boundaries again (`resynchronizations`); after bytes that are not
    /// TLS records it stops for good.
    package var lostAt: [Int64?] = [nil, nil]
    /// Times record boundaries were found again after a gap.
    package var resynchronizations = 0
    /// A handshake message over the buffer cap was skipped.
    package var handshakeTooLarge = false

    package init() {}

    package func stats(_ direction: FlowDirection) -> TLSDirectionStats { stats[direction.rawValue] }

    /// Sets the ServerHello and what it tells with the ClientHello: resumption, and the application
    /// protocol where it can be seen (TLS ≤ 1.2: the ServerHello; TLS 1.3: only when the client
    /// offered exactly one).
    package mutating func noteServerHello(_ hello: TLSServerHello) {
        serverHello = hello
        let offered = clientHello?.alpn ?? []
        if hello.version == 0x0304 {
            resumed = hello.acceptsPreSharedKey
            if offered.count == 1 {
                alpn = offered[0]
                alpnSource = .onlyOffered
            } else if offered.count > 1 {
                alpnSource = .unknown
            }
        } else {
            if let clientSession = clientHello?.sessionID, !clientSession.isEmpty, clientSession == hello.sessionID {
                resumed = true
            }
            if let alpn = hello.alpn {
                self.alpn = alpn
                alpnSource = .serverHello
            }
        }
    }

    package var clientHelloTime: Timestamp? { clientHelloOrigin?.timestamp }
    package var clientFinishedTime: Timestamp? { clientFinishedOrigin?.timestamp }

    /// ClientHello to the client's Finished (the `ssl` phase), in nanoseconds.
    package var handshakeNanoseconds: Int64? {
        guard let start = clientHelloTime, let end = clientFinishedTime else { return nil }
        return end.nanoseconds - start.nanoseconds
    }

    /// The `ssl` phase in milliseconds (-1 when not seen), as `ExchangeTiming.ssl` wants it.
    package var sslMilliseconds: Double {
        handshakeNanoseconds.map { Double($0) / 1_000_000 } ?? -1
    }
}

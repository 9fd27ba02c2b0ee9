extension RecordEncoding {
    /// The TLS session of a connection, when its application layer is TLS.
    static func tlsSession(of connection: TCPConnection) -> TLSConnectionAnalysis? {
        (connection.consumer as? ApplicationLayerAnalysis)?.tls
    }

    /// `{"sni","version","alpn","cipher","resumed"}` for `http` records of a TLS connection.
    static func tlsSummary(_ session: TLSSessionInfo) -> JSONValue {
        .object([
            ("sni", session.sni.map(JSONValue.string) ?? .null),
            ("version", session.versionName.map(JSONValue.string) ?? .null),
            ("alpn", session.alpn.map(JSONValue.string) ?? .null),
            ("cipher", session.cipherSuite.map { .string($0.displayName) } ?? .null),
            ("resumed", .bool(session.resumed)),
        ])
    }

    /// The connection record's `tls` object: the summary plus the ClientHello and client-Finished
    /// times, the handshake duration, alerts and
    /// per-direction record statistics (bytes of handshake, change-cipher-spec, alert and
    /// application-data records on the stream, record-header and estimated AEAD/MAC overhead).
    static func tlsDetails(_ analysis: TLSConnectionAnalysis, digits: Int) -> JSONValue {
        let session = analysis.session
        guard case var .object(members) = tlsSummary(session) else { return .null }
        members.append(("alpn_source", .string(session.alpnSource.rawValue)))
        members.append(("ts_client_hello", session.clientHelloTime.map { .number($0.formatted(digits: digits)) } ?? .null))
        members.append(("ts_client_finished", session.clientFinishedTime.map { .number($0.formatted(digits: digits)) } ?? .null))
        members.append(("handshake_ms", session.handshakeNanoseconds.map { .number(milliseconds($0)) } ?? .null))
        members.append(("alerts", .integer(session.alertCount)))
        members.append(("mode", .string(analysis.mode.rawValue)))
        for direction in FlowDirection.allCases {
            let stats = session.stats(direction)
            func tally(_ tally: TLSRecordTally) -> JSONValue {
                .object([("records", .integer(tally.records)), ("bytes", .integer(tally.bytes))])
            }
            members.append((direction == .up ? "up" : "down", .object([
                ("handshake", tally(stats.handshake)),
                ("encrypted_handshake", tally(stats.encryptedHandshake)),
                ("change_cipher_spec", tally(stats.changeCipherSpec)),
                ("alert", tally(stats.alert)),
                ("application_data", tally(stats.applicationData)),
                ("record_header_bytes", .integer(stats.headerBytes)),
                ("protection_overhead_bytes", .integer(stats.protectionOverheadBytes)),
            ])))
        }
        return .object(members)
    }
}

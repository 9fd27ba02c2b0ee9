extension RecordEncoding {
    /// The TLS session of a connection, when its application layer is TLS.
    static func tlsSession(of connection: TCPConnection) -> TLSConnectionAnalysis? {
        (connection.consumer as? ApplicationLayerAnalysis)?.tls
    }

    /// The members of `{"sni","version","alpn","cipher","resumed"}`, the `tls` object of `http` records
    /// on a TLS connection.
    static func tlsSummaryFields<Encoder: JSONEncoding>(_ session: TLSSessionInfo, to encoder: inout Encoder) {
        encoder.field("sni", session.sni)
        encoder.field("version", session.versionName)
        encoder.field("alpn", session.alpn)
        encoder.field("cipher", session.cipherSuite?.displayName)
        encoder.field("resumed", session.resumed)
    }

    /// The members of the connection record's `tls` object: the summary plus the ClientHello and
    /// client-Finished times, the handshake duration, alerts and per-direction record statistics (bytes
    /// of handshake, change-cipher-spec, alert and application-data records on the stream, record-header
    /// and estimated AEAD/MAC overhead).
    static func tlsDetailFields<Encoder: JSONEncoding>(
        _ analysis: TLSConnectionAnalysis, digits: Int, to encoder: inout Encoder
    ) {
        let session = analysis.session
        tlsSummaryFields(session, to: &encoder)
        encoder.field("alpn_source", session.alpnSource.rawValue)
        encoder.field("ts_client_hello", timestamp: session.clientHelloTime, digits: digits)
        encoder.field("ts_client_finished", timestamp: session.clientFinishedTime, digits: digits)
        encoder.field("handshake_ms", milliseconds: session.handshakeNanoseconds)
        encoder.field("alerts", session.alertCount)
        encoder.field("mode", analysis.reportedMode)
        if let status = analysis.decryptionStatus { encoder.field("decryption", status) }
        if let plaintext = analysis.plaintextBytes {
            encoder.object("plaintext") { encoder in
                encoder.field("up", Int(plaintext.up))
                encoder.field("down", Int(plaintext.down))
            }
        }
        func tally(_ name: JSONKey, _ tally: TLSRecordTally, to encoder: inout Encoder) {
            encoder.object(name) { encoder in
                encoder.field("records", tally.records)
                encoder.field("bytes", tally.bytes)
            }
        }
        for direction in FlowDirection.allCases {
            let stats = session.stats(direction)
            encoder.object(direction == .up ? "up" : "down") { encoder in
                tally("handshake", stats.handshake, to: &encoder)
                tally("encrypted_handshake", stats.encryptedHandshake, to: &encoder)
                tally("change_cipher_spec", stats.changeCipherSpec, to: &encoder)
                tally("alert", stats.alert, to: &encoder)
                tally("application_data", stats.applicationData, to: &encoder)
                encoder.field("record_header_bytes", stats.headerBytes)
                encoder.field("protection_overhead_bytes", stats.protectionOverheadBytes)
            }
        }
    }

    /// `{"records","record_header_bytes","protection_bytes","handshake_bytes","alert_bytes"}`: the TLS
    /// records an exchange owns in one direction and what they cost beyond its plaintext.
    static func tlsRecordBytes<Encoder: JSONEncoding>(_ bytes: TLSExchangeRecordBytes, to encoder: inout Encoder) {
        encoder.object { encoder in
            encoder.field("records", bytes.records)
            encoder.field("record_header_bytes", bytes.recordHeaderBytes)
            encoder.field("protection_bytes", bytes.protectionBytes)
            encoder.field("handshake_bytes", bytes.handshakeBytes)
            encoder.field("alert_bytes", bytes.alertBytes)
        }
    }
}

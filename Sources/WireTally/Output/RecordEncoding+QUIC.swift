extension RecordEncoding {
    /// A `{"type":"connection","transport":"quic",…}` record: a QUIC connection's datagrams by
    /// direction and category (as a TCP connection's packets), what its TLS handshake showed, and the
    /// `quic` object.
    static func quicConnection<Encoder: JSONEncoding>(
        _ connection: QUICConnection, timestampDigits digits: Int, to encoder: inout Encoder
    ) {
        encoder.object { encoder in
            encoder.field("type", "connection")
            encoder.field("transport", "quic")
            encoder.field("id", connection.id)
            encoder.field("client", connection.clientEndpoint)
            encoder.field("server", connection.serverEndpoint)
            encoder.field("ts_first", timestamp: connection.firstTimestamp, digits: digits)
            encoder.field("ts_last", timestamp: connection.lastTimestamp, digits: digits)
            let ledger = connection.ledger
            encoder.field("up") { direction(ledger.totals.up, to: &$0) }
            encoder.field("down") { direction(ledger.totals.down, to: &$0) }
            encoder.object("unattributed") { encoder in
                encoder.field("up") { counters(ledger.unattributed.up, to: &$0) }
                encoder.field("down") { counters(ledger.unattributed.down, to: &$0) }
            }
            encoder.field("exchanges", connection.exchangeCount)
            encoder.field("handshake_rtt_ms", milliseconds: connection.handshakeNanoseconds)
            encoder.object("tls", connection.tlsSession) { encoder, session in
                tlsSummaryFields(session, to: &encoder)
                encoder.field("alpn_source", session.alpnSource.rawValue)
            }
            encoder.object("quic") { quicFields(connection, digits: digits, to: &$0) }
            encoder.field("flags", strings: connection.flags.names)
        }
    }

    /// The members of the `quic` object: version, connection IDs, transport parameters, paths, the
    /// CONNECTION_CLOSE seen, QUIC packets and bytes per packet-number space and direction, and what
    /// went wrong reading the Initial packets.
    private static func quicFields<Encoder: JSONEncoding>(
        _ connection: QUICConnection, digits: Int, to encoder: inout Encoder
    ) {
        let info = connection.info
        encoder.field("version", info.version?.description)
        encoder.field("dcid", info.originalDestinationConnectionID.map(quicHex))
        encoder.field("scid", strings: info.sourceConnectionIDs.map(quicHex))
        encoder.field("transport_parameters", strings: info.transportParameters.map {
            QUICTransportParameters.name($0) ?? "0x" + String($0, radix: 16)
        })
        encoder.field("alpn_offered", strings: info.alpn)
        encoder.field("client_max_idle_timeout_ms", info.clientMaxIdleTimeoutMilliseconds.map(Int.init))
        encoder.field("retry", info.retrySeen)
        encoder.field("version_negotiation", info.versionNegotiationSeen)
        encoder.field("paths") { encoder in
            encoder.array { encoder in
                for path in connection.paths {
                    encoder.object { encoder in
                        encoder.field("client", path.client.endpoint(port: path.clientPort))
                        encoder.field("server", path.server.endpoint(port: path.serverPort))
                    }
                }
            }
        }
        encoder.object("close", info.close) { encoder, close in
            encoder.field("error_code", Int(truncatingIfNeeded: close.errorCode))
            encoder.field("by", close.byClient ? "client" : "server")
            encoder.field("ts", timestamp: connection.closeTime, digits: digits)
        }
        encoder.object("packets") { encoder in
            for space in QUICPacketSpace.allCases {
                encoder.dynamicKey(space.rawValue)
                encoder.object { encoder in
                    for (name, counters) in [("up", info.up[space]), ("down", info.down[space])] {
                        encoder.dynamicKey(name)
                        encoder.object { encoder in
                            encoder.field("packets", counters?.packets ?? 0)
                            encoder.field("bytes", counters?.bytes ?? 0)
                        }
                    }
                }
            }
        }
        encoder.field("flags", strings: info.flags.sorted())
    }

    private static func quicHex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes { text += [digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]] }
        return String(decoding: text, as: UTF8.self)
    }
}

extension RecordEncoding {
    /// A `{"type":"connection","transport":"quic",…}` record: a QUIC connection's datagrams by
    /// direction and category (as a TCP connection's packets), what its TLS handshake showed, and the
    /// `quic` object.
    static func quicConnection<Encoder: JSONEncoding>(
        _ connection: QUICConnection, timestampDigits digits: Int, to encoder: inout Encoder
    ) {
        encoder.object { encoder in
            encoder.field("type", literal: "connection")
            encoder.field("transport", literal: "quic")
            encoder.field("id", connection.id)
            encoder.field("client", connection.clientEndpoint)
            encoder.field("server", connection.serverEndpoint)
            ownerField(connection.owner, to: &encoder)
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
                encoder.field("ts_client_hello", timestamp: session.clientHelloTime, digits: digits)
                encoder.field("ts_client_finished", timestamp: session.clientFinishedTime, digits: digits)
                encoder.field("handshake_ms", milliseconds: session.handshakeNanoseconds)
                if let decryption = connection.info.decryption { encoder.field("decryption", decryption.status) }
            }
            encoder.object("quic") { quicFields(connection, digits: digits, to: &$0) }
            encoder.object("http3", connection.http3Info) { http3Fields($1, to: &$0) }
            encoder.field("flags", strings: connection.flags.names + ownerFlags(connection.owner))
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
            encoder.field("application", close.isApplication)
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
        encoder.object("decryption", info.decryption) { encoder, decryption in
            encoder.field("decrypted_packets", decryption.decrypted)
            encoder.field("failed_packets", decryption.failed)
            encoder.field("packets_without_key", decryption.withoutKey)
            encoder.object("key_updates") { encoder in
                encoder.field("up", decryption.keyUpdatesUp)
                encoder.field("down", decryption.keyUpdatesDown)
            }
        }
        encoder.field("flags", strings: info.flags.sorted())
    }

    /// The members of a QUIC connection record's `http3` object: each side's SETTINGS and GOAWAY, the
    /// bytes of its unidirectional streams (control, QPACK encoder and decoder, push, unknown), QPACK
    /// inserts and blocked sections, and the errors and caps met.
    private static func http3Fields<Encoder: JSONEncoding>(_ info: HTTP3ConnectionInfo, to encoder: inout Encoder) {
        for direction in FlowDirection.allCases {
            let d = direction.rawValue
            encoder.dynamicKey(direction == .up ? "up" : "down")
            encoder.object { encoder in
                let settings = info.settings[d]
                encoder.object("settings") { encoder in
                    encoder.field("qpack_max_table_capacity", settings.qpackMaxTableCapacity.map { Int(clamping: $0) })
                    encoder.field("qpack_blocked_streams", settings.qpackBlockedStreams.map { Int(clamping: $0) })
                    encoder.field("max_field_section_size", settings.maxFieldSectionSize.map { Int(clamping: $0) })
                }
                encoder.field("goaway_id", info.goawayID[d].map { Int(clamping: $0) })
                let streams = info.unidirectionalBytes[d]
                encoder.object("stream_bytes") { encoder in
                    encoder.field("control", Int(streams.control))
                    encoder.field("qpack_encoder", Int(streams.qpackEncoder))
                    encoder.field("qpack_decoder", Int(streams.qpackDecoder))
                    encoder.field("push", Int(streams.push))
                    encoder.field("unknown", Int(streams.unknown))
                }
                encoder.field("qpack_inserts", info.qpackInserts[d])
                encoder.field("qpack_blocked_sections", info.qpackBlockedSections[d])
                encoder.field("qpack_section_errors", info.qpackSectionErrors[d])
            }
        }
        encoder.field("request_streams", info.requestStreams)
        encoder.field("streams_over_cap", info.streamsOverCap)
    }

    private static func quicHex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes { text += [digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]] }
        return String(decoding: text, as: UTF8.self)
    }
}

extension RecordEncoding {
    /// The `quic` object of a UDP flow record: what the Initial packets told without keys, and the
    /// QUIC packets and bytes per packet-number space and direction.
    static func quicFlow<Encoder: JSONEncoding>(_ info: QUICConnectionInfo, to encoder: inout Encoder) {
        encoder.field("version", info.version?.description)
        encoder.field("dcid", info.originalDestinationConnectionID.map(quicHex))
        encoder.field("scid", strings: info.sourceConnectionIDs.map(quicHex))
        encoder.field("sni", info.serverName)
        encoder.field("alpn", strings: info.alpn)
        encoder.field("cipher", info.cipherSuite.map { TLSCipherSuite(code: $0).displayName })
        encoder.field("tls_version", info.tlsVersion.map(TLSVersion.name))
        encoder.field("transport_parameters", strings: info.transportParameters.map {
            QUICTransportParameters.name($0) ?? "0x" + String($0, radix: 16)
        })
        encoder.field("retry", info.retrySeen)
        encoder.field("version_negotiation", info.versionNegotiationSeen)
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

extension RecordEncoding {
    /// The HTTP/2 analysis of a connection: h2c (prior knowledge or by Upgrade), or h2 inside decrypted TLS.
    static func http2Analysis(of connection: TCPConnection) -> HTTP2ConnectionAnalysis? {
        (connection.consumer as? ApplicationLayerAnalysis)?.anyHTTP2
    }

    /// Frame type names of the connection record's `http2.frames`, by type number.
    private static let frameTypeNames: [JSONKey] = [
        "data", "headers", "priority", "rst_stream", "settings", "push_promise", "ping", "goaway", "window_update",
        "continuation",
    ]

    /// The members of the connection record's `http2` object: `preface` (the client preface was seen), `streams`,
    /// `streams_over_cap` (streams not followed: more were open than `HTTPLimits.maxOpenRequests`), `frames` per direction and type (`{"frames","bytes"}`, 9-byte headers included; `unknown` for
    /// extension types; `preface_bytes`), the `goaway` each side sent, `resynchronizations` and
    /// `unparsed_bytes` per direction, `hpack_error` and `headers_too_large` per direction.
    static func http2Connection<Encoder: JSONEncoding>(_ http2: HTTP2ConnectionAnalysis, to encoder: inout Encoder) {
        let info = http2.connectionInfo, totals = http2.frameTotals
        encoder.field("preface", info.sawPreface)
        encoder.field("streams", info.streams)
        encoder.field("streams_over_cap", info.streamsOverCap)
        encoder.object("frames") { encoder in
            for direction in FlowDirection.allCases {
                encoder.key(direction == .up ? "up" : "down")
                encoder.object { encoder in
                    let frames = totals[direction.rawValue]
                    for (type, name) in frameTypeNames.enumerated() {
                        encoder.field(name) { frameCount(frames[UInt8(type)], to: &$0) }
                    }
                    encoder.field("unknown") { frameCount(frames.unknown, to: &$0) }
                    encoder.field("preface_bytes", frames.prefaceBytes)
                }
            }
        }
        for direction in FlowDirection.allCases {
            encoder.key(direction == .up ? "client" : "server")
            encoder.object { encoder in
                let d = direction.rawValue
                encoder.field("goaway_last_stream_id", info.goawayLastStreamID[d].map(Int.init))
                encoder.field("goaway_error_code", info.goawayErrorCode[d].map(Int.init))
                encoder.field("max_frame_size", info.settings[d].maxFrameSize.map(Int.init))
                encoder.field("header_table_size", info.settings[d].headerTableSize.map(Int.init))
                encoder.field("resynchronizations", info.resynchronizations[d])
                encoder.field("unparsed_bytes", Int(info.unparsedBytes[d]))
                encoder.field("hpack_error", info.hpackError[d])
                encoder.field("headers_too_large", info.headersTooLarge[d])
            }
        }
    }

    private static func frameCount<Encoder: JSONEncoding>(_ count: HTTP2FrameCount, to encoder: inout Encoder) {
        encoder.object { encoder in
            encoder.field("frames", count.frames)
            encoder.field("bytes", Int(count.bytes))
        }
    }

    /// Connection flags from HTTP/2: `hpack_error`, `h2_resync` (frame sync lost and found again).
    static func http2Flags(_ http2: HTTP2ConnectionAnalysis?) -> [String] {
        guard let info = http2?.connectionInfo else { return [] }
        var flags: [String] = []
        if info.hpackError.up || info.hpackError.down { flags.append("hpack_error") }
        if info.resynchronizations.up + info.resynchronizations.down > 0 { flags.append("h2_resync") }
        return flags
    }
}

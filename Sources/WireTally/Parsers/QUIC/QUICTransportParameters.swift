/// The parameter ids of a quic_transport_parameters extension (RFC 9000 §18): a sequence of
/// (varint id, varint length, value). Reads ids only, in order; stops at the first malformed entry.
enum QUICTransportParameters {
    static func ids(_ data: [UInt8]) -> [UInt64] {
        var ids: [UInt64] = []
        data.withUnsafeBytes { raw in
            var reader = QUICByteReader(raw)
            while reader.remaining > 0, let id = reader.varint(), let length = reader.varintCount(),
                  reader.skip(length) != nil
            {
                ids.append(id)
            }
        }
        return ids
    }

    /// max_idle_timeout (milliseconds).
    static let maxIdleTimeout: UInt64 = 0x01

    /// stateless_reset_token (16 bytes; the server's only).
    static let statelessResetToken: UInt64 = 0x02

    /// The value of integer parameter `id` (a varint), nil when absent or malformed.
    static func integer(_ id: UInt64, in data: [UInt8]) -> UInt64? {
        value(id, in: data).flatMap { value in
            value.withUnsafeBytes { raw in
                var reader = QUICByteReader(raw)
                return reader.varint()
            }
        }
    }

    /// The bytes of parameter `id`, nil when absent or when the list is malformed before it.
    static func value(_ id: UInt64, in data: [UInt8]) -> [UInt8]? {
        data.withUnsafeBytes { raw in
            var reader = QUICByteReader(raw)
            while reader.remaining > 0, let entry = reader.varint(), let length = reader.varintCount(),
                  let value = reader.skip(length)
            {
                if entry == id { return Array(data[value]) }
            }
            return nil
        }
    }

    /// RFC 9000 §18.2 names (and a few widely deployed extensions'); nil for others.
    static func name(_ id: UInt64) -> String? {
        switch id {
        case 0x00: return "original_destination_connection_id"
        case 0x01: return "max_idle_timeout"
        case 0x02: return "stateless_reset_token"
        case 0x03: return "max_udp_payload_size"
        case 0x04: return "initial_max_data"
        case 0x05: return "initial_max_stream_data_bidi_local"
        case 0x06: return "initial_max_stream_data_bidi_remote"
        case 0x07: return "initial_max_stream_data_uni"
        case 0x08: return "initial_max_streams_bidi"
        case 0x09: return "initial_max_streams_uni"
        case 0x0a: return "ack_delay_exponent"
        case 0x0b: return "max_ack_delay"
        case 0x0c: return "disable_active_migration"
        case 0x0d: return "preferred_address"
        case 0x0e: return "active_connection_id_limit"
        case 0x0f: return "initial_source_connection_id"
        case 0x10: return "retry_source_connection_id"
        case 0x11: return "version_information"  // RFC 9368
        case 0x20: return "max_datagram_frame_size"  // RFC 9221
        case 0x2ab2: return "grease_quic_bit"  // RFC 9287
        default: return nil
        }
    }
}

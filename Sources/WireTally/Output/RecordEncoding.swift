/// The JSON form of each record: the field names here are a contract other tools read (README).
///
/// Each record is described once, generic over the `JSONEncoding` it is written into: JSON Lines
/// appends it straight to its byte buffer, the other outputs read it as a `JSONValue`.
package enum RecordEncoding {
    /// The JSON of any record.
    package static func record(_ record: AnalysisRecord, timestampDigits digits: Int) -> JSONValue {
        JSONValue { self.record(record, timestampDigits: digits, to: &$0) }
    }

    /// A `{"type":"connection",…}` record.
    package static func connection(_ connection: TCPConnection, timestampDigits digits: Int) -> JSONValue {
        JSONValue { self.connection(connection, timestampDigits: digits, to: &$0) }
    }

    /// A `{"type":"flow",…}` record for non-TCP traffic.
    package static func flow(_ flow: IPFlow, timestampDigits digits: Int) -> JSONValue {
        JSONValue { self.flow(flow, timestampDigits: digits, to: &$0) }
    }

    /// The final `{"type":"summary",…}` record.
    package static func summary(_ summary: CaptureSummary, files: [String]) -> JSONValue {
        JSONValue { self.summary(summary, files: files, to: &$0) }
    }

    /// Writes any record into `encoder`.
    static func record<Encoder: JSONEncoding>(
        _ record: AnalysisRecord, timestampDigits digits: Int, to encoder: inout Encoder
    ) {
        switch record {
        case let .connection(connection): self.connection(connection, timestampDigits: digits, to: &encoder)
        case let .quicConnection(connection): quicConnection(connection, timestampDigits: digits, to: &encoder)
        case let .flow(flow): self.flow(flow, timestampDigits: digits, to: &encoder)
        case let .exchange(exchangeRecord):
            http(exchangeRecord, timestampDigits: digits, to: &encoder)
        case let .dns(transaction): dns(transaction, timestampDigits: digits, to: &encoder)
        }
    }

    static func connection<Encoder: JSONEncoding>(
        _ connection: TCPConnection, timestampDigits digits: Int, to encoder: inout Encoder
    ) {
        let ledger = connection.ledger
        encoder.object { encoder in
            encoder.field("type", literal: "connection")
            encoder.field("transport", literal: "tcp")
            encoder.field("id", connection.id)
            encoder.field("client", connection.clientEndpoint)
            encoder.field("server", connection.serverEndpoint)
            ownerField(connection.owner, to: &encoder)
            encoder.field("ts_first", timestamp: connection.firstTimestamp, digits: digits)
            encoder.field("ts_last", timestamp: connection.lastTimestamp, digits: digits)
            encoder.field("up") { direction(ledger.tally(.up), to: &$0) }
            encoder.field("down") { direction(ledger.tally(.down), to: &$0) }
            encoder.object("unattributed") { encoder in
                encoder.field("up") { counters(ledger.unattributed(.up), to: &$0) }
                encoder.field("down") { counters(ledger.unattributed(.down), to: &$0) }
            }
            encoder.field("exchanges", (connection.consumer as? ApplicationLayerAnalysis)?.exchangeCount ?? 0)
            encoder.field("handshake_rtt_ms", milliseconds: connection.handshakeNanoseconds)
            let tls = tlsSession(of: connection), http2 = http2Analysis(of: connection)
            encoder.object("tls", tls) { tlsDetailFields($1, digits: digits, to: &$0) }
            encoder.object("http2", http2) { http2Connection($1, to: &$0) }
            encoder.field("flags", strings: flags(of: connection))
        }
    }

    /// The flag names of a TCP connection record: the connection's, its TLS decryption's, its HTTP/2's.
    static func flags(of connection: TCPConnection) -> [String] {
        connection.flags.names + (tlsSession(of: connection)?.decryptionFlags ?? []) + http2Flags(http2Analysis(of: connection))
            + ownerFlags(connection.owner)
    }

    static func flow<Encoder: JSONEncoding>(_ flow: IPFlow, timestampDigits digits: Int, to encoder: inout Encoder) {
        encoder.object { encoder in
            encoder.field("type", literal: "flow")
            encoder.field("id", flow.id)
            encoder.field("proto", flow.protocolName)
            encoder.field("client", flow.clientEndpoint)
            encoder.field("server", flow.serverEndpoint)
            ownerField(flow.owner, to: &encoder)
            encoder.field("ts_first", timestamp: flow.firstTimestamp, digits: digits)
            encoder.field("ts_last", timestamp: flow.lastTimestamp, digits: digits)
            encoder.field("up") { counters(flow.counters[FlowDirection.up.rawValue], to: &$0) }
            encoder.field("down") { counters(flow.counters[FlowDirection.down.rawValue], to: &$0) }
            encoder.field("flags") { encoder in
                encoder.array { encoder in
                    if flow.evicted { encoder.string("evicted") }
                    if flow.badChecksums > 0 { encoder.string("bad_checksum") }
                    for flag in ownerFlags(flow.owner) { encoder.string(flag) }
                }
            }
        }
    }

    static func summary<Encoder: JSONEncoding>(_ summary: CaptureSummary, files: [String], to encoder: inout Encoder) {
        let digits = summary.timestampDigits
        encoder.object { encoder in
            encoder.field("type", literal: "summary")
            encoder.field("files", strings: files)
            encoder.field("ts_first", timestamp: summary.firstTimestamp, digits: digits)
            encoder.field("ts_last", timestamp: summary.lastTimestamp, digits: digits)
            var duration: Int64?
            if let first = summary.firstTimestamp, let last = summary.lastTimestamp {
                duration = last.nanoseconds - first.nanoseconds
            }
            encoder.field("duration_ms", milliseconds: duration)
            encoder.field("packets", summary.read.packets)
            encoder.field("frame_bytes", summary.read.frameBytes)
            encoder.field("ip_bytes", summary.accountedIPBytes)
            encoder.object("outcomes") { encoder in
                encoder.field("tcp") { counters(summary.inConnections, to: &$0) }
                encoder.field("quic") { counters(summary.inQUICConnections, to: &$0) }
                encoder.field("other_ip") { counters(summary.inFlows, to: &$0) }
                encoder.field("filtered") { counters(summary.filtered, to: &$0) }
                for failure in DecodeFailure.allCases {
                    encoder.dynamicKey(failure.rawValue)
                    counters(summary.undecoded[failure] ?? TrafficCounters(), to: &encoder)
                }
                encoder.field("incomplete_fragments") { counters(summary.incompleteFragments, to: &$0) }
            }
            encoder.field("connections", summary.connections)
            encoder.field("quic_connections", summary.quicConnections)
            encoder.field("flows", summary.flows)
            encoder.field("dns_transactions", summary.dnsTransactions)
            encoder.object("gaps") { encoder in
                encoder.field("connections", summary.connectionsWithGaps)
                encoder.field("missing_bytes", summary.missingBytes)
            }
            encoder.object("evictions") { encoder in
                encoder.field("connections", summary.connectionEvictions)
                encoder.field("flows", summary.flowEvictions)
                encoder.field("quic_connections", summary.quicConnectionEvictions)
            }
            encoder.field("idle_expirations", summary.idleExpirations)
            encoder.field("buffer_cap_gaps", summary.bufferCapGaps)
            encoder.field("too_many_open_requests", summary.openRequestCapConnections)
            if !summary.tlsDecryption.isEmpty {
                encoder.object("tls_decryption") { encoder in
                    for (status, count) in summary.tlsDecryption.sorted(by: { $0.key < $1.key }) {
                        encoder.dynamicKey(status)
                        encoder.integer(count)
                    }
                }
            }
            encoder.object("bad_checksums") { encoder in
                encoder.field("ip", summary.badIPChecksums)
                encoder.field("transport", summary.badTransportChecksums)
            }
            encoder.field("fragmented_datagrams", summary.fragmentedDatagrams)
            encoder.object("unknown_link_types") { encoder in
                for (linkType, count) in summary.unknownLinkTypes.sorted(by: { $0.key < $1.key }) {
                    encoder.dynamicKey(String(linkType))
                    encoder.integer(count)
                }
            }
            encoder.field("errors", strings: summary.errors)
            encoder.field("conserved", summary.isConserved)
        }
    }

    /// `{"packets","ip_bytes","frame_bytes","payload_bytes"}`.
    static func counters<Encoder: JSONEncoding>(_ counters: TrafficCounters, to encoder: inout Encoder) {
        Self.counters(counters, as: counterObject, to: &encoder)
    }

    /// `counters` written as `run` says (an object value, or a member that is one).
    static func counters<Encoder: JSONEncoding>(
        _ counters: TrafficCounters, as run: NumberMembers<4>, to encoder: inout Encoder
    ) {
        encoder.integerMembers(run, [counters.packets, counters.ipBytes, counters.frameBytes, counters.payloadBytes])
    }

    private static let counterObject = NumberMembers<4>(object: counterNames)
    static let counterNames: [NumberMember] = ["packets", "ip_bytes", "frame_bytes", "payload_bytes"]

    /// One direction of a connection: totals, the contract's shortcut fields, and every category.
    static func direction<Encoder: JSONEncoding>(_ tally: DirectionTally, to encoder: inout Encoder) {
        var values = InlineArray<31, Int>(repeating: 0)
        _ = storeDirection(tally, missingBytes: true, into: &values)
        encoder.integerMembers(connectionDirection, values)
    }

    private static let connectionDirection = NumberMembers<31>(object: directionMembers(missingBytes: true))

    /// The members of a direction: its totals, `missing_bytes` only when asked (exchanges leave it out),
    /// then `"categories":{"setup":{…},…}`; the values `storeDirection` stores.
    static func directionMembers(missingBytes: Bool) -> [NumberMember] {
        [
            "packets", "ip_bytes", "frame_bytes", "payload_bytes", "setup_ip_bytes", "teardown_ip_bytes", "ack_packets",
            "ack_ip_bytes", "retransmitted_packets", "retransmitted_bytes",
        ] + (missingBytes ? ["missing_bytes"] : [])
            + [.object("categories", PacketCategory.allCases.map { .object($0.key, counterNames) })]
    }

    /// Stores the values of `directionMembers(missingBytes:)` into `values` from the start; returns how
    /// many it stored.
    @inline(__always)
    static func storeDirection<let count: Int>(
        _ tally: DirectionTally, missingBytes: Bool, into values: inout InlineArray<count, Int>
    ) -> Int {
        let total = tally.total
        values[0] = total.packets
        values[1] = total.ipBytes
        values[2] = total.frameBytes
        values[3] = total.payloadBytes
        values[4] = tally.setup.ipBytes
        values[5] = tally.teardown.ipBytes
        values[6] = tally.ack.packets
        values[7] = tally.ack.ipBytes
        values[8] = tally.retransmission.packets
        values[9] = tally.retransmittedPayloadBytes
        var index = 10
        if missingBytes {
            values[index] = tally.missingBytes
            index += 1
        }
        for category in PacketCategory.allCases { index = store(tally[category], into: &values, at: index) }
        return index
    }

    /// Stores the four values of `counterNames` into `values` at `index`; returns the index after them.
    @inline(__always)
    static func store<let count: Int>(_ counters: TrafficCounters, into values: inout InlineArray<count, Int>, at index: Int) -> Int {
        values[index] = counters.packets
        values[index + 1] = counters.ipBytes
        values[index + 2] = counters.frameBytes
        values[index + 3] = counters.payloadBytes
        return index + 4
    }

    /// Milliseconds with microsecond resolution, e.g. `12.345`.
    static func milliseconds(_ nanoseconds: Int64) -> String {
        var encoder = JSONTextEncoder()
        encoder.milliseconds(nanoseconds)
        return encoder.buffer.text
    }
}

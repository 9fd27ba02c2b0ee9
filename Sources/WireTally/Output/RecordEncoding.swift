/// The JSON form of each record: the field names here are a contract other tools read (README).
public enum RecordEncoding {
    /// The JSON of any record.
    public static func record(_ record: AnalysisRecord, timestampDigits digits: Int) -> JSONValue {
        switch record {
        case let .connection(connection): return self.connection(connection, timestampDigits: digits)
        case let .flow(flow): return self.flow(flow, timestampDigits: digits)
        case let .exchange(exchange, id, connection):
            return http(exchange, id: id, connection: connection, timestampDigits: digits)
        case let .dns(transaction): return dns(transaction, timestampDigits: digits)
        }
    }

    /// A `{"type":"connection",…}` record.
    public static func connection(_ connection: TCPConnection, timestampDigits digits: Int) -> JSONValue {
        let ledger = connection.ledger
        var members: [(String, JSONValue)] = [
            ("type", .string("connection")),
            ("id", .integer(connection.id)),
            ("client", .string(connection.clientEndpoint)),
            ("server", .string(connection.serverEndpoint)),
            ("ts_first", .number(connection.firstTimestamp.formatted(digits: digits))),
            ("ts_last", .number(connection.lastTimestamp.formatted(digits: digits))),
            ("up", direction(ledger.tally(.up))),
            ("down", direction(ledger.tally(.down))),
            ("unattributed", .object([
                ("up", counters(ledger.unattributed(.up))),
                ("down", counters(ledger.unattributed(.down))),
            ])),
            ("exchanges", .integer((connection.consumer as? ApplicationLayerAnalysis)?.exchangeCount ?? 0)),
        ]
        members.append(("handshake_rtt_ms", connection.handshakeNanoseconds.map { .number(milliseconds($0)) } ?? .null))
        members.append(("tls", tlsSession(of: connection).map { tlsDetails($0, digits: digits) } ?? .null))
        members.append(("flags", .array(connection.flags.names.map(JSONValue.string))))
        return .object(members)
    }

    /// A `{"type":"flow",…}` record for non-TCP traffic.
    public static func flow(_ flow: IPFlow, timestampDigits digits: Int) -> JSONValue {
        var flags: [JSONValue] = []
        if flow.evicted { flags.append(.string("evicted")) }
        if flow.badChecksums > 0 { flags.append(.string("bad_checksum")) }
        return .object([
            ("type", .string("flow")),
            ("id", .integer(flow.id)),
            ("proto", .string(flow.protocolName)),
            ("client", .string(flow.clientEndpoint)),
            ("server", .string(flow.serverEndpoint)),
            ("ts_first", .number(flow.firstTimestamp.formatted(digits: digits))),
            ("ts_last", .number(flow.lastTimestamp.formatted(digits: digits))),
            ("up", counters(flow.counters[FlowDirection.up.rawValue])),
            ("down", counters(flow.counters[FlowDirection.down.rawValue])),
            ("flags", .array(flags)),
        ])
    }

    /// The final `{"type":"summary",…}` record.
    public static func summary(_ summary: CaptureSummary, files: [String]) -> JSONValue {
        let digits = summary.timestampDigits
        var outcomes: [(String, JSONValue)] = [
            ("tcp", counters(summary.inConnections)),
            ("other_ip", counters(summary.inFlows)),
            ("filtered", counters(summary.filtered)),
        ]
        for failure in DecodeFailure.allCases {
            outcomes.append((failure.rawValue, counters(summary.undecoded[failure] ?? TrafficCounters())))
        }
        outcomes.append(("incomplete_fragments", counters(summary.incompleteFragments)))
        var duration: JSONValue?
        if let first = summary.firstTimestamp, let last = summary.lastTimestamp {
            duration = .number(milliseconds(last.nanoseconds - first.nanoseconds))
        }
        return .object([
            ("type", .string("summary")),
            ("files", .array(files.map(JSONValue.string))),
            ("ts_first", summary.firstTimestamp.map { .number($0.formatted(digits: digits)) } ?? .null),
            ("ts_last", summary.lastTimestamp.map { .number($0.formatted(digits: digits)) } ?? .null),
            ("duration_ms", duration ?? .null),
            ("packets", .integer(summary.read.packets)),
            ("frame_bytes", .integer(summary.read.frameBytes)),
            ("ip_bytes", .integer(summary.accountedIPBytes)),
            ("outcomes", .object(outcomes)),
            ("connections", .integer(summary.connections)),
            ("flows", .integer(summary.flows)),
            ("dns_transactions", .integer(summary.dnsTransactions)),
            ("gaps", .object([
                ("connections", .integer(summary.connectionsWithGaps)),
                ("missing_bytes", .integer(summary.missingBytes)),
            ])),
            ("evictions", .object([
                ("connections", .integer(summary.connectionEvictions)),
                ("flows", .integer(summary.flowEvictions)),
            ])),
            ("idle_expirations", .integer(summary.idleExpirations)),
            ("buffer_cap_gaps", .integer(summary.bufferCapGaps)),
            ("bad_checksums", .object([
                ("ip", .integer(summary.badIPChecksums)),
                ("transport", .integer(summary.badTransportChecksums)),
            ])),
            ("fragmented_datagrams", .integer(summary.fragmentedDatagrams)),
            ("unknown_link_types", .object(summary.unknownLinkTypes.sorted { $0.key < $1.key }.map {
                (String($0.key), JSONValue.integer($0.value))
            })),
            ("errors", .array(summary.errors.map(JSONValue.string))),
            ("conserved", .bool(summary.isConserved)),
        ])
    }

    /// `{"packets","ip_bytes","frame_bytes","payload_bytes"}`.
    static func counters(_ counters: TrafficCounters) -> JSONValue {
        .object([
            ("packets", .integer(counters.packets)),
            ("ip_bytes", .integer(counters.ipBytes)),
            ("frame_bytes", .integer(counters.frameBytes)),
            ("payload_bytes", .integer(counters.payloadBytes)),
        ])
    }

    /// One direction of a connection: totals, the contract's shortcut fields, and every category.
    static func direction(_ tally: DirectionTally) -> JSONValue {
        let total = tally.total
        return .object([
            ("packets", .integer(total.packets)),
            ("ip_bytes", .integer(total.ipBytes)),
            ("frame_bytes", .integer(total.frameBytes)),
            ("payload_bytes", .integer(total.payloadBytes)),
            ("setup_ip_bytes", .integer(tally.setup.ipBytes)),
            ("teardown_ip_bytes", .integer(tally.teardown.ipBytes)),
            ("ack_packets", .integer(tally.ack.packets)),
            ("ack_ip_bytes", .integer(tally.ack.ipBytes)),
            ("retransmitted_packets", .integer(tally.retransmission.packets)),
            ("retransmitted_bytes", .integer(tally.retransmittedPayloadBytes)),
            ("missing_bytes", .integer(tally.missingBytes)),
            ("categories", .object(PacketCategory.allCases.map { ($0.name, counters(tally[$0])) })),
        ])
    }

    /// Milliseconds with microsecond resolution, e.g. `12.345`.
    static func milliseconds(_ nanoseconds: Int64) -> String {
        let microseconds = nanoseconds / 1000
        let magnitude = microseconds.magnitude
        let fraction = String(magnitude % 1000)
        return (microseconds < 0 ? "-" : "") + "\(magnitude / 1000)."
            + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}

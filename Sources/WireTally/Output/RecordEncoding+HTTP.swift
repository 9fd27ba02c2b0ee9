extension RecordEncoding {
    /// A `{"type":"http",…}` record: one request/response exchange with the exact bytes it cost.
    public static func http(
        _ exchange: HTTPExchange, id: Int, connection: TCPConnection, timestampDigits digits: Int
    ) -> JSONValue {
        let wire = connection.ledger.exchange(exchange.index)
        let tls = tlsSession(of: connection)
        let fallbackHost = exchange.serverName ?? connection.server.description
        return .object([
            ("type", .string("http")),
            ("id", .integer(id)),
            ("conn", .object([
                ("id", .integer(connection.id)),
                ("client", .string(connection.clientEndpoint)),
                ("server", .string(connection.serverEndpoint)),
                ("index", .integer(exchange.index)),
            ])),
            ("request", exchange.request.map { request($0, fallbackHost: fallbackHost, digits: digits) } ?? .null),
            ("response", exchange.response.map { response($0, digits: digits) } ?? .null),
            ("wire", .object([
                ("up", exchangeDirection(wire, .up)),
                ("down", exchangeDirection(wire, .down)),
                ("dns_ip_bytes", .integer(exchange.dnsIPBytes)),
            ])),
            ("timing", timing(exchange.timing)),
            ("tls", tls.map { tlsSummary($0.session) } ?? .null),
            ("flags", .array(flags(of: exchange, on: connection).map(JSONValue.string))),
        ])
    }

    /// `{"blocked","dns","connect","ssl","send","wait","receive","total"}` in milliseconds (-1: the
    /// phase did not happen or cannot be seen on the wire).
    static func timing(_ timing: ExchangeTiming) -> JSONValue {
        func phase(_ value: Double) -> JSONValue {
            value < 0 ? .integer(-1) : .number(milliseconds(Int64((value * 1_000_000).rounded())))
        }
        return .object([
            ("blocked", phase(timing.blocked)), ("dns", phase(timing.dns)), ("connect", phase(timing.connect)),
            ("ssl", phase(timing.ssl)), ("send", phase(timing.send)), ("wait", phase(timing.wait)),
            ("receive", phase(timing.receive)), ("total", phase(timing.total)),
        ])
    }

    /// The flag names of an exchange: `no_request`, `no_response`, `upgraded`, its messages' flags
    /// prefixed `request_`/`response_` (`response_gap`, `request_incomplete`…), then `encrypted` and
    /// `estimated` for exchanges estimated from TLS records.
    public static func flags(of exchange: HTTPExchange, on connection: TCPConnection) -> [String] {
        var flags: [String] = []
        if exchange.request == nil { flags.append("no_request") }
        if exchange.response == nil { flags.append("no_response") }
        if exchange.upgraded { flags.append("upgraded") }
        if let request = exchange.request { flags += flagNames(request.flags, prefix: "request_") }
        if let response = exchange.response { flags += flagNames(response.flags, prefix: "response_") }
        if let tls = tlsSession(of: connection) { flags += tls.isEstimated ? ["encrypted", "estimated"] : ["encrypted"] }
        return flags
    }

    /// The host a request was for: its Host header, else the authority of an absolute target, else
    /// the server address.
    public static func host(of request: HTTPMessage, fallback: String) -> String {
        if let host = request.header("Host"), !host.isEmpty { return host }
        if let target = request.target, let schemeEnd = target.firstRange(of: "://") {
            let rest = target[schemeEnd.upperBound...]
            return String(rest.prefix { $0 != "/" && $0 != "?" })
        }
        return fallback
    }

    private static func request(_ message: HTTPMessage, fallbackHost: String, digits: Int) -> JSONValue {
        .object([
            ("method", message.method.map(JSONValue.string) ?? .null),
            ("target", message.target.map(JSONValue.string) ?? .null),
            ("host", .string(host(of: message, fallback: fallbackHost))),
            ("version", .string(message.version)),
        ] + messageCommon(message, digits: digits))
    }

    private static func response(_ message: HTTPMessage, digits: Int) -> JSONValue {
        var members: [(String, JSONValue)] = [
            ("status", message.status.map(JSONValue.integer) ?? .null),
            ("reason", message.reason.map(JSONValue.string) ?? .null),
            ("version", .string(message.version)),
        ]
        let common = messageCommon(message, digits: digits)
        members += common.prefix(3)
        members.append(("interim", .object([
            ("count", .integer(message.interimCount)),
            ("bytes", .integer(message.interimBytes)),
        ])))
        members += common.dropFirst(3)
        return .object(members)
    }

    /// `ts_first`, `ts_last`, `bytes`, `content_encoding`, `decoded_body`.
    private static func messageCommon(_ message: HTTPMessage, digits: Int) -> [(String, JSONValue)] {
        let bytes = message.bytes
        return [
            ("ts_first", .number(message.firstOrigin.timestamp.formatted(digits: digits))),
            ("ts_last", .number(message.lastOrigin.timestamp.formatted(digits: digits))),
            ("bytes", .object([
                ("start_line", .integer(bytes.startLine)),
                ("headers", .integer(bytes.headers)),
                ("body", .integer(bytes.body)),
                ("framing", .integer(bytes.framing)),
                ("total", .integer(bytes.total + message.interimBytes)),
            ])),
            ("content_encoding", message.contentEncoding.map(JSONValue.string) ?? .null),
            ("decoded_body", message.decodedBodyBytes.map(JSONValue.integer) ?? .null),
        ]
    }

    /// One direction of an exchange's wire cost: the connection direction fields plus upgraded bytes.
    private static func exchangeDirection(_ wire: ExchangeWire, _ direction: FlowDirection) -> JSONValue {
        guard case var .object(members) = self.direction(wire.tally(direction)) else { return .null }
        members.removeAll { $0.0 == "missing_bytes" }
        members.append(("upgraded_payload_bytes", .integer(wire.upgradedPayloadBytes[direction.rawValue])))
        return .object(members)
    }

    private static let messageFlagNames: [(HTTPMessageFlags, String)] = [
        (.incomplete, "incomplete"), (.gap, "gap"), (.decompressionBomb, "decompression_bomb"),
        (.undecodable, "undecodable"), (.headersTooLarge, "headers_too_large"), (.upgrade, "upgrade"),
        (.resynchronized, "resynchronized"), (.malformed, "malformed"), (.closeDelimited, "close_delimited"),
    ]

    private static func flagNames(_ flags: HTTPMessageFlags, prefix: String) -> [String] {
        messageFlagNames.filter { flags.contains($0.0) }.map { prefix + $0.1 }
    }
}

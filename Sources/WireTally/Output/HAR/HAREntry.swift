/// One HAR `entry` for an HTTP exchange (see `HARWriter` for the field definitions).
enum HAREntry {
    /// The HAR `httpVersion` of a message's version: `HTTP/2.0` for HTTP/2, as browsers write it;
    /// HTTP/1.x as sent.
    static func harVersion(_ version: String) -> String { version == "HTTP/2" ? "HTTP/2.0" : version }

    /// HAR's `bodySize`, the body as transferred: with HTTP/1.1 chunk framing, the DATA payloads for
    /// HTTP/2 and HTTP/3 (their framing is frame headers, not the body's).
    static func harBodySize(_ message: HTTPMessage) -> Int {
        message.bytes.body + (message.http2 == nil && message.http3 == nil ? message.bytes.framing : 0)
    }

    static func entry(
        _ exchange: HTTPExchange, id: Int, connection: ExchangeConnection, timing: ExchangeTiming, pageref: String?
    ) -> (start: Timestamp, json: JSONValue) {
        let phases = HARTimings.Phases(timing)
        let start = timing.start ?? exchange.request?.firstOrigin.timestamp ?? exchange.response?.firstOrigin.timestamp
            ?? connection.firstTimestamp
        var members: [(String, JSONValue)] = []
        if let pageref { members.append(("pageref", .string(pageref))) }
        members += [
            ("startedDateTime", .string(HARDate.iso8601(start))),
            ("time", HARTimings.number(phases.time)),
            ("request", request(exchange.request, connection: connection, serverName: exchange.serverName)),
            ("response", response(exchange.response)),
            ("cache", .object([])),
            ("timings", phases.json),
            ("serverIPAddress", .string(connection.server.description)),
            ("connection", .string(String(connection.id))),
            ("_id", .integer(id)),
            ("_connection", .object([
                ("client", .string(connection.clientEndpoint)),
                ("server", .string(connection.serverEndpoint)),
                ("index", .integer(exchange.index)),
            ])),
            ("_wire", wire(connection.wire)),
            ("_flags", .array(RecordEncoding.flags(of: exchange, on: connection).map(JSONValue.string))),
        ]
        return (start, .object(members))
    }

    // MARK: Request

    static func request(_ message: HTTPMessage?, connection: ExchangeConnection, serverName: String? = nil) -> JSONValue {
        guard let message else {
            // HAR requires a request: a minimal one, flagged `no_request`.
            return .object([
                ("method", .string("")), ("url", .string("")), ("httpVersion", .string("")),
                ("cookies", .array([])), ("headers", .array([])), ("queryString", .array([])),
                ("headersSize", .integer(-1)), ("bodySize", .integer(-1)),
            ])
        }
        let target = message.target ?? ""
        var members: [(String, JSONValue)] = [
            ("method", .string(message.method ?? "")),
            ("url", .string(url(of: message, connection: connection, serverName: serverName))),
            ("httpVersion", .string(harVersion(message.version))),
            ("cookies", .array(HTTPCookies.requestCookies(message.headers).map(cookie))),
            ("headers", headers(message.headers)),
            ("queryString", .array((PercentDecoding.query(ofTarget: target).map(PercentDecoding.formPairs) ?? []).map {
                .object([("name", .string($0.name)), ("value", .string($0.value))])
            })),
        ]
        let bodySize = harBodySize(message)
        if bodySize > 0 || message.header("Content-Length") != nil || message.header("Transfer-Encoding") != nil {
            members.append(("postData", postData(message)))
        }
        members += [
            ("headersSize", .integer(message.bytes.startLine + message.bytes.headers)),
            ("bodySize", .integer(bodySize)),
        ]
        return .object(members)
    }

    /// The scheme (`https://` on a TLS connection, else `http://`) + Host (else the absolute target's
    /// authority, else the server address) + target; absolute-form targets as they are; a request
    /// without method (encrypted, no keys) `https://` + the server's name (SNI or DNS answer) or address.
    static func url(of message: HTTPMessage, connection: ExchangeConnection, serverName: String? = nil) -> String {
        let address = connection.server.isIPv6 ? "[\(connection.server)]" : connection.server.description
        guard message.method != nil, let target = message.target else {
            let host = serverName ?? address
            return "https://" + (connection.serverPort == 443 ? host : "\(host):\(connection.serverPort)")
        }
        if target.contains("://") { return target }
        let isTLS = connection.tlsSession != nil
        let scheme = isTLS ? "https://" : "http://"
        let host = RecordEncoding.host(of: message, fallback: connection.serverPort == (isTLS ? 443 : 80) ? address : connection.serverEndpoint)
        if target.hasPrefix("/") { return scheme + host + target }
        if message.method == "CONNECT" { return scheme + target }
        return scheme + host + (target == "*" ? "" : "/" + target)
    }

    static func postData(_ message: HTTPMessage) -> JSONValue {
        let mimeType = message.header("Content-Type") ?? ""
        let size = message.decodedBodyBytes ?? message.bytes.body
        var members: [(String, JSONValue)] = [("mimeType", .string(mimeType))]
        let complete = message.retainedBody.flatMap { $0.count == size ? $0 : nil }
        let text = complete.flatMap { isTextLike(mimeType, $0) ? String(validating: $0, as: UTF8.self) : nil }
        if let text, essence(mimeType) == "application/x-www-form-urlencoded" {
            members.append(("params", .array(PercentDecoding.formPairs(text).map {
                .object([("name", .string($0.name)), ("value", .string($0.value))])
            })))
        } else if let text {
            members.append(("text", .string(text)))
        } else {
            // HAR 1.2 requires `text` or `params`: an empty text, with the reason in `comment`.
            members.append(("text", .string("")))
            members.append(("comment", .string(message.retainedBody == nil
                ? "body not retained" : complete == nil ? "body larger than the retention limit" : "binary body")))
        }
        members.append(("_size", .integer(size)))
        return .object(members)
    }

    // MARK: Response

    static func response(_ message: HTTPMessage?) -> JSONValue {
        guard let message else {
            // HAR requires a response: status 0 (no response), flagged `no_response`.
            return .object([
                ("status", .integer(0)), ("statusText", .string("")), ("httpVersion", .string("")),
                ("cookies", .array([])), ("headers", .array([])),
                ("content", .object([("size", .integer(0)), ("mimeType", .string(""))])),
                ("redirectURL", .string("")), ("headersSize", .integer(-1)), ("bodySize", .integer(-1)),
                ("_transferSize", .integer(0)),
            ])
        }
        let headersSize = message.interimBytes + message.bytes.startLine + message.bytes.headers
        let bodySize = harBodySize(message)
        return .object([
            ("status", .integer(message.status ?? 0)),
            ("statusText", .string(message.reason ?? "")),
            ("httpVersion", .string(harVersion(message.version))),
            ("cookies", .array(HTTPCookies.responseCookies(message.headers, received: message.firstOrigin.timestamp)
                .map(cookie))),
            ("headers", headers(message.headers)),
            ("content", content(message)),
            ("redirectURL", .string(message.header("Location") ?? "")),
            ("headersSize", .integer(headersSize)),
            ("bodySize", .integer(bodySize)),
            ("_transferSize", .integer(message.interimBytes + message.bytes.total - message.bytes.control)),
        ])
    }

    static func content(_ message: HTTPMessage) -> JSONValue {
        let mimeType = message.header("Content-Type") ?? ""
        let size = message.decodedBodyBytes ?? message.bytes.body
        var members: [(String, JSONValue)] = [("size", .integer(size))]
        if let decoded = message.decodedBodyBytes { members.append(("compression", .integer(decoded - message.bytes.body))) }
        members.append(("mimeType", .string(mimeType)))
        if let body = message.retainedBody, body.count == size, size > 0 {
            if isTextLike(mimeType, body), let text = String(validating: body, as: UTF8.self) {
                members.append(("text", .string(text)))
            } else {
                members.append(("text", .string(Base64.encode(body))))
                members.append(("encoding", .string("base64")))
            }
        }
        return .object(members)
    }

    // MARK: Parts

    static func headers(_ headers: [HTTPHeader]) -> JSONValue {
        .array(headers.map { .object([("name", .string($0.name)), ("value", .string($0.value))]) })
    }

    static func cookie(_ cookie: HARCookie) -> JSONValue {
        var members: [(String, JSONValue)] = [("name", .string(cookie.name)), ("value", .string(cookie.value))]
        if let path = cookie.path { members.append(("path", .string(path))) }
        if let domain = cookie.domain { members.append(("domain", .string(domain))) }
        if let expires = cookie.expires { members.append(("expires", .string(expires))) }
        if let httpOnly = cookie.httpOnly { members.append(("httpOnly", .bool(httpOnly))) }
        if let secure = cookie.secure { members.append(("secure", .bool(secure))) }
        return .object(members)
    }

    /// `_wire`: the exchange's packets per direction, as in the `http` record's `wire`.
    static func wire(_ wire: ExchangeWire) -> JSONValue {
        JSONValue { encoder in
            encoder.object { encoder in
                encoder.field("up") { RecordEncoding.direction(wire.tally(.up), to: &$0) }
                encoder.field("down") { RecordEncoding.direction(wire.tally(.down), to: &$0) }
            }
        }
    }

    /// The media type without parameters, lowercased.
    static func essence(_ mimeType: String) -> String {
        String(mimeType.prefix { $0 != ";" }).trimmingHTTPWhitespace().lowercased()
    }

    /// Text media types (and JSON, XML, JavaScript, forms); without a type, bytes that are valid UTF-8
    /// without control characters other than whitespace.
    static func isTextLike(_ mimeType: String, _ body: [UInt8]) -> Bool {
        let type = essence(mimeType)
        if type.isEmpty {
            return !body.contains { $0 < 0x20 && $0 != 0x09 && $0 != 0x0a && $0 != 0x0d }
        }
        return type.hasPrefix("text/") || type.hasSuffix("+json") || type.hasSuffix("+xml") || type.hasSuffix("/json")
            || type.hasSuffix("/xml") || type.contains("javascript") || type == "application/x-www-form-urlencoded"
            || type == "application/ecmascript" || type == "image/svg+xml"
    }
}

/// Standard base64 (RFC 4648) for binary `content.text`.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let n = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], alphabet[Int(n & 63)]]
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            let n = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)]]
            out += rest == 2 ? [alphabet[Int(n >> 6 & 63)], UInt8(ascii: "=")] : [UInt8(ascii: "="), UInt8(ascii: "=")]
        }
        return String(decoding: out, as: UTF8.self)
    }
}

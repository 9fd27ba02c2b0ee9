extension RecordEncoding {
    /// A `{"type":"http",…}` record: one request/response exchange with the exact bytes it cost.
    package static func http(
        _ exchange: HTTPExchange, id: Int, connection: ExchangeConnection, timestampDigits digits: Int
    ) -> JSONValue {
        let record = ExchangeRecord(exchange, id: id, connection: connection)
        return JSONValue { http(record, timestampDigits: digits, to: &$0) }
    }

    /// An exchange's `http` record, read where `record` holds it: its exchange and connection are read
    /// member by member through the record and never passed on whole — a class's stored struct passed
    /// as an argument is first copied onto the stack (the exchange ~440 bytes, the connection ~530,
    /// its wire ~430: three copies an exchange when the writer was given the two values).
    static func http<Encoder: JSONEncoding>(
        _ record: ExchangeRecord, timestampDigits digits: Int, to encoder: inout Encoder
    ) {
        let layout = HTTPRecordLayout.shared
        // the host of a request without a Host header (the closures below capture these, not the record)
        let serverName = record.exchange.serverName, server = record.connection.server
        let request = record.exchange.request, response = record.exchange.response
        let http2 = http2Stream(request: request, response: response)
        let http3 = http3Stream(request: request, response: response)
        let cancelled = record.exchange.cancelledAt != nil
        encoder.object { encoder in
            encoder.field("type", literal: "http")
            encoder.field(layout.id, record.id)
            encoder.object(layout.conn) { encoder in
                encoder.field(layout.id, record.connection.id)
                encoder.field(layout.transport, record.connection.transportName)
                encoder.key(layout.client)
                encoder.endpoint(record.connection.client, port: record.connection.clientPort)
                encoder.key(layout.server)
                encoder.endpoint(server, port: record.connection.serverPort)
                encoder.field(layout.index, record.exchange.index)
            }
            // (only when there is one: a nil owner was made and copied twice to be passed)
            if let owner = record.connection.owner { ownerField(owner, to: &encoder) }
            encoder.object(layout.request, request) { encoder, message in
                self.request(
                    message, fallbackHost: ExchangeConnection.fallbackHost(serverName: serverName, server: server),
                    digits: digits, layout: layout, to: &encoder)
            }
            encoder.object(layout.response, response) { self.response($1, digits: digits, layout: layout, to: &$0) }
            encoder.object(layout.wire) { encoder in
                exchangeDirection(of: record, .up, cancelled: cancelled, as: layout.exchangeUp, to: &encoder)
                exchangeDirection(of: record, .down, cancelled: cancelled, as: layout.exchangeDown, to: &encoder)
                encoder.field(layout.dnsIPBytes, record.exchange.dnsIPBytes)
            }
            if let at = record.exchange.cancelledAt {
                encoder.object(layout.cancel) { encoder in
                    encoder.field("by", literal: "client")
                    encoder.field("ts", timestamp: at, digits: digits)
                }
            } else {
                encoder.nullMembers(layout.noCancel)
            }
            encoder.field(layout.timing) { timing(record.exchange.timing, as: layout.timingPhases, to: &$0) }
            // (tested by pattern: a comparison with nil copies the stream facts through their value witnesses)
            if case .none = http2, case .none = http3, record.connection.tlsSession == nil {
                encoder.nullMembers(layout.noStreamNorTLS)
            } else {
                streamsAndTLS(
                    http2: http2, http3: http3, connectionShareBytes: record.exchange.connectionShareBytes,
                    tlsSession: record.connection.tlsSession, tlsRecords: record.exchange.tlsRecords, layout: layout,
                    to: &encoder)
            }
            encoder.key(layout.flags)
            encoder.array { encoder in
                forEachFlag(
                    request: request, response: response, upgraded: record.exchange.upgraded, cancelled: cancelled,
                    protection: record.connection.protection, http2: http2, http3: http3
                ) { encoder.string($0) }
            }
        }
    }

    /// The `http2`, `http3` and `tls` members of an `http` record.
    private static func streamsAndTLS<Encoder: JSONEncoding>(
        http2: HTTP2StreamInfo?, http3: HTTP3StreamInfo?, connectionShareBytes: DirectionPair<Int>,
        tlsSession: TLSSessionSnapshot?, tlsRecords: DirectionPair<TLSExchangeRecordBytes>?, layout: HTTPRecordLayout,
        to encoder: inout Encoder
    ) {
        encoder.object(layout.http2, http2) { encoder, stream in
            encoder.field("stream_id", Int(stream.streamID))
            encoder.field("scheme", stream.scheme)
            encoder.field("pushed_by", stream.pushedBy.map(Int.init))
            encoder.field("reset_error_code", stream.resetErrorCode.map(Int.init))
            encoder.field("reset_by", stream.resetBy.map { $0 == .up ? "client" : "server" })
            encoder.field("reset_after_end", stream.resetAfterEnd)
            encoder.field("refused", stream.refused)
            encoder.object("connection_share") { encoder in
                encoder.field("up", connectionShareBytes.up)
                encoder.field("down", connectionShareBytes.down)
            }
        }
        encoder.object(layout.http3, http3) { encoder, stream in
            encoder.field("stream_id", Int(clamping: stream.streamID))
            encoder.field("scheme", stream.scheme)
            encoder.field("reset_error_code", stream.resetErrorCode.map { Int(clamping: $0) })
            encoder.field("reset_by", stream.resetBy.map { $0 == .up ? "client" : "server" })
            encoder.field("stop_sending_error_code", stream.stopSendingErrorCode.map { Int(clamping: $0) })
            encoder.field("stop_sending_by", stream.stopSendingBy.map { $0 == .up ? "client" : "server" })
            encoder.field("qpack_blocked", stream.qpackBlocked)
            encoder.field("frames", stream.frames)
            encoder.field("unknown_frames", stream.unknownFrames)
        }
        encoder.object(layout.tls, tlsSession) { encoder, session in
            tlsSummaryFields(session.info, to: &encoder)
            if let records = tlsRecords {
                encoder.field("up") { tlsRecordBytes(records.up, to: &$0) }
                encoder.field("down") { tlsRecordBytes(records.down, to: &$0) }
            }
        }
    }

    /// `{"blocked","dns","connect","ssl","send","wait","receive","total"}` in milliseconds (-1: the
    /// phase did not happen or cannot be seen on the wire).
    static func timing<Encoder: JSONEncoding>(
        _ timing: ExchangeTiming, as phases: NumberMembers<8>, to encoder: inout Encoder
    ) {
        func phase(_ milliseconds: Double) -> Int64? {
            milliseconds < 0 ? nil : roundedToInteger(milliseconds * 1_000_000)
        }
        encoder.durationMembers(
            phases,
            nanoseconds: [
                phase(timing.blocked), phase(timing.dns), phase(timing.connect), phase(timing.ssl), phase(timing.send),
                phase(timing.wait), phase(timing.receive), phase(timing.total),
            ]
        )
    }

    /// `Int64(value.rounded())` (halves away from zero) of a `value` that is not negative, without libm's
    /// `round` call: the truncation, plus one when the rest is a half or more (the rest of a double is
    /// exact); traps where that does (NaN, infinity, 2^63 and more).
    @inline(__always)
    static func roundedToInteger(_ value: Double) -> Int64 {
        let whole = Int64(value)
        return value - Double(whole) >= 0.5 ? whole &+ 1 : whole
    }

    /// What HTTP/2 says of an exchange's stream (nil for HTTP/1.x), from its `request` and `response`:
    /// their stream facts merged (the request's push and the response's reset are the stream's).
    static func http2Stream(request: HTTPMessage?, response: HTTPMessage?) -> HTTP2StreamInfo? {
        guard var stream = request?.http2 ?? response?.http2 else { return nil }
        for other in [request?.http2, response?.http2].compactMap({ $0 }) {
            stream.scheme = stream.scheme ?? other.scheme
            stream.pushedBy = stream.pushedBy ?? other.pushedBy
            stream.resetErrorCode = stream.resetErrorCode ?? other.resetErrorCode
            stream.resetBy = stream.resetBy ?? other.resetBy
            stream.resetAfterEnd = stream.resetAfterEnd || other.resetAfterEnd
            stream.refused = stream.refused || other.refused
            stream.hpackError = stream.hpackError || other.hpackError
        }
        return stream
    }

    /// What HTTP/3 says of an exchange's stream (nil for other versions), from its `request` and
    /// `response`: the request's stream facts, with the response's reset, STOP_SENDING and QPACK facts
    /// merged in.
    static func http3Stream(request: HTTPMessage?, response: HTTPMessage?) -> HTTP3StreamInfo? {
        guard var stream = request?.http3 ?? response?.http3 else { return nil }
        for other in [request?.http3, response?.http3].compactMap({ $0 }) {
            stream.scheme = stream.scheme ?? other.scheme
            if stream.resetErrorCode == nil {
                stream.resetErrorCode = other.resetErrorCode
                stream.resetBy = other.resetBy
            }
            if stream.stopSendingErrorCode == nil {
                stream.stopSendingErrorCode = other.stopSendingErrorCode
                stream.stopSendingBy = other.stopSendingBy
            }
            stream.qpackBlocked = stream.qpackBlocked || other.qpackBlocked
            stream.qpackError = stream.qpackError || other.qpackError
        }
        stream.frames = [request?.http3, response?.http3].compactMap { $0?.frames }.reduce(0, +)
        stream.unknownFrames = [request?.http3, response?.http3].compactMap { $0?.unknownFrames }.reduce(0, +)
        return stream
    }

    /// The flag names of an exchange: `no_request`, `no_response`, `upgraded`, HTTP/2's `pushed`,
    /// `reset`, `refused` and `hpack_error`, its messages' flags prefixed `request_`/`response_`
    /// (`response_gap`, `request_incomplete`…), then `encrypted` and `estimated` for exchanges estimated
    /// from TLS records or QUIC datagrams, `encrypted` and `decrypted` for exchanges parsed from decrypted
    /// TLS records or QUIC packets.
    package static func flags(of exchange: HTTPExchange, on connection: ExchangeConnection) -> [String] {
        var flags: [String] = []
        let request = exchange.request, response = exchange.response
        forEachFlag(
            request: request, response: response, upgraded: exchange.upgraded, cancelled: exchange.cancelledAt != nil,
            protection: connection.protection, http2: http2Stream(request: request, response: response),
            http3: http3Stream(request: request, response: response)
        ) { flags.append($0) }
        return flags
    }

    /// `body` run on each flag name of `flags(of:on:)`, in order, from the exchange's `request`,
    /// `response`, `upgraded`, whether it was cancelled, its connection's `protection`, and its
    /// `http2Stream(request:response:)` and `http3Stream(request:response:)`.
    private static func forEachFlag(
        request: HTTPMessage?, response: HTTPMessage?, upgraded: Bool, cancelled: Bool,
        protection: ExchangeConnection.Protection, http2: HTTP2StreamInfo?, http3: HTTP3StreamInfo?,
        _ body: (String) -> Void
    ) {
        if request == nil { body("no_request") }
        if response == nil { body("no_response") }
        if upgraded { body("upgraded") }
        if cancelled { body("cancelled") }
        if let stream = http2 {
            if stream.pushedBy != nil { body("pushed") }
            if stream.resetErrorCode != nil && !stream.resetAfterEnd { body("reset") }
            if stream.refused { body("refused") }
            if stream.hpackError { body("hpack_error") }
        }
        if let stream = http3 {
            if stream.resetErrorCode != nil { body("reset") }
            if stream.qpackError { body("qpack_error") }
        }
        if let flags = request?.flags, !flags.isEmpty {
            for (flag, name) in requestFlagNames where flags.contains(flag) { body(name) }
        }
        if let flags = response?.flags, !flags.isEmpty {
            for (flag, name) in responseFlagNames where flags.contains(flag) { body(name) }
        }
        switch protection {
        case .cleartext: break
        case .estimated:
            body("encrypted")
            body("estimated")
        case .decrypted:
            body("encrypted")
            body("decrypted")
        case .encrypted: body("encrypted")
        }
    }

    /// The host a request was for: its Host header, else the authority of an absolute target, else
    /// the server address.
    package static func host(of request: HTTPMessage, fallback: @autoclosure () -> String) -> String {
        withHost(of: request, fallback: fallback()) { String(decoding: $0, as: UTF8.self) }
    }

    /// `body` run on the UTF-8 of `host(of:fallback:)`: a Host header's read where the message keeps it,
    /// without a `String` made for it.
    static func withHost<Result>(
        of request: HTTPMessage, fallback: @autoclosure () -> String, _ body: (UnsafeRawBufferPointer) -> Result
    ) -> Result {
        let fields = request.headerFields
        if let position = fields.indices.first(where: { fields.nameEquals(at: $0, "host") }),
            let host = fields.withValue(at: position, { $0.isEmpty ? nil : body($0) }) {
            return host
        }
        var host: String
        if let target = request.target, let schemeEnd = target.firstRange(of: "://") {
            let rest = target[schemeEnd.upperBound...]
            host = String(rest.prefix { $0 != "/" && $0 != "?" })
        } else {
            host = fallback()
        }
        return host.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }

    private static func request<Encoder: JSONEncoding>(
        _ message: HTTPMessage, fallbackHost: @autoclosure () -> String, digits: Int, layout: HTTPRecordLayout,
        to encoder: inout Encoder
    ) {
        encoder.field(layout.method, message.method)
        encoder.key(layout.target)
        message.withTarget { if let target = $0 { encoder.string(utf8: target) } else { encoder.null() } }
        encoder.key(layout.host)
        withHost(of: message, fallback: fallbackHost()) { encoder.string(utf8: $0) }
        encoder.field(layout.version, message.version)
        messageTimesAndBytes(message, digits: digits, layout: layout, to: &encoder)
        messageBody(message, layout: layout, to: &encoder)
    }

    private static func response<Encoder: JSONEncoding>(
        _ message: HTTPMessage, digits: Int, layout: HTTPRecordLayout, to encoder: inout Encoder
    ) {
        encoder.field(layout.status, message.status)
        encoder.field(layout.reason, message.reason)
        encoder.field(layout.version, message.version)
        messageTimesAndBytes(message, digits: digits, layout: layout, to: &encoder)
        encoder.integerMembers(layout.interimMember, [message.interimCount, message.interimBytes])
        messageBody(message, layout: layout, to: &encoder)
    }

    /// `ts_first`, `ts_last`, `bytes` of a request or response.
    private static func messageTimesAndBytes<Encoder: JSONEncoding>(
        _ message: HTTPMessage, digits: Int, layout: HTTPRecordLayout, to encoder: inout Encoder
    ) {
        let bytes = message.bytes
        encoder.field(layout.streamId, message.http2.map { Int($0.streamID) } ?? message.http3.map { Int(clamping: $0.streamID) })
        encoder.field(layout.tsFirst, timestamp: message.firstOrigin.timestamp, digits: digits)
        encoder.field(layout.tsLast, timestamp: message.lastOrigin.timestamp, digits: digits)
        let total = bytes.total + message.interimBytes
        // HTTP/2 and HTTP/3: control frames, the decoded header list and the compression ratio (null when
        // the header blocks were not decoded) before the total; HTTP/1.x: the byte counts are one run
        guard let decoded = message.http2?.headersDecodedBytes ?? message.http3?.headersDecodedBytes else {
            return encoder.integerMembers(
                layout.messageBytesMember, [bytes.startLine, bytes.headers, bytes.body, bytes.framing, total])
        }
        encoder.object("bytes") { encoder in
            encoder.integerMembers(layout.messageByteMembers, [bytes.startLine, bytes.headers, bytes.body, bytes.framing])
            encoder.field("control", bytes.control)
            encoder.field("headers_decoded", decoded)
            func ratio(_ name: JSONKey, to encoder: inout Encoder) {
                encoder.key(name)
                if decoded > 0 { encoder.number(thousandths(bytes.headers, of: decoded)) } else { encoder.null() }
            }
            if message.http2 != nil { ratio("hpack_ratio", to: &encoder) }
            if message.http3 != nil { ratio("qpack_ratio", to: &encoder) }
            encoder.field("total", total)
        }
    }

    /// `part / whole` with three decimals (`0.187`).
    static func thousandths(_ part: Int, of whole: Int) -> String {
        let value = (part * 1000 + whole / 2) / whole
        let fraction = String(value % 1000)
        return "\(value / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    /// `content_encoding`, `decoded_body` of a request or response.
    private static func messageBody<Encoder: JSONEncoding>(
        _ message: HTTPMessage, layout: HTTPRecordLayout, to encoder: inout Encoder
    ) {
        let contentEncoding = message.contentEncoding, decodedBody = message.decodedBodyBytes
        guard contentEncoding != nil || decodedBody != nil else { return encoder.nullMembers(layout.noBodyCoding) }
        encoder.field(layout.contentEncoding, contentEncoding)
        encoder.field(layout.decodedBody, decodedBody)
    }

    /// One direction of an exchange's wire cost (`record.connection.wire`, read in the record), the
    /// member `up` or `down` (`run`): the connection direction fields (without `missing_bytes`) plus
    /// upgraded bytes and, of a cancelled exchange, what came after the cancel (zero otherwise).
    private static func exchangeDirection<Encoder: JSONEncoding>(
        of record: ExchangeRecord, _ direction: FlowDirection, cancelled: Bool, as run: NumberMembers<35>,
        to encoder: inout Encoder
    ) {
        var values = InlineArray<35, Int>(repeating: 0)
        let index = storeDirection(record.connection.wire.tally(direction), missingBytes: false, into: &values)
        values[index] = record.connection.wire.upgradedPayloadBytes[direction.rawValue]
        if cancelled {
            _ = store(record.connection.wire.afterClientClose[direction.rawValue].total, into: &values, at: index + 1)
        }
        encoder.integerMembers(run, values)
    }

    private static let messageFlagNames: [(HTTPMessageFlags, String)] = [
        (.incomplete, "incomplete"), (.gap, "gap"), (.decompressionBomb, "decompression_bomb"),
        (.undecodable, "undecodable"), (.headersTooLarge, "headers_too_large"), (.upgrade, "upgrade"),
        (.resynchronized, "resynchronized"), (.malformed, "malformed"), (.closeDelimited, "close_delimited"),
    ]

    private static let requestFlagNames = messageFlagNames.map { ($0.0, "request_" + $0.1) }
    private static let responseFlagNames = messageFlagNames.map { ($0.0, "response_" + $0.1) }
}

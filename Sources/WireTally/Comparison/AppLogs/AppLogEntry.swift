/// Timing phases an app reported for one exchange, in milliseconds; nil where the log has none.
///
/// Definitions (the same for every format, chosen to be comparable with `ExchangeTiming`):
/// - `dns`: the lookup (domain lookup start → end);
/// - `connect`: the TCP handshake only (TLS excluded, unlike HAR's `connect`);
/// - `ssl`: the TLS handshake;
/// - `ttfb`: request start → first response byte (the wire's `send + wait`);
/// - `total`: the whole exchange as the app saw it (the wire's `total`).
public struct AppLogPhases: Hashable, Sendable {
    /// Milliseconds of the name lookup, nil when the app did not say (or looked nothing up).
    public var dns: Double?
    /// Milliseconds of the TCP (or QUIC) connect, nil when the app did not say.
    public var connect: Double?
    /// Milliseconds of the TLS handshake, nil when the app did not say.
    public var ssl: Double?
    /// Milliseconds from the request's start to the first response byte, nil when the app did not say.
    public var ttfb: Double?
    /// Milliseconds of the whole exchange as the app saw it, nil when the app did not say.
    public var total: Double?

    /// Phases in milliseconds; those the app's log does not give stay nil.
    public init(dns: Double? = nil, connect: Double? = nil, ssl: Double? = nil, ttfb: Double? = nil, total: Double? = nil) {
        self.dns = dns
        self.connect = connect
        self.ssl = ssl
        self.ttfb = ttfb
        self.total = total
    }
}

/// One request an app (or client) logged, in a format-independent form.
package struct AppLogEntry: Hashable, Sendable {
    /// Position in the log (0-based, log order).
    package var sequence: Int
    /// Where it came from: 1-based line (JSON Lines) or 0-based `log.entries` index (HAR).
    package var line: Int
    /// The source text (JSON Lines: the line; HAR: `entries[i]`).
    package var source: String

    /// Request method, uppercase; nil when the log does not say.
    package var method: String?
    /// True when `method` is a guess (old curl without `method`): the matcher does not require it.
    package var methodIsGuess = false
    /// The absolute URL requested.
    package var url: String
    /// Final status code; nil or 0 when there was no response.
    package var status: Int?
    /// Start of the request on the app's clock, seconds since the epoch; nil when the log has no
    /// absolute time (curl).
    package var start: Double?
    /// Start relative to the first entry of the log, in seconds, when only that is known (curl:
    /// the sum of the earlier transfers' `time_total`, transfers being sequential).
    package var relativeStart: Double?

    /// Byte counts as the app reported them; nil where unknown (HAR's -1).
    package var requestHeaderBytes: Int?
    package var requestBodyBytes: Int?
    package var responseHeaderBytes: Int?
    package var responseBodyBytes: Int?
    /// Response bytes on the network when the log has them separately (HAR `_transferSize`).
    package var responseTransferBytes: Int?

    package var phases = AppLogPhases()

    /// The connection the app used, when it logs it (curl `local_port`, `remote_ip`, `remote_port`):
    /// lets the matcher pair by connection and sequence instead of time.
    package var localPort: Int?
    package var remoteAddress: String?
    package var remotePort: Int?

    package init(
        sequence: Int, line: Int, source: String, method: String?, url: String, status: Int? = nil,
        start: Double? = nil, relativeStart: Double? = nil, requestHeaderBytes: Int? = nil, requestBodyBytes: Int? = nil,
        responseHeaderBytes: Int? = nil, responseBodyBytes: Int? = nil, responseTransferBytes: Int? = nil,
        phases: AppLogPhases = AppLogPhases(), localPort: Int? = nil, remoteAddress: String? = nil, remotePort: Int? = nil
    ) {
        self.sequence = sequence
        self.line = line
        self.source = source
        self.method = method
        self.url = url
        self.status = status
        self.start = start
        self.relativeStart = relativeStart
        self.requestHeaderBytes = requestHeaderBytes
        self.requestBodyBytes = requestBodyBytes
        self.responseHeaderBytes = responseHeaderBytes
        self.responseBodyBytes = responseBodyBytes
        self.responseTransferBytes = responseTransferBytes
        self.phases = phases
        self.localPort = localPort
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
    }

    /// What the entry says the exchange cost: up = request header + body bytes, down = the response's
    /// transfer size when logged (HAR `_transferSize`), else response header + body bytes. Unknown
    /// parts count 0; nil when the entry has no byte count at all.
    package var estimate: TrafficEstimate? {
        let upKnown = requestHeaderBytes != nil || requestBodyBytes != nil
        let downKnown = responseTransferBytes != nil || responseHeaderBytes != nil || responseBodyBytes != nil
        guard upKnown || downKnown else { return nil }
        let up = (requestHeaderBytes ?? 0) + (requestBodyBytes ?? 0)
        let down = responseTransferBytes ?? ((responseHeaderBytes ?? 0) + (responseBodyBytes ?? 0))
        return TrafficEstimate(
            up: up, down: down, upHeaders: requestHeaderBytes, upBody: requestBodyBytes,
            downHeaders: responseHeaderBytes, downBody: responseBodyBytes)
    }
}

/// The app log formats wiretally reads.
package enum AppLogFormat: String, CaseIterable, Sendable {
    /// HAR 1.2 (Charles, Proxyman, Chrome, in-app loggers, wiretally's own `--format har`).
    case har
    /// curl `--write-out '%{json}'`, one object per line.
    case curl
    /// wiretally's app log JSON Lines (see `WiretallyAppLogReader`).
    case wiretally

    /// Sniffs the content of `path`: one JSON object with `log` → HAR; JSON lines with
    /// `url_effective` → curl; lines with `request_header_bytes` (or `url` and `start`) → wiretally.
    package static func detect(path: String) throws -> AppLogFormat {
        guard let format = detect(bytes: try AppLogFile.read(path)) else { throw AppLogError.unknownFormat(path: path) }
        return format
    }

    /// Sniffs `bytes` (nil: none of the formats).
    package static func detect(bytes: [UInt8]) -> AppLogFormat? {
        let lines = AppLogFile.lines(bytes)
        guard let first = lines.first else { return nil }
        // A HAR document is one object with `log` (usually pretty-printed over many lines).
        if first.bytes.first == UInt8(ascii: "{"), let whole = try? AppLogJSON.parse(bytes[...]),
           whole.appMember("log")?.appIsObject == true {
            return .har
        }
        for line in lines.prefix(20) {
            guard let object = try? AppLogJSON.parse(line.bytes), object.appIsObject else { continue }
            if object.appMember("url_effective") != nil { return .curl }
            if object.appMember("request_header_bytes") != nil || object.appMember("response_body_bytes") != nil
                || (object.appMember("url") != nil && object.appMember("start") != nil) {
                return .wiretally
            }
        }
        return nil
    }
}

/// An app log read from a file.
package struct AppLog: Sendable {
    package var path: String
    package var format: AppLogFormat
    package var entries: [AppLogEntry]

    package init(path: String, format: AppLogFormat, entries: [AppLogEntry]) {
        self.path = path
        self.format = format
        self.entries = entries
    }

    /// Reads `path`, detecting its format unless `format` is given.
    package static func read(path: String, format: AppLogFormat? = nil) throws -> AppLog {
        let bytes = try AppLogFile.read(path)
        guard let format = format ?? AppLogFormat.detect(bytes: bytes) else { throw AppLogError.unknownFormat(path: path) }
        let entries: [AppLogEntry]
        switch format {
        case .har: entries = try HARLogReader.entries(bytes: bytes, path: path)
        case .curl: entries = try CurlJSONLogReader.entries(bytes: bytes, path: path)
        case .wiretally: entries = try WiretallyAppLogReader.entries(bytes: bytes, path: path)
        }
        return AppLog(path: path, format: format, entries: entries)
    }
}

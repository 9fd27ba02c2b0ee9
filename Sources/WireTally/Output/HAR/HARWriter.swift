/// Writes one HAR 1.2 document (http://www.softwareishard.com/blog/har-12-spec/) for the whole run:
/// exchanges are buffered as they arrive (per connection), sorted by `startedDateTime` and written at
/// `finish`. Connections and flows are not HAR entries; the run's summary is in `log._summary`.
///
/// Sizes are the exact bytes on the TCP stream (`HTTPMessage.bytes`):
/// - `request.headersSize` = request line + header block (up to and including the empty line);
///   `request.bodySize` = body as sent + chunk framing (`bytes.body + bytes.framing`), so
///   `headersSize + bodySize` is the whole request on the stream (nginx `$request_length`);
/// - `response.headersSize` = interim 1xx responses + status line + header block (HAR's "until the
///   double CRLF before the body"; the interim responses are received before it);
///   `response.bodySize` = body as received + chunk framing (HTTP/2, HTTP/3: the DATA payloads);
///   `response._transferSize` = the response's bytes on the stream (`headersSize + bodySize` for
///   HTTP/1.x; HTTP/2: its frames, control frames aside), nginx's `$bytes_sent`;
/// - `content.size` = decoded size when content-encoded and decodable, else the body size;
///   `content.compression` = decoded − encoded body size (only when decoded);
/// - `postData._size` likewise the (decoded) request body size;
/// - `_wire` = packets and IP/frame/payload bytes per direction as attributed by the ledger.
/// A missing request is synthesised (method and url `""`, sizes -1) and a missing response has status
/// 0 (sizes -1, `_transferSize` 0); `_flags` says `no_request` / `no_response`.
/// `text` (`content`, `postData`) needs `HTTPLimits.retainedBodyBytes` (see `OutputFormat.analyzerOptions`).
package final class HARWriter: RecordWriter {
    /// The `creator.version` written.
    package static let version = "0.1.0"

    package typealias Timing = (HTTPExchange, ExchangeConnection) -> ExchangeTiming

    private let output: TextOutput
    private let timing: Timing
    private var entries: [(start: Timestamp, id: Int, text: String)] = []
    private static let pageID = "capture"

    /// - Parameters:
    ///   - output: where the HAR document is written once the run is over.
    ///   - timing: the phases of each exchange; by default those the analyzer computed
    ///     (`HTTPExchange.timing`).
    package init(output: TextOutput, timing: @escaping Timing = { exchange, _ in exchange.timing }) {
        self.output = output
        self.timing = timing
    }

    package func write(_ record: AnalysisRecord, timestampDigits: Int) {
        guard case let .exchange(exchangeRecord) = record else { return }
        let entry = HAREntry.entry(
            exchangeRecord.exchange, id: exchangeRecord.id, connection: exchangeRecord.connection,
            timing: timing(exchangeRecord.exchange, exchangeRecord.connection), pageref: Self.pageID)
        entries.append((entry.start, exchangeRecord.id, entry.json.serialized))
    }

    package func finish(summary: CaptureSummary, files: [String]) {
        output.write(document(summary: summary, files: files))
        output.flush()
    }

    /// The whole HAR text (one entry per line inside the compact JSON).
    func document(summary: CaptureSummary, files: [String]) -> String {
        entries.sort { ($0.start, $0.id) < ($1.start, $1.id) }
        let pageStart = entries.first?.start ?? summary.firstTimestamp ?? Timestamp(nanoseconds: 0)
        let page: JSONValue = .object([
            ("startedDateTime", .string(HARDate.iso8601(pageStart))),
            ("id", .string(Self.pageID)),
            ("title", .string(files.joined(separator: ", "))),
            ("pageTimings", .object([("onContentLoad", .integer(-1)), ("onLoad", .integer(-1))])),
            ("comment", .string("every HTTP exchange of the capture")),
        ])
        var text = "{\"log\":{\"version\":\"1.2\",\"creator\":"
        text += JSONValue.object([("name", .string("wiretally")), ("version", .string(Self.version))]).serialized
        text += ",\"pages\":[" + page.serialized + "],\n\"entries\":["
        for (index, entry) in entries.enumerated() {
            text += index == 0 ? "\n" : ",\n"
            text += entry.text
        }
        text += "\n],\n\"comment\":\"sizes are the exact bytes on the TCP stream; _wire holds the packets each exchange cost\",\n"
        text += "\"_summary\":" + RecordEncoding.summary(summary, files: files).serialized + "}}\n"
        return text
    }
}

extension OutputFormat {
    /// Analyzer options this format needs on top of `options`: HAR decodes bodies (`content.size` is
    /// the decoded size) and retains the first 64 KiB of every decoded body for `content.text` / `postData`.
    package func analyzerOptions(_ options: CaptureAnalyzer.Options) -> CaptureAnalyzer.Options {
        var options = options
        guard self == .har else { return options }
        options.http.decodeBodies = true
        if options.http.retainedBodyBytes == 0 { options.http.retainedBodyBytes = HARWriter.retainedBodyBytes }
        return options
    }
}

extension HARWriter {
    /// Body bytes retained per message for HAR `text` (64 KiB).
    package static let retainedBodyBytes = 64 << 10
}

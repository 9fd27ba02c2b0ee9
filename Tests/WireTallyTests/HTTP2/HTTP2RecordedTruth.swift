import Foundation
import Testing
@testable import WireTally

/// The HTTP/2 captures (`captures/h2-*`, `tls13-h2`) and their analysis with the key log, shared by the
/// suites that compare wiretally's HTTP/2 records with independent truth.
enum HTTP2Recordings {
    /// Every recorded HTTP/2 capture (captures/README.md, "h2-*" and "tls13-h2").
    static let all = ["h2-curl", "h2-tls12", "h2-upload", "h2-upgrade", "h2-nghttp", "h2-h2load", "h2-python", "h2-lossy", "h2-cancel",
                      "tls13-h2"]
    /// Those with tshark's frame-per-row view (`NAME.h2frames.tsv`; `tls13-h2` has only `http2.tsv`).
    static let withFrames = all.filter { FileManager.default.fileExists(atPath: TestPaths.capture($0 + ".h2frames.tsv")) }
    /// Those with nginx as the server (`NAME.nginx.jsonl`).
    static let withNginx = all.filter { FileManager.default.fileExists(atPath: TestPaths.capture($0 + ".nginx.jsonl")) }

    /// The analysis of capture `name` with its key log when it has one (h2c needs none).
    static func analyze(_ name: String) throws -> (CollectingWriter, AnalysisRun.Result) {
        var options = CaptureAnalyzer.Options()
        let keys = TestPaths.capture(name + ".keys")
        if FileManager.default.fileExists(atPath: keys) { options.tlsKeys = try TLSKeyStore.reading(files: [keys]) }
        return CollectingWriter.analyze([TestPaths.capture(name + ".pcap")], options: options)
    }

    /// The keyed analyses of every HTTP/2 capture, made once for the suites that read them.
    nonisolated(unsafe) static let analyses: [String: (writer: CollectingWriter, result: AnalysisRun.Result)] = {
        var analyses: [String: (CollectingWriter, AnalysisRun.Result)] = [:]
        for name in all { analyses[name] = try? analyze(name) }
        return analyses
    }()

    static func analysis(_ name: String) throws -> (writer: CollectingWriter, result: AnalysisRun.Result) {
        try #require(analyses[name], "\(name): the analysis failed")
    }
}

/// Reading wiretally's HTTP/2 records (the output contract in README.md, "HTTP/2").
extension JSONValue {
    /// An HTTP/2 exchange (`request`/`response` `version` "HTTP/2", an `http2` object).
    var isHTTP2Exchange: Bool {
        if case .object? = self["http2"] { return true }
        return false
    }

    /// The exchange's HTTP/2 stream id.
    var streamID: Int? { int("http2.stream_id") }

    /// The stream whose PUSH_PROMISE created this exchange's stream.
    var pushedBy: Int? { int("http2.pushed_by") }

    /// What the exchange's stream carried in `direction` ("up"/"down"; a response's `bytes.total`
    /// includes its interim responses, README.md): for a pushed stream the request (its PUSH_PROMISE)
    /// is sent by the server, so it counts in the down direction.
    func streamBytes(_ direction: String, _ field: String = "total") -> Int {
        let request = int("request.bytes.\(field)") ?? 0, response = int("response.bytes.\(field)") ?? 0
        if direction == "up" { return pushedBy == nil ? request : 0 }
        return response + (pushedBy == nil ? 0 : request)
    }

    /// Everything the exchange owns of its connection's HTTP/2 plaintext in `direction`: its stream's
    /// bytes and its `http2.connection_share` (README: "its plaintext is `bytes.total` plus
    /// `connection_share`").
    func http2Plaintext(_ direction: String) -> Int {
        streamBytes(direction) + (int("http2.connection_share.\(direction)") ?? 0)
    }
}

/// tshark's HTTP/2 frames of a recording, one per row (`NAME.h2frames.tsv`, made at recording time from
/// `tshark -T pdml` with the key log and the h2c ports decoded as HTTP/2; captures/README.md), and what
/// they say each stream carried. Nothing here comes from wiretally.
struct TsharkH2Frames {
    struct Frame {
        var packet: Int
        var index: Int
        var tcpStream: Int
        var sourcePort: Int
        var destinationPort: Int
        /// The 24-byte client preface (no other field).
        var isPreface: Bool
        var streamID: Int
        var type: Int
        var flags: Int
        var length: Int
        var padLength: Int?
        var headerBlockBytes: Int
        var dataBytes: Int
        var method: String
        var path: String
        var status: Int?
        var promisedStreamID: Int?
        var error: Int?
        var lastStreamID: Int?
        /// Bytes on the connection: the frame header and payload, or the preface.
        var size: Int { isPreface ? 24 : 9 + length }
        var endStream: Bool { (type == 0 || type == 1) && flags & 0x1 != 0 }
    }

    var frames: [Frame]

    static func load(_ name: String) throws -> TsharkH2Frames {
        let rows = try TruthTable.load(name, "h2frames.tsv").rows
        return TsharkH2Frames(frames: try rows.map { row in
            func number(_ column: String) throws -> Int {
                try #require(row.int(column), "\(name) frame \(row["frame.number"]): \(column) \(row[column])")
            }
            let preface = row["magic"] == "1"
            return Frame(
                packet: try number("frame.number"), index: try number("index"), tcpStream: try number("tcp.stream"),
                sourcePort: try number("tcp.srcport"), destinationPort: try number("tcp.dstport"), isPreface: preface,
                streamID: preface ? 0 : try number("streamid"), type: preface ? -1 : try number("type"),
                flags: preface ? 0 : Int(row["flags"].dropFirst(2), radix: 16) ?? -1, length: preface ? 0 : try number("length"),
                padLength: row.int("pad_length"), headerBlockBytes: row.int("header_block_bytes") ?? 0, dataBytes: row.int("data_bytes") ?? 0,
                method: row["method"], path: row["path"], status: row.int("status"), promisedStreamID: row.int("promised_stream_id"),
                error: row.int("error"), lastStreamID: row.int("last_stream_id"))
        }.sorted { ($0.packet, $0.index) < ($1.packet, $1.index) })
    }

    /// The connections (TCP streams), each with its frames in capture order.
    var connections: [TsharkH2Connection] {
        Dictionary(grouping: frames, by: \.tcpStream).sorted { $0.key < $1.key }.map { TsharkH2Connection(tcpStream: $0.key, frames: $0.value) }
    }
}

/// One connection's frames and, by RFC 9113's stream states and the attribution rule of README.md
/// ("HTTP/2"), what each stream carried per direction and what belongs to no stream.
struct TsharkH2Connection {
    var tcpStream: Int
    var frames: [TsharkH2Frame]
    typealias TsharkH2Frame = TsharkH2Frames.Frame

    /// The server's port: every recorded HTTP/2 server listens on a port below the ephemeral range
    /// (8082, 8443, 9080, 9443), so it is the smaller of the two.
    var serverPort: Int { min(frames[0].sourcePort, frames[0].destinationPort) }
    var clientPort: Int { max(frames[0].sourcePort, frames[0].destinationPort) }

    func direction(_ frame: TsharkH2Frame) -> String { frame.sourcePort == clientPort ? "up" : "down" }

    /// What one stream carried.
    struct Stream {
        var id: Int
        var pushedBy: Int?
        /// Per message ("request"/"response"): every byte of its frames (a pushed stream's request is
        /// its PUSH_PROMISE), the HPACK fragments, the DATA payload without padding, and the frames.
        var total: [String: Int] = [:]
        var headers: [String: Int] = [:]
        var body: [String: Int] = [:]
        var dataFrames: [String: Int] = [:]
        var resetBy: String?
        var resetCode: Int?
        /// The RST_STREAM came after both END_STREAMs.
        var resetAfterEnd = false
        /// The client's RST_STREAM came before the server's END_STREAM: the client cancelled it.
        var cancelledByClient = false
        /// Per message: the control frames sent on the stream after it was over (not in `total`: they are
        /// the stream's while its exchange is not written yet, else connection-level).
        var afterEnd: [String: Int] = [:]
        var refused = false
        var method = "", path = ""
        var status: Int?
        /// Sender ended (END_STREAM), per direction; a pushed stream's client side never opens.
        var ended: [String: Bool] = [:]
        var isClosed: Bool { resetBy != nil || (ended["up"] == true && ended["down"] == true) }
    }

    /// The streams and the connection-level bytes per direction, by these rules (RFC 9113 §5.1 and
    /// README.md "HTTP/2"):
    /// - a client HEADERS on an idle odd stream opens it; a PUSH_PROMISE opens the promised stream,
    ///   whose request is the PUSH_PROMISE (sent by the server) and whose client side is closed;
    /// - a stream's frames (HEADERS, CONTINUATION, DATA, RST_STREAM, WINDOW_UPDATE, PRIORITY) while it
    ///   is open belong to its request (client) or response (server); a RST_STREAM closes it, and so do
    ///   both END_STREAMs;
    /// - a RST_STREAM, WINDOW_UPDATE or PRIORITY on one of the 64 streams closed last, from a side that
    ///   had a message on it, is `afterEnd` (curl's RST_STREAM after a complete response: the stream's
    ///   reset, after its end — when wiretally had not written the exchange yet);
    /// - any other frame of the server on one of the 64 streams closed last that the client cancelled (its
    ///   RST_STREAM before the server's END_STREAM: DATA, HEADERS still in flight) is the stream's response;
    /// - everything else is connection-level: the preface, stream 0, unknown frame types, frames on a
    ///   stream never opened (nghttp's PRIORITY anchors) or closed (DATA after a reset), the client's
    ///   frames on a pushed stream;
    /// - a stream is refused when the peer of its initiator sent a GOAWAY whose last stream id is below
    ///   it while it was still open, or before it opened.
    /// Order across the two directions is tshark's (packet, then position in the packet).
    /// The result of `attribute`: the streams, the connection-level bytes per direction, the streams
    /// in order of opening, and each frame's stream (nil: connection-level).
    struct Attribution {
        var streams: [Int: Stream] = [:]
        var connectionLevel = ["up": 0, "down": 0]
        var order: [Int] = []
        var owners: [Int?] = []
    }

    func streams(upgradedStream1: Bool = false) -> (streams: [Int: Stream], connectionLevel: [String: Int], order: [Int]) {
        let attribution = attribute(upgradedStream1: upgradedStream1)
        return (attribution.streams, attribution.connectionLevel, attribution.order)
    }

    func attribute(upgradedStream1: Bool = false) -> Attribution {
        var result = Attribution()
        var goaway: [String: Int] = [:]  // sender → last stream id
        var openedBlock: Int?  // the stream of the header block CONTINUATIONs continue (nil: connection-level)
        var highestClientStream = 0
        var closedOrder: [Int] = []  // streams in the order they closed
        if upgradedStream1 {
            result.streams[1] = Stream(id: 1, ended: ["up": true])
            result.order.append(1)
            highestClientStream = 1
        }
        func connectionLevel(_ frame: TsharkH2Frame, _ direction: String) {
            result.connectionLevel[direction, default: 0] += frame.size
            result.owners.append(nil)
        }
        for frame in frames {
            let direction = direction(frame)
            if frame.isPreface || frame.streamID == 0 || frame.type > 9 {
                connectionLevel(frame, direction)
                if frame.type == 7, let last = frame.lastStreamID {
                    goaway[direction] = last
                    let refusedParity = direction == "down" ? 1 : 0
                    for (id, stream) in result.streams where id % 2 == refusedParity && id > last && !stream.isClosed {
                        result.streams[id]!.refused = true
                    }
                }
                continue
            }
            if frame.type == 9 {  // CONTINUATION: its block's owner
                if let id = openedBlock {
                    add(frame, to: id, direction, &result.streams)
                    result.owners.append(id)
                } else {
                    connectionLevel(frame, direction)
                }
                continue
            }
            if frame.type == 5, let promised = frame.promisedStreamID {
                var stream = Stream(id: promised, pushedBy: frame.streamID, ended: ["up": true])
                stream.method = frame.method
                stream.path = frame.path
                if let last = goaway["up"], promised > last { stream.refused = true }
                result.streams[promised] = stream
                result.order.append(promised)
                add(frame, to: promised, "down", &result.streams, message: "request")
                result.owners.append(promised)
                openedBlock = frame.flags & 0x4 == 0 ? promised : nil
                continue
            }
            if result.streams[frame.streamID] == nil, frame.type == 1, direction == "up", frame.streamID % 2 == 1, frame.streamID > highestClientStream {
                var stream = Stream(id: frame.streamID)
                stream.method = frame.method
                stream.path = frame.path
                if let last = goaway["down"], frame.streamID > last { stream.refused = true }
                result.streams[frame.streamID] = stream
                result.order.append(frame.streamID)
                highestClientStream = frame.streamID
            }
            var outside = true
            if let stream = result.streams[frame.streamID], stream.isClosed, [2, 3, 8].contains(frame.type),
               closedOrder.suffix(64).contains(frame.streamID),
               direction == "down" || !(stream.pushedBy != nil || (upgradedStream1 && frame.streamID == 1)) {
                result.streams[frame.streamID]!.afterEnd[direction == "up" ? "request" : "response", default: 0] += frame.size
                result.owners.append(frame.streamID)
                if frame.type == 3 && result.streams[frame.streamID]!.resetBy == nil {
                    result.streams[frame.streamID]!.resetBy = direction == "up" ? "client" : "server"
                    result.streams[frame.streamID]!.resetCode = frame.error
                    result.streams[frame.streamID]!.resetAfterEnd = true
                }
                continue
            }
            if let stream = result.streams[frame.streamID], stream.isClosed, stream.cancelledByClient, direction == "down",
               closedOrder.suffix(64).contains(frame.streamID) {
                add(frame, to: frame.streamID, direction, &result.streams)
                result.owners.append(frame.streamID)
                if frame.type == 1 { openedBlock = frame.flags & 0x4 == 0 ? frame.streamID : nil }
                continue
            }
            if let stream = result.streams[frame.streamID], !stream.isClosed {
                // the client sends nothing on a stream whose request it did not send; a sender's
                // HEADERS or DATA after its END_STREAM is a protocol error
                let clientHasNoRequest = direction == "up" && (stream.pushedBy != nil || (upgradedStream1 && frame.streamID == 1))
                outside = clientHasNoRequest || ((frame.type == 0 || frame.type == 1) && stream.ended[direction] == true)
            }
            if outside {
                connectionLevel(frame, direction)
                if frame.type == 1 { openedBlock = nil }
                continue
            }
            add(frame, to: frame.streamID, direction, &result.streams)
            result.owners.append(frame.streamID)
            if frame.type == 1 { openedBlock = frame.flags & 0x4 == 0 ? frame.streamID : nil }
            if frame.type == 1, direction == "down", result.streams[frame.streamID]!.status == nil, let status = frame.status, status >= 200 {
                result.streams[frame.streamID]!.status = status
            }
            if frame.type == 3 {
                result.streams[frame.streamID]!.cancelledByClient = direction == "up" && result.streams[frame.streamID]!.ended["down"] != true
                result.streams[frame.streamID]!.resetBy = direction == "up" ? "client" : "server"
                result.streams[frame.streamID]!.resetCode = frame.error
            }
            if frame.endStream { result.streams[frame.streamID]!.ended[direction] = true }
            if result.streams[frame.streamID]!.isClosed { closedOrder.append(frame.streamID) }
        }
        return result
    }

    private func add(_ frame: TsharkH2Frame, to id: Int, _ direction: String, _ streams: inout [Int: Stream], message: String? = nil) {
        let message = message ?? (direction == "up" ? "request" : "response")
        streams[id]!.total[message, default: 0] += frame.size
        streams[id]!.headers[message, default: 0] += frame.headerBlockBytes
        streams[id]!.body[message, default: 0] += frame.dataBytes
        if frame.type == 0 { streams[id]!.dataFrames[message, default: 0] += 1 }
    }

    /// Frames and bytes per direction and type (10: every unknown type), the preface apart.
    var frameTotals: [String: [Int: (frames: Int, bytes: Int)]] {
        var totals: [String: [Int: (frames: Int, bytes: Int)]] = ["up": [:], "down": [:]]
        for frame in frames where !frame.isPreface {
            let type = min(frame.type, 10)
            let before = totals[direction(frame)]![type] ?? (0, 0)
            totals[direction(frame)]![type] = (before.frames + 1, before.bytes + frame.size)
        }
        return totals
    }

    var prefaceBytes: Int { frames.filter(\.isPreface).count * 24 }
}

/// The names of `http2.frames.{up,down}` members by frame type (README.md, the connection record).
enum HTTP2FrameNames {
    static let byType = ["data", "headers", "priority", "rst_stream", "settings", "push_promise", "ping", "goaway", "window_update",
                         "continuation", "unknown"]
}

/// nginx 1.22's counters of an HTTP/2 stream (captures/README.md, "nginx's HTTP/2 counters", read from
/// `ngx_http_v2.c` and checked on all 299 recorded lines at recording time) against an exchange:
/// - `$request_length` = the request's HPACK header block + DATA payload without padding (a pushed
///   stream: its PUSH_PROMISE's block) → `request.bytes.headers + request.bytes.body`;
/// - `$bytes_sent` = Σ (9 + payload) of the HEADERS, CONTINUATION, DATA and PUSH_PROMISE frames nginx
///   wrote on the stream (PUSH_PROMISEs count for the stream they are sent on; WINDOW_UPDATE and
///   RST_STREAM not) → `response.bytes.total` (interim included) `− response.bytes.control` + the `request.bytes.total`
///   of the exchanges it pushed (`http2.pushed_by` = this stream: their request is that PUSH_PROMISE);
/// - `$body_bytes_sent` = Σ DATA payloads (nginx never pads) → `response.bytes.body`.
enum HTTP2NginxTruth {
    /// Finds each HTTP/2 line's exchange (client port, method, target; several identical requests on a
    /// connection in nginx's order, `$connection_requests`) and compares the three counters and the
    /// status. Returns the lines with the exchange each one matched (each exchange once).
    @discardableResult
    static func compare(_ lines: [NginxLog], _ exchanges: [JSONValue], _ name: String,
                        sourceLocation: SourceLocation = #_sourceLocation) -> [(line: NginxLog, exchange: JSONValue)] {
        var used = Set<Int>(), matched: [(line: NginxLog, exchange: JSONValue)] = []
        for line in lines.sorted(by: { ($0.clientPort, $0.connectionRequests) < ($1.clientPort, $1.connectionRequests) }) {
            let what = "\(name) \(line.method) \(line.uri) from port \(line.clientPort) #\(line.connectionRequests)"
            let candidates = exchanges.filter {
                $0.isHTTP2Exchange && $0.port("conn.client") == line.clientPort && $0.string("request.target") == line.uri
                    && $0.string("request.method") == line.method && !used.contains($0.int("id") ?? -1)
            }.sorted { ($0.streamID ?? 0) < ($1.streamID ?? 0) }
            guard let exchange = candidates.first else {
                Issue.record("\(what): no HTTP/2 exchange", sourceLocation: sourceLocation)
                continue
            }
            used.insert(exchange.int("id") ?? -1)
            matched.append((line, exchange))
            let pushed = exchanges.filter {
                $0.int("conn.id") == exchange.int("conn.id") && $0.pushedBy != nil && $0.pushedBy == exchange.streamID
            }
            let pushPromises = pushed.reduce(0) { $0 + ($1.int("request.bytes.total") ?? 0) }
            let requestLength = (exchange.int("request.bytes.headers") ?? -1) + (exchange.int("request.bytes.body") ?? -1)
            let bytesSent = (exchange.int("response.bytes.total") ?? 0) - (exchange.int("response.bytes.control") ?? 0) + pushPromises
            #expect(exchange.int("response.status") == line.status, "\(what): status", sourceLocation: sourceLocation)
            #expect(requestLength == line.requestLength, "\(what): $request_length = header block + body", sourceLocation: sourceLocation)
            #expect(bytesSent == line.bytesSent, "\(what): $bytes_sent = response frames but control + PUSH_PROMISEs sent on the stream",
                    sourceLocation: sourceLocation)
            #expect((exchange.int("response.bytes.body") ?? 0) == line.bodyBytesSent, "\(what): $body_bytes_sent = DATA payloads",
                    sourceLocation: sourceLocation)
            #expect(exchange.string("request.version") == "HTTP/2", "\(what)", sourceLocation: sourceLocation)
        }
        return matched
    }
}

/// curl's `%{json}` of an HTTP/2 transfer (curl 7.88 with libnghttp2) against its exchange. Measured on
/// every HTTP/2 transfer of the recordings (h2-curl, h2-tls12, h2-upload, h2-lossy, tls13-h2): `size_download` is
/// the DATA payload as received (not decoded, `--compressed` or not) → `response.bytes.body`;
/// `size_upload` the request's DATA payload → `request.bytes.body`; `size_request` and `size_header`
/// are the header lists as curl rebuilds them in HTTP/1 form, with `HTTP/2` where wiretally's
/// `headers_decoded` writes `HTTP/1.1` (2 bytes more) in the request line and the status line:
/// `size_request` = request `headers_decoded` − 2, `size_header` = response `headers_decoded` − 2
/// (curl counts no body in `size_request` over HTTP/2). An h2c upgrade (h2-upgrade): `size_request` is
/// the HTTP/1.1 request as sent (with the small body sent with it), `size_header` counts the 101 (our
/// interim) before the HTTP/2 head.
enum HTTP2CurlTruth {
    /// The path and query of curl's `url_effective` (the request target).
    static func target(_ transfer: CurlTransfer) -> String {
        let url = transfer.fields["url_effective"] as? String ?? ""
        guard let components = URLComponents(string: url) else { return url }
        return components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    /// The HTTP/2 exchange of each HTTP/2 transfer of `transfers`: on curl's local port with its method
    /// and target (curl writes its lines in completion order, which for `--parallel` is not the order
    /// of the streams; several identical requests on a connection in curl's order).
    static func exchanges(for transfers: [CurlTransfer], in exchanges: [JSONValue]) -> [(CurlTransfer, JSONValue?)] {
        var used = Set<Int>()
        return transfers.map { transfer in
            let match = exchanges.filter {
                $0.isHTTP2Exchange && $0.port("conn.client") == transfer.port && $0.string("request.target") == target(transfer)
                    && $0.string("request.method") == transfer.fields["method"] as? String && !used.contains($0.int("id") ?? -1)
            }.min { ($0.streamID ?? 0) < ($1.streamID ?? 0) }
            if let match { used.insert(match.int("id") ?? -1) }
            return (transfer, match)
        }
    }

    /// Finds each HTTP/2 transfer of `transfers` among `exchanges` (`exchanges(for:in:)`) and compares
    /// it; a transfer without its exchange is an issue. Returns how many were compared.
    static func compareEach(_ transfers: [CurlTransfer], in exchanges: [JSONValue], _ name: String,
                            sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        var compared = 0
        for (transfer, exchange) in self.exchanges(for: transfers, in: exchanges) {
            let what = "\(name) \(transfer.fields["method"] ?? "") \(transfer.fields["url_effective"] ?? "") from port \(transfer.port)"
            guard let exchange else {
                Issue.record("\(what): no HTTP/2 exchange", sourceLocation: sourceLocation)
                continue
            }
            compare(transfer, exchange, what, sourceLocation: sourceLocation)
            compared += 1
        }
        return compared
    }

    static func compare(_ transfer: CurlTransfer, _ exchange: JSONValue, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let curl = transfer.fields
        #expect(exchange.int("response.status") == curl["http_code"] as? Int, "\(what): status", sourceLocation: sourceLocation)
        #expect(exchange.int("response.bytes.body") == curl["size_download"] as? Int, "\(what): size_download = DATA payload", sourceLocation: sourceLocation)
        #expect(exchange.int("request.bytes.body") == curl["size_upload"] as? Int, "\(what): size_upload = request DATA payload", sourceLocation: sourceLocation)
        if exchange.string("request.version") == "HTTP/1.1" {
            // the request that upgraded to h2c: curl counts it as sent, its small body included
            #expect(exchange.int("request.bytes.total") == curl["size_request"] as? Int, "\(what): size_request = the HTTP/1.1 request",
                    sourceLocation: sourceLocation)
        } else {
            #expect((exchange.int("request.bytes.headers_decoded") ?? 0) - 2 == curl["size_request"] as? Int,
                    "\(what): size_request = headers_decoded with HTTP/2 for HTTP/1.1", sourceLocation: sourceLocation)
        }
        #expect((exchange.int("response.bytes.headers_decoded") ?? 0) + (exchange.int("response.interim.bytes") ?? 0) - 2
                    == curl["size_header"] as? Int,
                "\(what): size_header = headers_decoded with HTTP/2 for HTTP/1.1", sourceLocation: sourceLocation)
    }
}

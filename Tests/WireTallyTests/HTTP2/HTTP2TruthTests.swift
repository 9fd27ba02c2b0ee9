import Foundation
import Testing
@testable import WireTally

/// Every HTTP/2 stream of the recordings (`captures/h2-*`, `tls13-h2`; analysed with their key logs)
/// against what the other programs on the wire said: nginx's own counters, tshark's frames, the
/// python peer's per-stream logs, curl's `%{json}`, nghttp's `-v` log and HAR, h2load's traffic report.
/// None of them is computed by wiretally; what each one counts is documented in captures/README.md.
@Suite struct HTTP2TruthTests {
    /// Our connections and exchanges of one recording, by client port.
    struct Recording {
        var writer: CollectingWriter
        var result: AnalysisRun.Result
        init(_ name: String) throws { (writer, result) = try HTTP2Recordings.analysis(name) }
        func connection(clientPort: Int) -> JSONValue? { writer.connections.first { $0.port("client") == clientPort } }
        func exchanges(clientPort: Int) -> [JSONValue] { writer.exchanges.filter { $0.port("conn.client") == clientPort } }
    }

    /// Each stream's `http2.scheme` is the `:scheme` its client (or a PUSH_PROMISE) sent: `https` on TLS
    /// connections, `http` on h2c; none for the stream an HTTP/1.1 `Upgrade: h2c` request opened.
    @Test(arguments: HTTP2Recordings.all)
    func schemeOfEveryStream(_ name: String) throws {
        let recording = try Recording(name)
        for exchange in recording.writer.exchanges where exchange.isHTTP2Exchange {
            let tls = recording.connection(clientPort: exchange.port("conn.client") ?? -1)?["tls"]
            let expected = exchange.flagNames.contains("upgraded") ? nil : (tls != nil && tls != .null ? "https" : "http")
            #expect(exchange.string("http2.scheme") == expected, "\(name) stream \(exchange.streamID ?? -1)")
        }
    }

    @Test func everyHTTP2RecordingIsThere() {
        // The lists come from the files: make sure none is silently empty.
        #expect(HTTP2Recordings.withFrames.count == 9)
        #expect(HTTP2Recordings.withNginx == ["h2-curl", "h2-tls12", "h2-upload", "h2-nghttp", "h2-h2load", "h2-lossy", "h2-cancel", "tls13-h2"])
        #expect(HTTP2Recordings.all.allSatisfy { HTTP2Recordings.analyses[$0] != nil })
    }

    // MARK: nginx

    /// nginx 1.22's `$request_length`, `$bytes_sent` and `$body_bytes_sent` of every HTTP/2 stream it
    /// served (TLS and h2c, pushes, buffered and unbuffered uploads, through loss): nginx counts them
    /// in its own process from the frames it read and wrote (`HTTP2NginxTruth` says how, from nginx's
    /// source); every line must be one of our exchanges with every counter exact, and every HTTP/2
    /// exchange with nginx must be a line.
    @Test(arguments: HTTP2Recordings.withNginx)
    func nginxCountersOfEveryStream(_ name: String) throws {
        let recording = try Recording(name)
        let log = try NginxLog.load(TestPaths.capture(name + ".nginx.jsonl"))
        #expect(!log.isEmpty && log.allSatisfy(\.isHTTP2), "\(name): an HTTP/2 recording")
        let matched = HTTP2NginxTruth.compare(log, recording.writer.exchanges, name)
        #expect(matched.count == log.count, "\(name): every nginx line has its exchange")
        let nginxPorts: Set<Int> = [8443, 8082]
        #expect(recording.writer.exchanges.count { $0.isHTTP2Exchange && nginxPorts.contains($0.port("conn.server") ?? -1) } == log.count,
                "\(name): no HTTP/2 exchange with nginx that nginx did not log")
    }

    // MARK: tshark's frames

    /// tshark's frames of each connection (`NAME.h2frames.tsv`, decrypted with the key log at recording
    /// time) against our records, stream by stream: per stream and direction Σ (9 + length) of its frames
    /// = the message's `bytes.total` (a response's includes its interim ones; a pushed stream's request is its PUSH_PROMISE, in
    /// the server's direction), DATA payloads without padding = `bytes.body`, HPACK fragments =
    /// `bytes.headers`; method, path, status; pushed streams with the stream that promised them; resets
    /// with who sent them and the code; refused streams. What belongs to no stream (`TsharkH2Connection`:
    /// the preface, stream 0, unknown types, frames on idle or closed streams) per direction = Σ
    /// `http2.connection_share`; frames and bytes per type = the connection record's `http2.frames`.
    @Test(arguments: HTTP2Recordings.withFrames)
    func streamsEqualTsharkFrames(_ name: String) throws {
        let recording = try Recording(name)
        let connections = try TsharkH2Frames.load(name).connections
        #expect(!connections.isEmpty)
        var streamsCompared = 0
        for tshark in connections {
            let what = "\(name) tcp.stream \(tshark.tcpStream) port \(tshark.clientPort)"
            let connection = try #require(recording.connection(clientPort: tshark.clientPort), "\(what): no connection")
            let exchanges = recording.exchanges(clientPort: tshark.clientPort)
            // h2c by `Upgrade: h2c` (h2-upgrade): stream 1 is the HTTP/1.1 request that upgraded, its 101 an
            // interim response of stream 1's HTTP/2 response (README.md)
            let upgraded = exchanges.contains { $0.flagNames.contains("upgraded") }
            streamsCompared += try Self.compareStreams(tshark, connection, exchanges, upgraded: upgraded, what)
        }
        #expect(streamsCompared > 0, "\(name): streams compared")
    }

    /// `tls13-h2` was recorded before `h2frames.tsv` existed: its `http2.tsv` lists the same frames per
    /// packet (stream, type, flags, length; no padding, priority or push in that capture, so a HEADERS
    /// payload is its header block and a DATA payload its body), compared the same way.
    @Test func tls13H2StreamsEqualTsharkFrames() throws {
        let recording = try Recording("tls13-h2")
        var frames: [TsharkH2Frames.Frame] = []
        for row in try TruthTable.load("tls13-h2", "http2.tsv").rows {
            let ids = row.list("http2.streamid"), types = row.list("http2.type"), flags = row.list("http2.flags"), lengths = row.list("http2.length")
            try #require(ids.count == types.count && ids.count == flags.count && ids.count == lengths.count, "frame \(row["frame.number"])")
            let source = row.int("tcp.srcport")!, destination = row.int("tcp.dstport")!
            guard !ids.isEmpty else { continue }
            // the client's first HTTP/2 packet starts with the preface (tshark gives it no value)
            if source > destination && !frames.contains(where: { $0.tcpStream == row.int("tcp.stream")! && $0.sourcePort == source }) {
                frames.append(TsharkH2Frames.Frame(packet: row.int("frame.number")!, index: -1, tcpStream: row.int("tcp.stream")!, sourcePort: source,
                                                   destinationPort: destination, isPreface: true, streamID: 0, type: -1, flags: 0, length: 0,
                                                   headerBlockBytes: 0, dataBytes: 0, method: "", path: "", status: nil))
            }
            for index in ids.indices {
                let type = Int(types[index])!, flag = Int(flags[index].dropFirst(2), radix: 16)!, length = Int(lengths[index])!
                try #require(flag & 0x28 == 0, "tls13-h2 frame \(row["frame.number"]): padding or priority")
                frames.append(TsharkH2Frames.Frame(
                    packet: row.int("frame.number")!, index: index, tcpStream: row.int("tcp.stream")!, sourcePort: source, destinationPort: destination,
                    isPreface: false, streamID: Int(ids[index])!, type: type, flags: flag, length: length,
                    headerBlockBytes: type == 1 || type == 9 ? length : 0, dataBytes: type == 0 ? length : 0, method: "", path: "", status: nil))
            }
        }
        let connections = TsharkH2Frames(frames: frames).connections
        #expect(connections.count == 2)
        var compared = 0
        for tshark in connections {
            let what = "tls13-h2 tcp.stream \(tshark.tcpStream)"
            let connection = try #require(recording.connection(clientPort: tshark.clientPort), "\(what)")
            compared += try Self.compareStreams(tshark, connection, recording.exchanges(clientPort: tshark.clientPort), upgraded: false, what,
                                                 namesKnown: false)
        }
        #expect(compared == 7)  // 4 + 3 transfers (captures/README.md)
    }

    /// One connection's streams against tshark's; returns how many streams were compared.
    static func compareStreams(_ tshark: TsharkH2Connection, _ connection: JSONValue, _ exchanges: [JSONValue], upgraded: Bool, _ what: String,
                               namesKnown: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        let (streams, connectionLevel, order) = tshark.streams(upgradedStream1: upgraded)
        let http2 = exchanges.filter(\.isHTTP2Exchange)
        #expect(http2.count == streams.count && http2.count == exchanges.count, "\(what): one exchange per stream", sourceLocation: sourceLocation)
        // Control frames after a stream's end: its `control` while its exchange was held, else
        // connection-level (which, depends on when the exchange was written): per direction, what
        // the exchanges did not count of them is in the connection shares.
        var afterEndLeft = ["up": 0, "down": 0]
        for id in order {
            let stream = streams[id]!
            let label = "\(what) stream \(id)"
            let matches = http2.filter { $0.streamID == id }
            guard matches.count == 1, let exchange = matches.first else {
                Issue.record("\(label): \(matches.count) exchanges", sourceLocation: sourceLocation)
                continue
            }
            let pushed = stream.pushedBy != nil
            let upgradedStream = upgraded && id == 1
            if upgradedStream {
                // its request is HTTP/1.1 and its 101 (HTTP/1.1) the response's interim: no frames
                #expect(exchange.string("request.version") == "HTTP/1.1" && exchange.int("response.interim.count") == 1, "\(label): the upgrade",
                        sourceLocation: sourceLocation)
                #expect(exchange.flagNames.contains("upgraded"), "\(label): upgraded", sourceLocation: sourceLocation)
            }
            for (message, direction) in [("request", pushed ? "down" : "up"), ("response", "down")] where !(upgradedStream && message == "request") {
                // a response's `bytes.total` includes its interim responses: the upgrade's 101 is no frame
                let http1 = message == "response" && upgradedStream ? exchange.int("response.interim.bytes") ?? 0 : 0
                let afterEnd = stream.afterEnd[message, default: 0]
                let counted = (exchange.int("\(message).bytes.total") ?? 0) - http1 - stream.total[message, default: 0]
                #expect(counted == 0 || counted == afterEnd,
                        "\(label) \(message) (\(direction)): Σ 9 + length of its frames (+ \(afterEnd) after its end)", sourceLocation: sourceLocation)
                afterEndLeft[message == "request" && !pushed ? "up" : "down", default: 0] += afterEnd - counted
                #expect(exchange.int("\(message).bytes.body") ?? 0 == stream.body[message, default: 0],
                        "\(label) \(message): DATA payload without padding", sourceLocation: sourceLocation)
                #expect(exchange.int("\(message).bytes.headers") ?? 0 == stream.headers[message, default: 0],
                        "\(label) \(message): HPACK fragments", sourceLocation: sourceLocation)
            }
            if namesKnown && !(upgraded && id == 1) {
                #expect(exchange.string("request.method") == stream.method && exchange.string("request.target") == stream.path, "\(label): method, path",
                        sourceLocation: sourceLocation)
            }
            #expect(exchange.int("response.status") == stream.status || !namesKnown, "\(label): status", sourceLocation: sourceLocation)
            #expect(exchange.pushedBy == stream.pushedBy, "\(label): pushed_by", sourceLocation: sourceLocation)
            #expect(exchange.flagNames.contains("pushed") == pushed, "\(label): pushed", sourceLocation: sourceLocation)
            // a reset after the end is the stream's only if its RST_STREAM was counted (exchange still held)
            let resetCounted = !stream.resetAfterEnd || exchange["http2"]?["reset_after_end"] == .bool(true)
            #expect(exchange.string("http2.reset_by") == (resetCounted ? stream.resetBy : nil), "\(label): reset_by", sourceLocation: sourceLocation)
            // (tls13-h2's truth file has no error codes: `namesKnown` false)
            #expect(exchange.int("http2.reset_error_code") == (resetCounted ? stream.resetCode : nil) || !namesKnown, "\(label): reset_error_code",
                    sourceLocation: sourceLocation)
            #expect(exchange.flagNames.contains("reset") == (stream.resetBy != nil && !stream.resetAfterEnd), "\(label): reset", sourceLocation: sourceLocation)
            #expect(exchange["http2"]?["refused"] == .bool(stream.refused), "\(label): refused", sourceLocation: sourceLocation)
            #expect(exchange.flagNames.contains("refused") == stream.refused, "\(label): refused flag", sourceLocation: sourceLocation)
        }
        for direction in ["up", "down"] {
            let share = http2.reduce(0) { $0 + ($1.int("http2.connection_share.\(direction)") ?? 0) }
            #expect(share == connectionLevel[direction, default: 0] + afterEndLeft[direction, default: 0],
                    "\(what) \(direction): Σ connection_share = the frames of no stream", sourceLocation: sourceLocation)
        }
        // Frames and bytes per type and direction, the preface.
        let totals = tshark.frameTotals
        for direction in ["up", "down"] {
            let frames = try #require(connection["http2"]?["frames"]?[direction], "\(what): http2.frames", sourceLocation: sourceLocation)
            for (type, name) in HTTP2FrameNames.byType.enumerated() {
                let counted = totals[direction]![type] ?? (0, 0)
                #expect(frames.int("\(name).frames") == counted.frames && frames.int("\(name).bytes") == counted.bytes,
                        "\(what) \(direction) \(name): \(frames[name]?.serialized ?? "-") vs tshark \(counted)", sourceLocation: sourceLocation)
            }
            #expect(frames.int("preface_bytes") == (direction == "up" ? tshark.prefaceBytes : 0), "\(what): preface", sourceLocation: sourceLocation)
        }
        #expect(connection.int("http2.streams") == streams.count, "\(what): streams", sourceLocation: sourceLocation)
        return streams.count
    }

    // MARK: The python peer

    /// `scripts/lib/h2-peer.py` wrote every frame itself and logged each stream when its connection
    /// ended (`NAME.h2server.jsonl`, and for the connections of its own client `NAME.h2client.jsonl`),
    /// so it knows what each stream carried and how it ended: outcome (complete, reset by whom with
    /// which code, refused above a GOAWAY's last stream id, idle), pushed streams and their parent,
    /// padding and CONTINUATIONs, unknown frame types. Each logged stream must be our exchange with
    /// the same outcome, bytes and framing; idle streams (PRIORITY anchors only) none; the connection's
    /// bytes (`bytes_in`/`bytes_out`) our plaintext, its GOAWAY our connection record's.
    @Test(arguments: ["h2-python", "h2-upgrade"])
    func pythonPeerLogsAreOurs(_ name: String) throws {
        let recording = try Recording(name)
        var compared = 0
        for file in ["h2server", "h2client"] {
            let path = TestPaths.capture("\(name).\(file).jsonl")
            guard FileManager.default.fileExists(atPath: path) else { continue }
            let lines = try JSONLines.load(path)
            let serverSide = file == "h2server"
            for (clientPort, streams) in Dictionary(grouping: lines, by: { $0["client_port"] as? Int ?? -1 }) {
                let what = "\(name) \(file) port \(clientPort)"
                let connection = try #require(recording.connection(clientPort: clientPort), "\(what): no connection")
                let exchanges = recording.exchanges(clientPort: clientPort)
                compared += try Self.comparePeerLog(streams, serverSide: serverSide, connection, exchanges, what)
            }
        }
        #expect(compared > 0, "\(name): streams compared")
    }

    /// One connection's lines of an h2-peer log against our records; returns the streams compared.
    static func comparePeerLog(_ lines: [[String: Any]], serverSide: Bool, _ connection: JSONValue, _ exchanges: [JSONValue],
                               _ what: String) throws -> Int {
        // `in`/`out` are the logging side's; up is the client's direction.
        let up = serverSide ? "in" : "out", down = serverSide ? "out" : "in"
        func frames(_ line: [String: Any], _ key: String) -> [[Int?]] {
            ((line[key] as? [String: Any])?["frames"] as? [[Any]] ?? []).map { $0.map { $0 as? Int } }
        }
        /// The peer logged a reset that came after the stream had ended both ways (an END_STREAM in each
        /// direction before the RST_STREAM).
        func resetAfterBothEnds(_ line: [String: Any]) -> Bool {
            let sent = frames(line, up), received = frames(line, down)
            func ends(_ list: [[Int?]]) -> Bool { list.contains { [0, 1, 9].contains($0[0] ?? -1) && ($0[1] ?? 0) & 1 != 0 } }
            for list in [sent, received] {
                guard let reset = list.firstIndex(where: { $0[0] == 3 }) else { continue }
                return ends(Array(list[..<reset])) && ends(list == sent ? received : sent)
            }
            return false
        }
        let streamLines = lines.filter { ($0["stream"] as? Int ?? 0) != 0 }
        var compared = 0
        for line in streamLines.sorted(by: { ($0["stream"] as! Int) < ($1["stream"] as! Int) }) {
            let id = line["stream"] as! Int, outcome = line["outcome"] as? String ?? ""
            let label = "\(what) stream \(id) \(line["path"] as? String ?? "") (\(outcome))"
            let matches = exchanges.filter { $0.streamID == id }
            if outcome == "idle" {
                // only PRIORITY frames (nghttp's dependency anchors): no exchange, the frames are
                // connection-level
                #expect(matches.isEmpty, "\(label): an idle stream is no exchange")
                continue
            }
            guard matches.count == 1, let exchange = matches.first else {
                Issue.record("\(label): \(matches.count) exchanges")
                continue
            }
            compared += 1
            #expect(exchange.string("request.method") == line["method"] as? String && exchange.string("request.target") == line["path"] as? String,
                    "\(label): method, path")
            #expect(exchange.int("response.status") == line["status"] as? Int, "\(label): status")
            #expect(exchange.pushedBy == line["pushed_by"] as? Int && exchange.flagNames.contains("pushed") == (line["pushed_by"] is Int),
                    "\(label): pushed_by")
            switch outcome {
            case "complete":
                #expect(!exchange.flagNames.contains("reset") && !exchange.flagNames.contains("refused"), "\(label): \(exchange.flagNames)")
            case "reset_by_server", "reset_by_client":
                // a RST_STREAM after the stream was over both ways (curl's STREAM_CLOSED after a finished
                // transfer) is the stream's, but cancelled nothing: `reset_after_end`, no `reset` flag
                let afterEnd = resetAfterBothEnds(line)
                #expect(exchange.flagNames.contains("reset") == !afterEnd, "\(label): reset flag")
                #expect(exchange["http2"]?["reset_after_end"] == .bool(afterEnd), "\(label): reset_after_end")
                #expect(exchange.string("http2.reset_by") == (outcome == "reset_by_server" ? "server" : "client"), "\(label): reset_by")
                #expect(exchange.int("http2.reset_error_code") == line["rst_error"] as? Int, "\(label): reset_error_code")
            case "refused":
                #expect(exchange.flagNames.contains("refused") && exchange["http2"]?["refused"] == .bool(true), "\(label): refused")
                #expect(exchange["response"] == .null, "\(label): never answered")
            default:
                Issue.record("\(label): outcome \(outcome)")
            }
            #expect(exchange.int("request.bytes.body") ?? 0 == line["request_body_bytes"] as? Int, "\(label): request body")
            #expect(exchange.int("response.bytes.body") ?? 0 == line["response_body_bytes"] as? Int, "\(label): response body")
            // The frames of the stream as the peer logged them, in wire order per direction. Ours are
            // the message's frames: not the PRIORITY frames sent before the stream opened (idle then),
            // not unknown types (connection-level, README.md); a PUSH_PROMISE is the pushed stream's
            // request: the parent's k-th PUSH_PROMISE promised its k-th pushed stream.
            let pushedStreams = streamLines.filter { $0["pushed_by"] as? Int == id }.map { $0["stream"] as! Int }.sorted()
            let promises = frames(line, down).filter { $0[0] == 5 }
            // The stream an HTTP/1.1 `Upgrade: h2c` request opened (RFC 9113 §3.2): its request is that
            // HTTP/1.1 message, as many bytes as the peer read for it.
            let upgrade = line["upgrade"] as? [String: Any]
            if let upgrade {
                // its response's interim is the HTTP/1.1 `101 Switching Protocols`
                #expect(exchange.int("request.bytes.total") == upgrade["http1_request_bytes"] as? Int, "\(label): the HTTP/1.1 request")
                #expect(exchange.int("response.interim.bytes") == upgrade["http1_response_bytes"] as? Int, "\(label): the 101")
                #expect(exchange.flagNames.contains("upgraded"), "\(label): upgraded")
            }
            for (message, key) in [("request", up), ("response", down)] where !(upgrade != nil && message == "request") {
                var own = frames(line, key).filter { ($0[0] ?? 99) < 10 && $0[0] != 5 }
                if message == "request", let first = own.firstIndex(where: { $0[0] == 1 }) {
                    own = own[..<first].filter { $0[0] != 2 } + own[first...]  // PRIORITY frames before the stream opened
                }
                if message == "request", let parent = line["pushed_by"] as? Int {
                    let parentLine = try #require(streamLines.first { $0["stream"] as? Int == parent }, "\(label): parent")
                    let siblings = streamLines.filter { $0["pushed_by"] as? Int == parent }.map { $0["stream"] as! Int }.sorted()
                    let promise = frames(parentLine, down).filter { $0[0] == 5 }[siblings.firstIndex(of: id)!]
                    own = [promise]
                }
                let total = own.reduce(0) { $0 + 9 + ($1[2] ?? 0) }
                let framing = own.filter { [0, 1, 5, 9].contains($0[0] ?? -1) }.reduce(0) { sum, frame in
                    sum + 9 + (frame[3].map { $0 + 1 } ?? 0) + (frame[0] == 1 && (frame[1] ?? 0) & 0x20 != 0 ? 5 : 0) + (frame[0] == 5 ? 4 : 0)
                }
                let control = own.filter { [2, 3, 8].contains($0[0] ?? -1) }.reduce(0) { $0 + 9 + ($1[2] ?? 0) }
                // a response's `bytes.total` includes its interim responses: the upgrade's 101 is no frame
                let http1 = message == "response" && upgrade != nil ? exchange.int("response.interim.bytes") ?? 0 : 0
                #expect((exchange.int("\(message).bytes.total") ?? 0) - http1 == total, "\(label) \(message): Σ 9 + length of its frames")
                #expect(exchange.int("\(message).bytes.framing") ?? 0 == framing, "\(label) \(message): frame headers, padding, priority fields")
                #expect(exchange.int("\(message).bytes.control") ?? 0 == control, "\(label) \(message): WINDOW_UPDATE, RST_STREAM, PRIORITY")
            }
            let blocks = (line[up] as? [String: Any])?["header_block_bytes"] as? Int ?? 0
            if (line["pushed_by"] == nil || line["pushed_by"] is NSNull) && upgrade == nil {
                #expect(exchange.int("request.bytes.headers") ?? 0 == blocks, "\(label): request header block")
            }
            #expect(exchange.int("response.bytes.headers") ?? 0 == (line[down] as? [String: Any])?["header_block_bytes"] as? Int, "\(label): response header blocks")
            #expect(promises.count == pushedStreams.count, "\(label): one PUSH_PROMISE per pushed stream")
        }
        // Stream 0: every byte of the connection (an upgrade's HTTP/1.1 request and 101 included) is an
        // exchange's; unknown frame types and the GOAWAYs are in the connection record.
        let zero = try #require(lines.first { ($0["stream"] as? Int) == 0 }, "\(what): stream 0")
        let plaintext = connection["tls"].flatMap { $0 == .null ? nil : $0 }
        for (direction, key) in [("up", serverSide ? "bytes_in" : "bytes_out"), ("down", serverSide ? "bytes_out" : "bytes_in")] {
            #expect(exchanges.reduce(0) { $0 + $1.http2Plaintext(direction) } == zero[key] as? Int, "\(what) \(direction): every byte the peer logged")
            if let plaintext { #expect(plaintext.int("plaintext.\(direction)") == zero[key] as? Int, "\(what) \(direction): TLS plaintext") }
            let totals = try #require(connection["http2"]?["frames"]?[direction], "\(what): the connection record's http2 object")
            let frameBytes = HTTP2FrameNames.byType.reduce(0) { $0 + (totals.int("\($1).bytes") ?? 0) } + (totals.int("preface_bytes") ?? 0)
            // an upgraded connection's HTTP/1.1 bytes come before the preface
            let http1 = zero[key == "bytes_in" ? "http1_in" : "http1_out"] as? Int ?? 0
            #expect(frameBytes + http1 == zero[key] as? Int, "\(what) \(direction): every frame the peer logged")
            let unknown = lines.reduce(0) { $0 + frames($1, direction == "up" ? up : down).count { ($0[0] ?? 0) >= 10 } }
            #expect(totals.int("unknown.frames") == unknown, "\(what) \(direction): unknown frame types")
        }
        if let goaway = zero["goaway"] as? [String: Any] {
            // the server's log: the GOAWAY it sent; the client's: the one it received (from the server)
            #expect(connection.int("http2.server.goaway_last_stream_id") == goaway["last_stream_id"] as? Int, "\(what): the server's GOAWAY")
            #expect(connection.int("http2.server.goaway_error_code") == goaway["error"] as? Int, "\(what): its error code")
        }
        #expect(exchanges.count { $0.isHTTP2Exchange } == streamLines.count { $0["outcome"] as? String != "idle" }, "\(what): exchanges = streams")
        return compared
    }

    // MARK: curl

    /// curl's own `%{json}` of every HTTP/2 transfer (TLS and h2c; `HTTP2CurlTruth` says what curl
    /// counts, measured): each is our exchange on its local port with its method and target, with
    /// curl's status and sizes.
    @Test(arguments: ["h2-curl", "h2-tls12", "h2-upload", "h2-lossy", "tls13-h2"])
    func curlSizesOfEveryTransfer(_ name: String) throws {
        let recording = try Recording(name)
        let transfers = try CurlTransfer.load(name)
        #expect(transfers.allSatisfy { $0.fields["http_version"] as? String == "2" && $0.completed }, "\(name): completed HTTP/2 transfers")
        let compared = HTTP2CurlTruth.compareEach(transfers, in: recording.writer.exchanges, name)
        #expect(compared == transfers.count && compared > 0)
    }

    // MARK: nghttp

    /// nghttp's `-v` log (`NAME.nghttp.txt`: every frame it sent and received, header blocks folded
    /// into one HEADERS/PUSH_PROMISE of the block's length, padding lengths with their length byte)
    /// and its `--har` files: every request nghttp sent is our exchange on its stream with its path and
    /// header block; every header block and DATA frame it received is in that stream's response (its
    /// PUSH_PROMISEs in the promised exchange's request); no frame type nghttp saw more often than our
    /// connection record counts; every HAR entry (requests and accepted pushes, method "") is an
    /// exchange with its URL, status and `content.size` (nghttp's DATA payload: it does not decode).
    @Test(arguments: ["h2-nghttp", "h2-python"])
    func nghttpLogAndHARAreOurs(_ name: String) throws {
        let recording = try Recording(name)
        let invocations = try NghttpLog.load(name)
        #expect(!invocations.isEmpty)
        var connectionsUsed = Set<Int>(), streamsCompared = 0
        for (number, frames) in invocations.enumerated() {
            // The invocation's connection: the one whose exchanges have nghttp's requests on their streams.
            let requests = frames.filter { $0.sent && $0.type == "HEADERS" }
            let connection = try #require(recording.writer.connections.first { connection in
                !connectionsUsed.contains(connection.int("id") ?? -1) && requests.allSatisfy { request in
                    recording.writer.exchanges.contains { $0.int("conn.id") == connection.int("id") && $0.streamID == request.stream && $0.string("request.target") == request.path }
                }
            }, "\(name) invocation \(number): no connection")
            connectionsUsed.insert(connection.int("id") ?? -1)
            let exchanges = recording.writer.exchanges.filter { $0.int("conn.id") == connection.int("id") }
            let what = "\(name) nghttp invocation \(number) (\(connection.string("client") ?? ""))"
            var byStream: [Int: (request: (headers: Int, body: Int), response: (headers: Int, body: Int))] = [:]
            for frame in frames where frame.stream != 0 {
                let block = frame.length - (frame.padLength ?? 0) - (frame.flags & 0x20 != 0 ? 5 : 0)
                switch (frame.type, frame.sent) {
                case ("HEADERS", true): byStream[frame.stream, default: ((0, 0), (0, 0))].request.headers += block
                case ("DATA", true): byStream[frame.stream, default: ((0, 0), (0, 0))].request.body += frame.length - (frame.padLength ?? 0)
                case ("HEADERS", false): byStream[frame.stream, default: ((0, 0), (0, 0))].response.headers += block
                case ("DATA", false): byStream[frame.stream, default: ((0, 0), (0, 0))].response.body += frame.length - (frame.padLength ?? 0)
                case ("PUSH_PROMISE", false):
                    let promised = try #require(frame.promised, "\(what): promised stream")
                    byStream[promised, default: ((0, 0), (0, 0))].request.headers += block - 4
                default: break
                }
            }
            // A stream nghttp cancelled (RST_STREAM sent: h2-nghttp's push of /small.txt) has no received
            // frames in its log: only its request is compared.
            let cancelled = Set(frames.filter { $0.sent && $0.type == "RST_STREAM" }.map(\.stream))
            for (stream, counted) in byStream.sorted(by: { $0.key < $1.key }) {
                let label = "\(what) stream \(stream)"
                let exchange = try #require(exchanges.first { $0.streamID == stream }, "\(label): no exchange")
                #expect(exchange.int("request.bytes.headers") == counted.request.headers, "\(label): request header block")
                #expect(exchange.int("request.bytes.body") == counted.request.body, "\(label): request body")
                guard !cancelled.contains(stream) else { continue }
                #expect(exchange.int("response.bytes.headers") == counted.response.headers, "\(label): response header blocks")
                #expect(exchange.int("response.bytes.body") == counted.response.body, "\(label): response DATA")
                streamsCompared += 1
            }
            for request in requests {
                #expect(exchanges.contains { $0.streamID == request.stream && $0.string("request.target") == request.path }, "\(what): \(request.path)")
            }
            // Frame types: nghttp lists what it sent and received (not its automatic WINDOW_UPDATEs and
            // ACKs, nor frames of a stream it had cancelled); each one is one of ours.
            let names = ["DATA": "data", "PRIORITY": "priority", "RST_STREAM": "rst_stream", "SETTINGS": "settings", "PUSH_PROMISE": "push_promise",
                         "PING": "ping", "GOAWAY": "goaway", "WINDOW_UPDATE": "window_update", "HEADERS": "headers"]
            for (type, key) in names {
                for sent in [true, false] {
                    let listed = frames.count { $0.type == type && $0.sent == sent }
                    let ours = connection.int("http2.frames.\(sent ? "up" : "down").\(key).frames") ?? 0
                    #expect(listed <= ours, "\(what): nghttp \(sent ? "sent" : "received") \(listed) \(type), ours \(ours)")
                    if ["SETTINGS", "GOAWAY", "PRIORITY", "PUSH_PROMISE"].contains(type) {
                        #expect(listed == ours, "\(what): \(type) \(sent ? "sent" : "received")")
                    }
                }
            }
        }
        #expect(streamsCompared > 0)
        // The HAR files nghttp wrote (one per invocation).
        let hars = TestPaths.files(in: TestPaths.captures, endingWith: [".har"]).filter { $0.hasPrefix(name + ".nghttp") }
        #expect(!hars.isEmpty)
        var entries = 0
        for file in hars {
            let data = try Data(contentsOf: URL(fileURLWithPath: TestPaths.capture(file)))
            let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            for entry in HARTestSupport.entries(try #require(document["log"] as? [String: Any])) {
                let url = try #require(URL(string: entry.string("request.url") ?? ""))
                let target = url.path + (url.query.map { "?" + $0 } ?? "")
                let method = entry.string("request.method") ?? ""
                let label = "\(file) \(method) \(url)"
                let candidates = recording.writer.exchanges.filter {
                    $0.port("conn.server") == url.port && $0.string("request.target") == target
                        && (method.isEmpty ? $0.pushedBy != nil : ($0.pushedBy == nil && $0.string("request.method") == method))
                        && $0.int("response.status") == entry.int("response.status") && $0.int("response.bytes.body") == entry.int("response.content.size")
                }
                #expect(!candidates.isEmpty, "\(label): an exchange with its status and content.size \(entry.int("response.content.size") ?? -1)")
                #expect(entry.string("request.httpVersion") == "HTTP/2.0" || entry.string("response.httpVersion") == "HTTP/2.0", "\(label)")
                entries += 1
            }
        }
        #expect(entries == ["h2-nghttp": 12, "h2-python": 8][name], "\(name): HAR entries (captures/README.md)")
    }

    // MARK: h2load

    /// h2load's `traffic:` line of each run (`NAME.h2load.txt`) is exact (captures/README.md): `total`
    /// = Σ (9 + length) of every frame the server sent on the run's connections, `headers` = the HPACK
    /// bytes of the response header blocks, `data` = the DATA payloads. The runs are the h2c one (port
    /// 8082) and the TLS one (8443), in that order.
    @Test func h2loadTrafficIsOurs() throws {
        let recording = try Recording("h2-h2load")
        let text = try String(contentsOfFile: TestPaths.capture("h2-h2load.h2load.txt"), encoding: .utf8)
        let traffic = text.split(separator: "\n").filter { $0.hasPrefix("traffic:") }.map { line -> [Int] in
            // traffic: 20.12KB (20598) total, 10.35KB (10600) headers (space savings 49.52%), 6.15KB (6300) data
            line.split(separator: "(").dropFirst().compactMap { Int($0.prefix { $0 != ")" }) }
        }
        let requests = text.split(separator: "\n").filter { $0.hasPrefix("requests:") }.compactMap { Int($0.split(separator: " ")[1]) }
        #expect(traffic.count == 2 && requests == [200, 60])
        for (run, port) in [8082, 8443].enumerated() where run < traffic.count {
            let connections = recording.writer.connections.filter { $0.port("server") == port }
            let exchanges = recording.writer.exchanges.filter { $0.port("conn.server") == port }
            #expect(connections.count == 2 && exchanges.count == requests[run], "port \(port)")
            let frames = connections.reduce(0) { sum, connection in
                sum + HTTP2FrameNames.byType.reduce(0) { $0 + (connection.int("http2.frames.down.\($1).bytes") ?? 0) }
            }
            #expect(frames == traffic[run][0], "port \(port): total = every frame the server sent")
            #expect(exchanges.reduce(0) { $0 + $1.http2Plaintext("down") } == traffic[run][0], "port \(port): total = Σ the exchanges' down plaintext")
            #expect(exchanges.reduce(0) { $0 + ($1.int("response.bytes.headers") ?? 0) } == traffic[run][1], "port \(port): headers")
            #expect(exchanges.reduce(0) { $0 + ($1.int("response.bytes.body") ?? 0) } == traffic[run][2], "port \(port): data")
        }
    }

    // MARK: Conservation

    /// Every byte of every HTTP/2 recording is in exactly one place (`Conservation.check`), every TLS
    /// connection decrypted, and on every HTTP/2 connection nothing is unattributed: the exchanges own
    /// every packet, also after an h2c upgrade (its HTTP/1.1 exchange owns what followed); through loss
    /// (h2-lossy: the reassembler recovered every segment, no gap) every payload byte but a duplicate
    /// segment that came after its exchange was written, and pure duplicate ACKs the loss caused.
    /// Within each connection, the exchanges' HTTP/2 plaintext (streams + connection share) adds up to
    /// the connection's frames and preface.
    @Test(arguments: HTTP2Recordings.all)
    func everyConnectionIsConservedAndAttributed(_ name: String) throws {
        let recording = try Recording(name)
        Conservation.check(recording.writer, recording.result)
        let tsharkConnections = HTTP2Recordings.withFrames.contains(name) ? try TsharkH2Frames.load(name).connections : []
        for connection in recording.writer.connections {
            let what = "\(name) \(connection.string("client") ?? "")"
            if connection["tls"] != nil && connection["tls"] != .null {
                #expect(connection["tls"]?["decryption"] == .string("decrypted"), "\(what)")
            }
            #expect(!connection.flagNames.contains("gap") && !connection.flagNames.contains("h2_resync"), "\(what): \(connection.flagNames)")
            for direction in ["up", "down"] {
                let payload = connection.int("unattributed.\(direction).payload_bytes") ?? -1
                let packets = connection.int("unattributed.\(direction).packets") ?? -1, ipBytes = connection.int("unattributed.\(direction).ip_bytes") ?? -1
                if name == "h2-lossy" {
                    // Through loss: a duplicate ACK (tshark's tcp.analysis.duplicate_ack, sent for a hole in
                    // the peer's data) may acknowledge nothing an exchange owns (measured: a client's
                    // duplicate ACK of the segment of /text.txt lost before it, 64 B with SACK); a duplicate
                    // of a segment that came after the exchange owning it was written would be
                    // `late_after_seal` (before the linger: a 1448-byte segment 4.5 ms after its first
                    // retransmission; now its exchange's, `LingerTests`). Each unattributed packet must be
                    // one of these.
                    let frames = try TruthTable.load(name, "frames.tsv").rows.filter {
                        $0.int(direction == "up" ? "tcp.srcport" : "tcp.dstport") == connection.port("client")
                    }
                    let duplicateACKs = frames.filter { $0["tcp.analysis.duplicate_ack"] == "1" && $0.int("tcp.len") == 0 }
                    let resent = frames.filter { $0["tcp.analysis.retransmission"] == "1" && ($0.int("tcp.len") ?? 0) > 0 }
                    #expect(packets <= duplicateACKs.count + resent.count, "\(what) \(direction): \(packets) unattributed")
                    #expect(payload <= resent.reduce(0) { $0 + ($1.int("tcp.len") ?? 0) }, "\(what) \(direction): \(payload) unattributed payload")
                    #expect(payload == 0 || connection.flagNames.contains("late_after_seal"), "\(what) \(direction)")
                    let sizes = (duplicateACKs + resent).compactMap { $0.int("ip.len") }
                    #expect(packets == 0 ? ipBytes == 0 : ipBytes >= packets * (sizes.min() ?? 0) && ipBytes <= packets * (sizes.max() ?? 0),
                            "\(what) \(direction): \(ipBytes) unattributed IP bytes, candidates of \(Set(sizes)) B")
                } else {
                    #expect(payload == 0, "\(what) \(direction) unattributed payload")
                    #expect(packets == 0 && ipBytes == 0, "\(what) \(direction): unattributed \(packets) packets, \(ipBytes) IP bytes")
                }
            }
            let exchanges = recording.exchanges(clientPort: connection.port("client") ?? -1)
            let tshark = tsharkConnections.first { $0.clientPort == connection.port("client") }
            guard exchanges.contains(where: \.isHTTP2Exchange) else { continue }
            for direction in ["up", "down"] {
                // every frame and the preface: tshark's (tls13-h2: the connection record's)
                let frames = connection["http2"]?["frames"]?[direction]
                let total = tshark.map { tshark in tshark.frames.filter { tshark.direction($0) == direction }.reduce(0) { $0 + $1.size } }
                    ?? HTTP2FrameNames.byType.reduce(frames?.int("preface_bytes") ?? 0) { $0 + (frames?.int("\($1).bytes") ?? 0) }
                // an upgrade's HTTP/1.1 request (up) and 101 (down) are no frames
                let upgrade = exchanges.filter { $0.flagNames.contains("upgraded") }.reduce(0) {
                    $0 + (direction == "up" ? $1.int("request.bytes.total") ?? 0 : $1.int("response.interim.bytes") ?? 0)
                }
                let owned = exchanges.reduce(-upgrade) { $0 + $1.http2Plaintext(direction) }
                let unparsed = connection.int("http2.\(direction == "up" ? "client" : "server").unparsed_bytes") ?? 0
                #expect(unparsed == 0, "\(what) \(direction): unparsed")
                #expect(owned == total, "\(what) \(direction): exchanges' plaintext = frames + preface")
            }
        }
    }

    // MARK: HAR

    /// The HAR of each HTTP/2 recording, written with its key log: it validates against the HAR 1.2
    /// JSON schema (and the spec's prose rules, `scripts/har-check.py`); every HTTP/2 entry says
    /// `HTTP/2.0` (an h2c upgrade's request `HTTP/1.1`), with an `https://` URL on TLS connections and
    /// `http://` on h2c ones; and against nginx: a stream's `_transferSize` ("the response's bytes on
    /// the stream, nginx's `$bytes_sent`", README.md) plus the PUSH_PROMISEs sent on the stream (the
    /// requests of the streams it pushed) is `$bytes_sent`.
    @Test(.requires(.jsonschema))
    func harOfEveryRecordingValidates() throws {
        var paths: [String] = []
        for name in HTTP2Recordings.all {
            var options = CaptureAnalyzer.Options()
            let keys = TestPaths.capture(name + ".keys")
            if FileManager.default.fileExists(atPath: keys) { options.tlsKeys = try TLSKeyStore.reading(files: [keys]) }
            let (path, log) = try HARTestSupport.har([TestPaths.capture(name + ".pcap")], name: "h2-keyed-" + name, base: options)
            paths.append(path)
            let entries = HARTestSupport.entries(log)
            let recording = try Recording(name)
            #expect(entries.count == recording.writer.exchanges.count, "\(name): one entry per exchange")
            for entry in entries where entry.string("request.httpVersion") == "HTTP/2.0" || entry.string("response.httpVersion") == "HTTP/2.0" {
                let label = "\(name) \(entry.string("request.method") ?? "") \(entry.string("request.url") ?? "")"
                let flags = entry.at("_flags") as? [String] ?? []
                // the request of an h2c upgrade is HTTP/1.1, its response HTTP/2
                #expect(entry.string("request.httpVersion") == (flags.contains("upgraded") ? "HTTP/1.1" : "HTTP/2.0"), "\(label): request version")
                #expect(flags.contains("no_response") || entry.string("response.httpVersion") == "HTTP/2.0",
                        "\(label): \(entry.string("response.httpVersion") ?? "-")")
                let tls = (entry.at("_flags") as? [String] ?? []).contains("decrypted")
                #expect(entry.string("request.url")?.hasPrefix(tls ? "https://" : "http://") == true, "\(label): scheme")
            }
            guard FileManager.default.fileExists(atPath: TestPaths.capture(name + ".nginx.jsonl")) else { continue }
            for (line, exchange) in HTTP2NginxTruth.compare(try NginxLog.load(TestPaths.capture(name + ".nginx.jsonl")), recording.writer.exchanges, name) {
                let entry = try #require(entries.first { $0.int("_id") == exchange.int("id") }, "\(name) exchange \(exchange.int("id") ?? 0)")
                // the PUSH_PROMISEs nginx sent on the stream: the requests of the exchanges it pushed
                let promises = recording.writer.exchanges.filter {
                    $0.int("conn.id") == exchange.int("conn.id") && $0.pushedBy != nil && $0.pushedBy == exchange.streamID
                }.reduce(0) { $0 + ($1.int("request.bytes.total") ?? 0) }
                let transferSize = entry.int("response._transferSize") ?? 0
                #expect(transferSize + promises == line.bytesSent, "\(name) \(line.uri) #\(line.connectionRequests): _transferSize + pushes = $bytes_sent")
            }
        }
        let check = try HARTestSupport.check(["schema", HARTestSupport.schema], files: paths)
        #expect(check.status == 0, "\(check.output)")
        for path in paths {
            #expect(check.results[path]?["valid"] as? Bool == true, "\(path): \(check.results[path]?["errors"] ?? check.output)")
        }
    }

    /// HAR 1.2 defines `bodySize` as the size of the message body ("POST data payload" for a request):
    /// for an HTTP/2 message the DATA payloads of its stream without padding (tshark's frames), none
    /// for a message without DATA frame (a GET, a HEAD's or 204's response, a pushed request) — HTTP/2
    /// framing is every frame header of the message, the HEADERS frame's 9 bytes too, so
    /// `bytes.body + bytes.framing` (HTTP/1's body with chunk framing) would give a GET bodySize 9.
    @Test func harBodySizeIsTheDATAPayload() throws {
        for name in HTTP2Recordings.withFrames {
            var options = CaptureAnalyzer.Options()
            let keys = TestPaths.capture(name + ".keys")
            if FileManager.default.fileExists(atPath: keys) { options.tlsKeys = try TLSKeyStore.reading(files: [keys]) }
            let (_, log) = try HARTestSupport.har([TestPaths.capture(name + ".pcap")], name: "h2-bodysize-" + name, base: options)
            let recording = try Recording(name)
            var compared = (withoutData: 0, withData: 0)
            for tshark in try TsharkH2Frames.load(name).connections {
                let exchanges = recording.exchanges(clientPort: tshark.clientPort)
                let upgraded = exchanges.contains { $0.flagNames.contains("upgraded") }
                let (streams, _, _) = tshark.streams(upgradedStream1: upgraded)
                for stream in streams.values {
                    guard let exchange = exchanges.first(where: { $0.streamID == stream.id }),
                          let entry = HARTestSupport.entries(log).first(where: { $0.int("_id") == exchange.int("id") }) else { continue }
                    // (an upgrade's request is HTTP/1.1: HTTP/1's bodySize)
                    for message in ["request", "response"] where entry.int("\(message).bodySize") ?? -1 >= 0 && !(upgraded && stream.id == 1 && message == "request") {
                        let bodySize = entry.int("\(message).bodySize") ?? -1
                        if stream.dataFrames[message, default: 0] == 0 {
                            compared.withoutData += 1
                            #expect(bodySize == 0, "\(name) stream \(stream.id) \(message): no DATA frame, bodySize \(bodySize)")
                        } else {
                            compared.withData += 1
                            #expect(bodySize == stream.body[message, default: 0], "\(name) stream \(stream.id) \(message): bodySize = DATA payload")
                        }
                    }
                }
            }
            #expect(compared.withoutData > 0 && compared.withData > 0, "\(name)")
        }
    }
}

/// nghttp's `-v` log (`NAME.nghttp.txt`, several invocations concatenated, each starting with
/// `Connected`): the frames it sent and received with their header fields.
enum NghttpLog {
    struct Frame {
        var sent: Bool
        var type: String
        var length: Int
        var flags: Int
        var stream: Int
        /// nghttp's `padlen`: the padding with its Pad Length byte.
        var padLength: Int?
        var promised: Int?
        /// `:path` of a HEADERS nghttp sent.
        var path: String = ""
    }

    static func load(_ name: String) throws -> [[Frame]] {
        var invocations: [[Frame]] = []
        for line in try String(contentsOfFile: TestPaths.capture(name + ".nghttp.txt"), encoding: .utf8).split(separator: "\n") {
            if line.hasSuffix("] Connected") {
                invocations.append([])
                continue
            }
            if let range = line.range(of: " frame <length="), let direction = line.range(of: "] send ") ?? line.range(of: "] recv "),
               direction.upperBound <= range.lowerBound {
                let type = String(line[direction.upperBound..<range.lowerBound])
                var fields: [String: String] = [:]
                for field in line[range.upperBound...].dropLast().split(separator: ",") {
                    let parts = field.trimmingCharacters(in: .whitespaces).split(separator: "=")
                    if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
                }
                let frame = Frame(sent: line[direction].contains("send"), type: type, length: Int(line[range.upperBound...].prefix { $0.isNumber }) ?? -1,
                                  flags: Int((fields["flags"] ?? "").dropFirst(2), radix: 16) ?? -1, stream: Int(fields["stream_id"] ?? "") ?? -1)
                guard !invocations.isEmpty else { throw NghttpLogError(line: String(line)) }
                invocations[invocations.count - 1].append(frame)
                continue
            }
            guard !invocations.isEmpty, !invocations[invocations.count - 1].isEmpty else { continue }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            var last: Frame { invocations[invocations.count - 1][invocations[invocations.count - 1].count - 1] }
            func update(_ change: (inout Frame) -> Void) {
                change(&invocations[invocations.count - 1][invocations[invocations.count - 1].count - 1])
            }
            if trimmed.hasPrefix("(") {
                for field in trimmed.dropFirst().dropLast().split(separator: ",") {
                    let parts = field.trimmingCharacters(in: .whitespaces).split(separator: "=")
                    guard parts.count == 2, let value = Int(parts[1]) else { continue }
                    if parts[0] == "padlen" { update { $0.padLength = value } }
                    if parts[0] == "promised_stream_id" { update { $0.promised = value } }
                }
            } else if trimmed.hasPrefix(":path: "), last.sent, last.type == "HEADERS" {
                update { $0.path = String(trimmed.dropFirst(7)) }
            }
        }
        return invocations
    }

    struct NghttpLogError: Error { var line: String }
}


import Foundation
import Testing
@testable import WireTally

/// The aioquic recordings (`captures/quic-*`) analysed with the client's key log: every request the
/// client logged (`NAME.h3client.jsonl`) is one `http` record, HTTP/3, with its stream, method, path,
/// status and body sizes as the client counted them; each message's bytes equal what tshark saw of its
/// stream (`NAME.quic-frames.tsv`: the stream's final size) and what aioquic's qlog says of its
/// HEADERS frames (`NAME.qlog-h3.tsv`); every datagram is attributed and conserved.
@Suite struct HTTP3RecordingTests {
    static let recordings = QUICRecordingTests.recordings

    static func analyze(_ name: String) throws -> (CollectingWriter, AnalysisRun.Result) {
        var options = CaptureAnalyzer.Options()
        options.tlsKeys = try TLSKeyStore.reading(files: [TestPaths.capture(name + ".keys")])
        return CollectingWriter.analyze([TestPaths.capture(name + ".pcap")], options: options)
    }

    /// The record of the client's request `logged`: on its connection (by the client's port), by stream.
    static func record(of logged: [String: Any], in writer: CollectingWriter) -> JSONValue? {
        let port = logged["local_port"] as? Int ?? -1
        let stream = logged["stream_id"] as? Int ?? -1
        return writer.exchanges.first {
            $0.string("conn.client")?.hasSuffix(":\(port)") == true
                && ($0.int("request.stream_id") ?? $0.int("response.stream_id")) == stream
        }
    }

    /// Per (client port, stream id, sender is the client): the stream's size as tshark saw its STREAM
    /// frames (the end of the furthest one; a RESET_STREAM's final size when the sender reset it).
    static func streamSizes(_ name: String) throws -> [String: Int] {
        var sizes: [String: Int] = [:]
        for row in try TruthTable.read(TestPaths.capture(name + ".quic-frames.tsv")).rows {
            guard let source = row.int("udp.srcport"), let destination = row.int("udp.dstport"),
                  let stream = row.int("stream_id") else { continue }
            let fromClient = destination == 443 || destination == 7443
            let key = "\(fromClient ? source : destination)/\(stream)/\(fromClient)"
            switch row["frame_name"] {
            case "STREAM":
                let end = (row.int("offset") ?? 0) + (row.int("length") ?? 0)
                sizes[key] = max(sizes[key] ?? 0, end)
            case "RESET_STREAM":
                sizes[key] = row.int("final_size")
            default:
                break
            }
        }
        return sizes
    }

    @Test(arguments: recordings)
    func everyRequestIsAnHTTP3Record(_ name: String) throws {
        let (writer, result) = try Self.analyze(name)
        Conservation.check(writer, result)
        let log = try QUICRecordingTests.clientLog(name)
        #expect(writer.exchanges.count == log.requests.count, "\(name): one record per request")
        for logged in log.requests {
            let label = "\(name) conn \(logged["conn"] ?? "") stream \(logged["stream_id"] ?? "")"
            let record = try #require(Self.record(of: logged, in: writer), "\(label)")
            #expect(record.string("request.version") == "HTTP/3", "\(label)")
            #expect(record.string("request.method") == logged["method"] as? String, "\(label)")
            #expect(record.string("request.target") == logged["path"] as? String, "\(label)")
            #expect(record.string("request.host") == logged["authority"] as? String, "\(label)")
            #expect(record.flagNames.contains("decrypted"), "\(label): \(record.flagNames)")
            #expect(record.int("request.bytes.body") == logged["request_body_bytes"] as? Int, "\(label) request body")
            if logged["outcome"] as? String == "complete" {
                #expect(record.int("response.status") == logged["status"] as? Int, "\(label)")
                #expect(record.int("response.bytes.body") == logged["response_body_bytes"] as? Int, "\(label) response body")
            }
        }
    }

    @Test(arguments: recordings)
    func messageBytesAreTheirStreams(_ name: String) throws {
        let (writer, _) = try Self.analyze(name)
        let log = try QUICRecordingTests.clientLog(name)
        // tshark cannot follow quic-versions' second connection (after the Version Negotiation)
        let sizes = try Self.streamSizes(name)
        for logged in log.requests {
            let port = logged["local_port"] as? Int ?? -1
            let stream = logged["stream_id"] as? Int ?? -1
            let label = "\(name) port \(port) stream \(stream)"
            guard let record = Self.record(of: logged, in: writer) else { continue }  // everyRequestIsAnHTTP3Record says why
            if let up = sizes["\(port)/\(stream)/true"] {
                #expect(record.int("request.bytes.total") == up, "\(label) request total")
            }
            if let down = sizes["\(port)/\(stream)/false"] {
                #expect(record.int("response.bytes.total") == down, "\(label) response total")
            }
        }
    }

    @Test(arguments: recordings)
    func requestHeadersAreTheClientsHeadersFrames(_ name: String) throws {
        let (writer, _) = try Self.analyze(name)
        let log = try QUICRecordingTests.clientLog(name)
        // per (connection, stream): the QPACK field sections the client's qlog says it sent
        var sent: [String: Int] = [:]
        for row in try TruthTable.read(TestPaths.capture(name + ".qlog-h3.tsv")).rows
        where row["vantage"] == "client" && row["event"] == "frame_created" && row["frame_type"] == "headers" {
            sent["\(row.int("conn") ?? -1)/\(row.int("stream_id") ?? -1)", default: 0] += row.int("length") ?? 0
        }
        for logged in log.requests {
            let key = "\(logged["conn"] as? Int ?? -1)/\(logged["stream_id"] as? Int ?? -1)"
            guard let record = Self.record(of: logged, in: writer), let headers = sent[key] else { continue }
            #expect(record.int("request.bytes.headers") == headers, "\(name) \(key)")
        }
    }

    @Test(arguments: recordings)
    func everyDatagramIsAttributed(_ name: String) throws {
        let (writer, _) = try Self.analyze(name)
        for connection in writer.quicConnections {
            for direction in ["up", "down"] {
                #expect(connection.int("unattributed.\(direction).packets") == 0, "\(name) \(connection.int("id") ?? 0) \(direction)")
            }
        }
    }

    /// The control and QPACK streams of each side, as the client's qlog saw them (its sent frames for
    /// its own streams, its received ones for the server's), equal the connection's `http3` stream bytes.
    @Test(arguments: recordings)
    func unidirectionalStreamsAreTheQlogs(_ name: String) throws {
        let (writer, _) = try Self.analyze(name)
        let log = try QUICRecordingTests.clientLog(name)
        var types: [String: String] = [:]  // "conn/stream" → control, qpack_encoder, qpack_decoder
        for row in try TruthTable.read(TestPaths.capture(name + ".qlog-h3.tsv")).rows
        where row["vantage"] == "client" && row["event"] == "stream_type_set" {
            types["\(row["conn"])/\(row["stream_id"])"] = row["stream_type"]
        }
        var sizes: [String: Int] = [:]  // "conn/side/type" → the stream's size
        for row in try TruthTable.read(TestPaths.capture(name + ".qlog-frames.tsv")).rows
        where row["vantage"] == "client" && row["frame_type"] == "stream" {
            guard let stream = row.int("stream_id"), stream & 2 == 2, let type = types["\(row["conn"])/\(stream)"] else { continue }
            let side = stream & 1 == 0 ? "up" : "down"
            let key = "\(row["conn"])/\(side)/\(type)"
            sizes[key] = max(sizes[key] ?? 0, (row.int("offset") ?? 0) + (row.int("length") ?? 0))
        }
        for logged in log.connections {
            let conn = logged["conn"] as? Int ?? -1
            let port = logged["local_port"] as? Int ?? -1
            let record = try #require(writer.quicConnections.first { $0.string("client")?.hasSuffix(":\(port)") == true })
            #expect(record.string("tls.decryption") == "decrypted", "\(name) \(conn)")
            for side in ["up", "down"] {
                for type in ["control", "qpack_encoder", "qpack_decoder"] {
                    #expect(record.int("http3.\(side).stream_bytes.\(type)") == sizes["\(conn)/\(side)/\(type)"] ?? 0,
                            "\(name) conn \(conn) \(side) \(type)")
                }
            }
        }
    }

    /// Each request's first packet leaves after the client started it, and its response's last packet
    /// arrives before the client logged it complete, each within 20 ms (the client's clock is the
    /// capture's: same host); wiretally's send/wait/receive tile that span.
    @Test(arguments: recordings)
    func messageTimesAreWithinTheClientsSpan(_ name: String) throws {
        let (writer, _) = try Self.analyze(name)
        for logged in try QUICRecordingTests.clientLog(name).requests where logged["outcome"] as? String == "complete" {
            let label = "\(name) conn \(logged["conn"] ?? "") stream \(logged["stream_id"] ?? "")"
            guard let record = Self.record(of: logged, in: writer), let start = logged["start"] as? Double,
                  let end = logged["end"] as? Double,
                  let first = Self.number(record["request"]?["ts_first"]), let last = Self.number(record["response"]?["ts_last"])
            else { Issue.record("\(label): no times"); continue }
            #expect(first >= start - 0.0005 && first - start < 0.02, "\(label): request sent \((first - start) * 1000) ms after start")
            #expect(last <= end + 0.0005 && end - last < 0.02, "\(label): response done \((end - last) * 1000) ms before end")
            let phases = ["send", "wait", "receive"].compactMap { Self.number(record["timing"]?[$0]) }
            #expect(abs(phases.reduce(0, +) - (last - first) * 1000) < 0.01, "\(label): \(phases) over \((last - first) * 1000) ms")
        }
    }

    /// A JSON number as a Double.
    static func number(_ value: JSONValue?) -> Double? {
        switch value {
        case let .number(text)?: return Double(text)
        case let .integer(integer)?: return Double(integer)
        default: return nil
        }
    }
}

import Foundation
import Testing
@testable import WireTally

/// What the limit tests share: temp files, the `wiretally` binary's JSON Lines output split into
/// records and summary, and one HTTP conversation as frames.
enum LimitTestSupport {
    /// A fresh temp path ending in `name` (the caller deletes it).
    static func temporaryPath(_ name: String) -> String {
        TestScratch.folder.appendingPathComponent("wiretally-limits-\(UUID().uuidString)-\(name)").path
    }

    /// Writes `bytes` to a new temp file and returns its path.
    static func write(_ bytes: [UInt8], name: String) throws -> String {
        let path = temporaryPath(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// `wiretally analyze --format jsonl` on `path`: exit status, the record lines (summary excluded),
    /// the summary line, and standard error.
    struct JSONLinesRun {
        var status: Int32
        var records: [Substring]
        var summary: String
        var stderr: String
    }

    static func analyzeJSONLines(_ path: String, _ extra: [String] = []) throws -> JSONLinesRun {
        let run = try CommandLineTests.run(["analyze", "--format", "jsonl"] + extra + [path])
        let lines = run.stdout.split(separator: "\n")
        let summary = lines.last.map(String.init) ?? ""
        return JSONLinesRun(
            status: run.status, records: summary.contains("\"type\":\"summary\"") ? Array(lines.dropLast()) : lines,
            summary: summary, stderr: run.stderr)
    }

    /// Analyses `path` in process and checks conservation.
    @discardableResult
    static func analyzeConserved(
        _ path: String, options: CaptureAnalyzer.Options = .init(), sourceLocation: SourceLocation = #_sourceLocation
    ) -> (CollectingWriter, AnalysisRun.Result) {
        let (writer, result) = CollectingWriter.analyze([path], options: options)
        Conservation.check(writer, result, sourceLocation: sourceLocation)
        return (writer, result)
    }

    /// One HTTP/1.1 connection as frames: handshake, `request` then `response` in segments of at most
    /// `segmentSize` bytes (each acknowledged), then FIN both ways.
    static func conversation(
        request: [UInt8], response: [UInt8], client: String = "10.1.0.1:40000", server: String = "10.1.0.2:80",
        segmentSize: Int = 1400
    ) -> [[UInt8]] {
        let c: UInt32 = 1000, s: UInt32 = 5000
        var frames = [
            FrameBuilder.tcp(from: client, to: server, seq: c, flags: [.syn]),
            FrameBuilder.tcp(from: server, to: client, seq: s, ack: c + 1, flags: [.syn, .ack]),
            FrameBuilder.tcp(from: client, to: server, seq: c + 1, ack: s + 1, flags: [.ack]),
        ]
        var up = c + 1, down = s + 1
        for start in stride(from: 0, to: request.count, by: segmentSize) {
            let piece = Array(request[start..<min(start + segmentSize, request.count)])
            frames.append(FrameBuilder.tcp(from: client, to: server, seq: up, ack: down, flags: [.ack, .psh], payload: piece))
            up &+= UInt32(piece.count)
            frames.append(FrameBuilder.tcp(from: server, to: client, seq: down, ack: up, flags: [.ack]))
        }
        for start in stride(from: 0, to: response.count, by: segmentSize) {
            let piece = Array(response[start..<min(start + segmentSize, response.count)])
            frames.append(FrameBuilder.tcp(from: server, to: client, seq: down, ack: up, flags: [.ack], payload: piece))
            down &+= UInt32(piece.count)
            frames.append(FrameBuilder.tcp(from: client, to: server, seq: up, ack: down, flags: [.ack]))
        }
        frames.append(FrameBuilder.tcp(from: client, to: server, seq: up, ack: down, flags: [.fin, .ack]))
        frames.append(FrameBuilder.tcp(from: server, to: client, seq: down, ack: up + 1, flags: [.fin, .ack]))
        frames.append(FrameBuilder.tcp(from: client, to: server, seq: up + 1, ack: down + 1, flags: [.ack]))
        return frames
    }

    /// Writes `frames` as a pcap, analyses it in process (conservation checked) and returns the only
    /// exchange with the connection.
    static func analyzeConversation(
        _ frames: [[UInt8]], options: CaptureAnalyzer.Options = .init(), sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (exchange: JSONValue, connection: JSONValue, writer: CollectingWriter) {
        let path = try write(FrameBuilder.pcap(frames: frames, link: .ethernet), name: "conversation.pcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (writer, _) = analyzeConserved(path, options: options, sourceLocation: sourceLocation)
        try #require(writer.exchanges.count == 1 && writer.connections.count == 1, sourceLocation: sourceLocation)
        return (writer.exchanges[0], writer.connections[0], writer)
    }
}

import Foundation
@testable import WireTally

/// Reports of captures written to temporary files, with the model they were built from.
enum ReportFixture {
    struct Written {
        var path: String
        var model: ReportModel
        var html: String
    }

    /// Builds the report of `files` and writes it to a new temporary `.html` file.
    static func write(_ files: [String], appLogs: [String] = [], estimators: Bool = false) throws -> Written {
        let model = ReportRun(files: files, appLogs: appLogs, estimators: estimators).run()
        let html = ReportDocument.html(model)
        let path = TestScratch.folder.appendingPathComponent("wiretally-report-\(UUID().uuidString).html").path
        try html.write(toFile: path, atomically: true, encoding: .utf8)
        return Written(path: path, model: model, html: html)
    }

    /// The rows of a `{"columns","rows"}` table of the model's data as dictionaries.
    static func rows(_ model: ReportModel, _ table: String) -> [[String: JSONValue]] {
        guard case let .array(columns)? = model.json[table]?["columns"], case let .array(rows)? = model.json[table]?["rows"] else { return [] }
        let names = columns.map(\.plainText)
        return rows.map { row in
            guard case let .array(cells) = row else { return [:] }
            return Dictionary(uniqueKeysWithValues: zip(names, cells))
        }
    }

    /// A capture whose one request has a target and Host header made to break out of the page, in a
    /// file whose name does too.
    static let hostileTarget = "/</script><img/src=x/onerror=alert(1)><!--\u{2028}?q=<b>&amp;"
    static let hostileHost = "evil\"><svg onload=alert(2)>"

    /// `count` pipelined requests, each for another host (no responses), on as many connections as
    /// the cap on open requests per connection (`HTTPLimits.maxOpenRequests`) takes.
    static func manyHostsCapture(_ count: Int) throws -> String {
        let perConnection = HTTPLimits().maxOpenRequests
        var frames: [[UInt8]] = []
        for first in stride(from: 0, to: count, by: perConnection) {
            let client = "10.0.0.1:\(40001 + first / perConnection)", server = "10.0.0.2:80"
            let stream = (first..<min(first + perConnection, count)).flatMap {
                Array("GET / HTTP/1.1\r\nHost: h\($0).test\r\n\r\n".utf8)
            }
            frames += [
                FrameBuilder.tcp(from: client, to: server, seq: 100, flags: [.syn]),
                FrameBuilder.tcp(from: server, to: client, seq: 900, ack: 101, flags: [.syn, .ack]),
                FrameBuilder.tcp(from: client, to: server, seq: 101, ack: 901, flags: [.ack]),
            ]
            for offset in stride(from: 0, to: stream.count, by: 1400) {
                let payload = Array(stream[offset..<min(offset + 1400, stream.count)])
                frames.append(FrameBuilder.tcp(from: client, to: server, seq: UInt32(101 + offset), ack: 901, flags: [.ack, .psh], payload: payload))
            }
        }
        return try CommandLineTests.write(FrameBuilder.pcap(frames: frames, link: .ethernet), name: "many-hosts.pcap")
    }

    static func hostileCapture() throws -> String {
        let client = "10.0.0.1:40001", server = "10.0.0.2:80"
        let request = Array("GET \(hostileTarget) HTTP/1.1\r\nHost: \(hostileHost)\r\n\r\n".utf8)
        let response = Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello".utf8)
        let frames = [
            FrameBuilder.tcp(from: client, to: server, seq: 100, flags: [.syn], link: .ethernet),
            FrameBuilder.tcp(from: server, to: client, seq: 900, ack: 101, flags: [.syn, .ack], link: .ethernet),
            FrameBuilder.tcp(from: client, to: server, seq: 101, ack: 901, flags: [.ack], link: .ethernet),
            FrameBuilder.tcp(from: client, to: server, seq: 101, ack: 901, flags: [.ack, .psh], payload: request, link: .ethernet),
            FrameBuilder.tcp(from: server, to: client, seq: 901, ack: UInt32(101 + request.count), flags: [.ack, .psh], payload: response, link: .ethernet),
            FrameBuilder.tcp(from: client, to: server, seq: UInt32(101 + request.count), ack: UInt32(901 + response.count), flags: [.ack], link: .ethernet),
        ]
        let path = TestScratch.folder.appendingPathComponent("wiretally-\(UUID().uuidString)-<script>x.pcap").path
        try Data(FrameBuilder.pcap(frames: frames, link: .ethernet)).write(to: URL(fileURLWithPath: path))
        return path
    }
}

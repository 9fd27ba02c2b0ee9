import Foundation
import Testing
@testable import WireTally

/// The public captures that ship Zeek's http.log: the same transactions, methods, targets, status
/// codes and body lengths. Zeek's `request_body_len`/`response_body_len` are body sizes after
/// de-chunking and after content decoding ("uncompressed content size"): they are compared with our
/// `decoded_body` when the body was content-encoded and with `bytes.body` otherwise.
@Suite struct ZeekHTTPLogTests {
    static let pairs: [(capture: String, log: String)] = [
        ("zeek__http__get.pcap", "zeek__http__get.http.log"),
        ("zeek__http__pipelined-requests.pcap", "zeek__http__pipelined-requests.http.log"),
        ("zeek__http__100-continue.pcap", "zeek__http__100-continue.http.log"),
        ("zeek__http__methods.pcap", "zeek__http__methods.http.log"),
        ("zeek__http__missing-zlib-header.pcap", "zeek__http__missing-zlib-header.http.log"),
        ("zeek__wikipedia.pcap", "zeek__wikipedia.http.log"),
        ("zeek__http__connect-with-header.pcap", "zeek__http__connect-with-header.http.log"),
        ("zeek__http__websocket.pcap", "zeek__http__websocket.http.log"),
        ("zeek__nflog-http.pcap", "zeek__nflog-http.http.log"),
    ]

    @Test(arguments: pairs.map(\.capture))
    func sameTransactionsAsZeek(_ capture: String) throws {
        guard let folder = TestPaths.publicCaptures else { return }
        let log = Self.pairs.first { $0.capture == capture }!.log
        let rows = try ZeekLog.load(folder.appendingPathComponent(log).path)
        let (writer, result) = CollectingWriter.analyze([folder.appendingPathComponent(capture).path])
        Conservation.check(writer, result)
        #expect(!rows.isEmpty)
        for row in rows {
            let port = row["id.orig_p"] ?? "", depth = Int(row["trans_depth"] ?? "") ?? 0
            let record = writer.exchanges.first {
                ($0.string("conn.client") ?? "").hasSuffix(":\(port)") && $0.int("conn.index") == depth - 1
            }
            guard let record else {
                Issue.record("\(capture): no exchange for Zeek's \(row["method"] ?? "") \(row["uri"] ?? "") port \(port) depth \(depth)")
                continue
            }
            let what = "\(capture) \(row["method"] ?? "") \(row["uri"] ?? "")"
            if let method = row["method"], method != "-" { #expect(record["request"]?.string("method") == method, "\(what)") }
            if let uri = row["uri"], uri != "-" { #expect(record["request"]?.string("target") == uri, "\(what)") }
            if let status = Int(row["status_code"] ?? "") { #expect(record["response"]?.int("status") == status, "\(what)") }
            if let length = Int(row["request_body_len"] ?? "") {
                #expect(Self.bodyLength(record["request"]) == length, "\(what) request body")
            }
            if let length = Int(row["response_body_len"] ?? ""), record["response"] != .null {
                #expect(Self.bodyLength(record["response"]) == length, "\(what) response body")
            }
        }
    }

    /// Decoded size for content-encoded bodies, else the body as sent.
    static func bodyLength(_ message: JSONValue?) -> Int? {
        message?.int("decoded_body") ?? message?.int("bytes.body")
    }
}

/// Rows of any Zeek TSV log as dictionaries by field name.
enum ZeekLog {
    static func load(_ path: String) throws -> [[String: String]] {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        guard let fieldsLine = lines.first(where: { $0.hasPrefix("#fields") }) else { return [] }
        let fields = fieldsLine.split(separator: "\t").dropFirst().map(String.init)
        return lines.filter { !$0.hasPrefix("#") }.map { line in
            Dictionary(zip(fields, line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)),
                       uniquingKeysWith: { first, _ in first })
        }
    }
}

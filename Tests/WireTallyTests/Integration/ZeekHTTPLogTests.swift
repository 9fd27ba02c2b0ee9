import Foundation
import Testing
@testable import WireTally

/// The public captures that ship Zeek's http.log: the same transactions, methods, targets, status
/// codes and body lengths. Zeek's `request_body_len`/`response_body_len` are body sizes after
/// de-chunking and after content decoding ("uncompressed content size"): they are compared with our
/// `decoded_body` when the body was content-encoded and with `bytes.body` otherwise.
///
/// Rows are matched by client port, method and target, in order. Zeek also logs transactions for
/// request lines that are not HTTP/1.x (HTTP/0.9-style `GET /path`, empty targets, binary junk in
/// `methods.pcap`); wiretally does not invent requests from those — their bytes stay unattributed
/// and the server's answer becomes an exchange with `no_request` — so only HTTP/1.x rows are compared.
@Suite(.requires(.publicCaptures))
struct ZeekHTTPLogTests {
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
        let log = Self.pairs.first { $0.capture == capture }!.log
        let rows = try ZeekLog.load(try Requirement.publicCapture(log))
        let (writer, result) = CollectingWriter.analyze([try Requirement.publicCapture(capture)])
        Conservation.check(writer, result)
        #expect(!rows.isEmpty)
        var used = Set<Int>()
        // Rows that are not HTTP/1.x transactions (documented above) occur in methods.pcap only.
        let comparable = rows.filter { ["1.0", "1.1"].contains($0["version"] ?? "") && $0["method"] != "-" && $0["uri"] != "(empty)" }
        #expect(comparable.count == rows.count || capture == "zeek__http__methods.pcap", "\(capture): \(rows.count - comparable.count) rows excluded")
        var compared = 0
        for row in comparable {
            let port = row["id.orig_p"] ?? ""
            let what = "\(capture) \(row["method"] ?? "") \(row["uri"] ?? "") port \(port)"
            let index = writer.exchanges.indices.first { index in
                let record = writer.exchanges[index]
                return !used.contains(index) && (record.string("conn.client") ?? "").hasSuffix(":\(port)")
                    && record["request"]?.string("method") == row["method"] && record["request"]?.string("target") == row["uri"]
            }
            guard let index else {
                Issue.record("no exchange for Zeek's \(what)")
                continue
            }
            used.insert(index)
            let record = writer.exchanges[index]
            if let status = Int(row["status_code"] ?? ""), status > 0 { #expect(record["response"]?.int("status") == status, "\(what)") }
            if let length = Int(row["request_body_len"] ?? "") {
                #expect(Self.bodyLength(record["request"]) == length, "\(what) request body")
            }
            if let length = Int(row["response_body_len"] ?? ""), record["response"] != .null {
                #expect(Self.bodyLength(record["response"]) == length, "\(what) response body")
            }
            compared += 1
        }
        #expect(compared == comparable.count, "\(capture): every HTTP/1.x row of Zeek's log compared")
    }

    /// Decoded size for content-encoded bodies, else the body as sent.
    static func bodyLength(_ message: JSONValue?) -> Int? {
        message?.int("decoded_body") ?? message?.int("bytes.body")
    }
}

/// Rows of any Zeek TSV log as dictionaries by field name.
enum ZeekLog {
    /// The rows of the log at `path`; a file without a `#fields` header is not a Zeek log and throws.
    static func load(_ path: String) throws -> [[String: String]] {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        let fieldsLine = try #require(lines.first(where: { $0.hasPrefix("#fields") }), "\(path) has no #fields line")
        let fields = fieldsLine.split(separator: "\t").dropFirst().map(String.init)
        return lines.filter { !$0.hasPrefix("#") }.map { line in
            Dictionary(zip(fields, line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)),
                       uniquingKeysWith: { first, _ in first })
        }
    }
}

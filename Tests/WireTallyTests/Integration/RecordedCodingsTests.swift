import Foundation
import Testing
@testable import WireTally

/// `captures/codings.pcap`: scripts/lib/codings-server.py (python's brotli and zstandard) sends br, zstd,
/// gzip and stacks of them, with Content-Length or chunked, to curl --compressed on one keep-alive
/// connection. Checked against what the server logged (file served, encoded size), what curl
/// decoded (`codings.decoded.tsv`) and counted (`size_download`, `codings.curl-sizes.jsonl`), and tshark's decoding
/// (`codings.tshark.txt`, br and gzip only: tshark 4.0 decodes neither zstd nor stacks).
@Suite struct RecordedCodingsTests {
    static let capture = TestPaths.capture("codings.pcap")

    struct ServerLine: Decodable {
        let target: String
        let codings: String
        let file_bytes: Int
        let encoded_bytes: Int
        let chunked: Bool
    }

    static func serverLog() throws -> [ServerLine] {
        let text = try String(contentsOfFile: TestPaths.capture("codings.server.jsonl"), encoding: .utf8)
        return try text.split(separator: "\n").map { try JSONDecoder().decode(ServerLine.self, from: Data($0.utf8)) }
    }

    /// curl's figures per target: decoded bytes (the file it wrote) and size_download (as received).
    static func curl() throws -> [String: (decoded: Int, downloaded: Int)] {
        let decoded = try String(contentsOfFile: TestPaths.capture("codings.decoded.tsv"), encoding: .utf8)
            .split(separator: "\n").dropFirst().map { $0.split(separator: "\t").map(String.init) }
        let downloads = try String(contentsOfFile: TestPaths.capture("codings.curl-sizes.jsonl"), encoding: .utf8)
            .split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        try #require(decoded.count == downloads.count)
        var result: [String: (Int, Int)] = [:]
        for (row, download) in zip(decoded, downloads) {
            let url = try #require(download["url_effective"] as? String)
            #expect(url.hasSuffix(row[0]), "curl's transfers are in the order of codings.decoded.tsv")
            result[row[0]] = (Int(row[1])!, try #require(download["size_download"] as? Int))
        }
        return result
    }

    static func records() throws -> [[String: Any]] {
        let run = try LimitTestSupport.analyzeJSONLines(capture, ["--decode"])
        #expect(run.status == 0, "\(run.stderr)")
        return try run.records.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
            .filter { $0["request"] is [String: Any] }
    }

    static func value(_ object: [String: Any], _ path: String) -> Any? {
        var value: Any? = object
        for key in path.split(separator: ".") { value = (value as? [String: Any])?[String(key)] }
        return value
    }

    /// Every response: the body as sent is the server's encoded size and curl's size_download, the
    /// decoded size is the file served and what curl decoded; the coding is as sent; nothing flagged.
    @Test func decodedSizesAreTheFilesServed() throws {
        let server = try Self.serverLog()
        let curl = try Self.curl()
        let records = try Self.records()
        try #require(records.count == server.count && server.count >= 11)
        #expect(Set(server.map(\.codings)).isSuperset(of: ["br", "zstd", "gzip", "gzip, br", "br, zstd", "zstd, gzip"]))
        for (record, line) in zip(records, server) {
            #expect(Self.value(record, "request.target") as? String == line.target)
            #expect(Self.value(record, "response.content_encoding") as? String == line.codings, "\(line.target)")
            #expect(Self.value(record, "response.bytes.body") as? Int == line.encoded_bytes, "\(line.target)")
            #expect(Self.value(record, "response.decoded_body") as? Int == line.file_bytes, "\(line.target)")
            #expect(curl[line.target]?.decoded == line.file_bytes && curl[line.target]?.downloaded == line.encoded_bytes, "\(line.target)")
            #expect((record["flags"] as? [String] ?? []).isEmpty, "\(line.target): \(record["flags"] ?? "")")
        }
    }

    /// tshark's "Content-encoded entity body (CODING): N bytes -> M bytes" (M only when it decoded
    /// the body: br and gzip) for each response, in order.
    @Test func tsharkDecodesTheSame() throws {
        let lines = try String(contentsOfFile: TestPaths.capture("codings.tshark.txt"), encoding: .utf8).split(separator: "\n")
        let records = try Self.records()
        try #require(lines.count == records.count)
        var decodedByTshark = 0
        for (line, record) in zip(lines, records) {
            let sizes = try Self.tsharkSizes(String(line))
            #expect(sizes.coding == Self.value(record, "response.content_encoding") as? String)
            #expect(sizes.encoded == Self.value(record, "response.bytes.body") as? Int)
            if let decoded = sizes.decoded {
                #expect(decoded == Self.value(record, "response.decoded_body") as? Int, "\(line)")
                decodedByTshark += 1
            }
        }
        #expect(decodedByTshark >= 4)
    }

    /// "FRAME\tContent-encoded entity body (br): 26422 bytes -> 200042 bytes".
    static func tsharkSizes(_ line: String) throws -> (coding: String, encoded: Int, decoded: Int?) {
        let open = try #require(line.firstIndex(of: "(")), close = try #require(line.firstIndex(of: ")"))
        let coding = String(line[line.index(after: open)..<close])
        let numbers = line[close...].split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        return (coding, try #require(numbers.first), numbers.count > 1 ? numbers[1] : nil)
    }

    /// `rebuilt` re-encodes each body with its own codings (br quality 6, zstd level 3, gzip level 6),
    /// as the server did: for the bodies the server encoded in one piece at those settings, the
    /// estimate is the server's encoded size (br and gzip exactly, as python's encoders give the same
    /// bytes as the system libraries; zstd within 0.5 %: python's zstandard bundles a newer libzstd);
    /// a streamed (chunked) body differs by what the streaming cost the server.
    @Test func rebuiltReencodesWithTheSameCoding() throws {
        let server = try Self.serverLog()
        let collector = EstimatorCollector.analyze([Self.capture])
        let exchanges = collector.exchanges.sorted { $0.exchange.index < $1.exchange.index }
        try #require(exchanges.count == server.count)
        for ((exchange, _), line) in zip(exchanges, server) {
            let breakdown = try #require(Estimator.rebuilt.breakdown(exchange))
            let estimate = breakdown.down.body
            #expect(!breakdown.down.approximated, "\(line.target)")
            if line.chunked {
                #expect(abs(estimate - line.encoded_bytes) <= line.encoded_bytes / 20 + 64, "\(line.target): \(estimate) vs \(line.encoded_bytes)")
            } else if line.codings.contains("zstd") {
                #expect(abs(estimate - line.encoded_bytes) <= line.encoded_bytes / 200 + 2, "\(line.target): \(estimate) vs \(line.encoded_bytes)")
            } else {
                #expect(estimate == line.encoded_bytes, "\(line.target): \(estimate) vs \(line.encoded_bytes)")
            }
        }
    }

    /// Decoding changes no byte count: every byte of the capture is attributed or unattributed.
    @Test func bytesAreConserved() throws {
        var options = CaptureAnalyzer.Options()
        options.http.decodeBodies = true
        let (writer, _) = LimitTestSupport.analyzeConserved(Self.capture, options: options)
        #expect(writer.exchanges.count == (try Self.serverLog()).count)
    }
}

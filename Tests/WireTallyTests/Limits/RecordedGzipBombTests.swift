import Foundation
import Testing
@testable import WireTally

/// The recorded gzip bomb inside TLS (`captures/tls-edge.pcap`, nginx port 4443): 8 MiB of zeros
/// gzipped (`gzip -9`, about 8 KB) sent as `Content-Encoding: gzip` over TLS 1.3, fetched by curl
/// without `--compressed`. Decrypted with the key log and decoded (`analyze --decode`), decoding stops
/// at the cap — decoded size (`--max-decoded-body-bytes`) or ratio (`--max-decoding-ratio`) — and the
/// response is flagged `decompression_bomb`; the wire bytes stay nginx's and conservation holds.
@Suite struct RecordedGzipBombTests {
    static let capture = TestPaths.capture("tls-edge.pcap"), keys = TestPaths.capture("tls-edge.keys")
    static let zeros = 8 << 20

    /// nginx's line of the bomb (`/edge/bomb.gz`).
    static func nginxLine() throws -> NginxLog {
        try #require(try NginxLog.load(TestPaths.capture("tls-edge.nginx.jsonl")).first { $0.uri == "/edge/bomb.gz" })
    }

    static func bombRecord(_ run: LimitTestSupport.JSONLinesRun) throws -> [String: Any] {
        let line = try #require(run.records.first { $0.contains("\"/edge/bomb.gz\"") }, "no exchange for /edge/bomb.gz")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    static func int(_ object: [String: Any], _ path: String) -> Int? {
        var value: Any? = object
        for key in path.split(separator: ".") { value = (value as? [String: Any])?[String(key)] }
        return value as? Int
    }

    static func flags(_ object: [String: Any]) -> [String] { object["flags"] as? [String] ?? [] }

    /// The binary with the key log: without --decode nothing is decoded; with it the default caps stop
    /// the bomb (8 MiB of zeros compress about 1030:1, past the ratio 1000 once 1 MiB is decoded);
    /// a lower ratio stops it earlier; a decoded-size cap stops it at the cap (plus at most one 32 KiB
    /// inflate buffer per feed); caps above the bomb decode all 8 MiB without a flag.
    @Test func analyzeDecodeFlagsTheBomb() throws {
        let nginx = try Self.nginxLine()
        #expect(nginx.status == 200 && nginx.isTLS)
        let keyed = ["--keylog", Self.keys]
        func check(_ extra: [String], bomb: Bool, decoded: ClosedRange<Int>?) throws {
            let run = try LimitTestSupport.analyzeJSONLines(Self.capture, keyed + extra)
            #expect(run.status == 0, "\(extra): \(run.stderr)")
            let record = try Self.bombRecord(run)
            #expect(Self.flags(record).contains("decrypted"), "\(extra)")
            #expect(Self.flags(record).contains("response_decompression_bomb") == bomb, "\(extra): \(Self.flags(record))")
            // the wire bytes are nginx's whatever the decoding: $bytes_sent, $body_bytes_sent
            #expect(Self.int(record, "response.bytes.total") == nginx.bytesSent, "\(extra)")
            #expect(Self.int(record, "response.bytes.body") == nginx.bodyBytesSent, "\(extra)")
            let value = Self.int(record, "response.decoded_body")
            if let decoded {
                #expect(value.map { decoded.contains($0) } == true, "\(extra): decoded_body \(value.map(String.init) ?? "nil")")
            } else {
                #expect(value == nil, "\(extra): not decoded")
            }
            // only the bomb is flagged
            #expect(run.records.filter { $0.contains("decompression_bomb") }.count == (bomb ? 1 : 0), "\(extra)")
        }
        try check([], bomb: false, decoded: nil)
        try check(["--decode"], bomb: true, decoded: (1 << 20) + 1 ... Self.zeros - 1)
        try check(["--decode", "--max-decoding-ratio", "100"], bomb: true, decoded: (1 << 20) + 1 ... (1 << 20) + (64 << 10))
        try check(["--decode", "--max-decoding-ratio", "100000", "--max-decoded-body-bytes", "2000000"], bomb: true,
                  decoded: 2_000_001 ... 2_000_000 + (64 << 10))
        try check(["--decode", "--max-decoding-ratio", "100000"], bomb: false, decoded: Self.zeros ... Self.zeros)
    }

    /// In process, with the key log and a decoded-size cap: the bomb is flagged, decoding stopped at the
    /// cap, and every byte of every connection is conserved.
    @Test func conservedWithTheBombStopped() throws {
        var options = CaptureAnalyzer.Options()
        options.tlsKeys = try TLSKeyStore.reading(files: [Self.keys])
        options.http.decodeBodies = true
        options.http.maxDecodedBodyBytes = 1 << 20
        let (writer, _) = LimitTestSupport.analyzeConserved(Self.capture, options: options)
        let bomb = try #require(writer.exchanges.first { $0["request"]?.string("target") == "/edge/bomb.gz" })
        #expect(bomb.flagNames.contains("response_decompression_bomb"))
        #expect(bomb.flagNames.contains("decrypted"))
        let decoded = try #require(bomb.int("response.decoded_body"))
        #expect(decoded > 1 << 20 && decoded <= (1 << 20) + (64 << 10))
        #expect(bomb.int("response.bytes.total") == (try Self.nginxLine()).bytesSent)
        #expect(writer.exchanges.filter { $0.flagNames.contains("response_decompression_bomb") }.count == 1)
    }
}

import Foundation
import Testing
@testable import WireTally

/// Reading and decoding on a second thread (`AnalysisRun.threads == 2`) changes nothing: the JSON Lines
/// output is byte for byte the one of the single-threaded run, on every recorded and public capture, on
/// several files merged, on gzip input, on a damaged file (same records before the damage, same errors),
/// on IP fragments and bad checksums, which the reader's decoder leaves to the analysing thread or
/// counts on its own, and with key logs (TLS decrypted, HTTP/2 and HTTP/3 parsed inside).
@Suite struct ThreadedRunTests {
    /// The JSON Lines text of one run, and its errors.
    static func jsonl(_ files: [String], threads: Int, decode: Bool = true, filter: String? = nil, keys: [String] = []) throws
        -> (text: String, errors: [String])
    {
        let path = TestScratch.folder.appendingPathComponent("wiretally-threads-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var options = CaptureAnalyzer.Options()
        options.http.decodeBodies = decode
        options.filter = filter
        if !keys.isEmpty { options.tlsKeys = try TLSKeyStore.reading(files: keys) }
        let result = AnalysisRun(files: files, options: options, threads: threads)
            .run(writer: JSONLinesWriter(output: try TextOutput(path: path)))
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return (text, result.errors.map { String(describing: $0) })
    }

    /// Each capture alone gives the same output and errors with one and two threads, and is conserved.
    /// With `keyLog`, each capture's key log (its path from the capture's) is given to both runs.
    static func expectSameOutputOnEach(_ captures: [String], keyLog: ((String) -> String)? = nil) throws {
        for capture in captures {
            let keys = keyLog.map { [$0(capture)] } ?? []
            let one = try Self.jsonl([capture], threads: 1, keys: keys)
            let two = try Self.jsonl([capture], threads: 2, keys: keys)
            #expect(one.text == two.text, "\(capture)")
            #expect(one.errors == two.errors, "\(capture)")
            #expect(one.text.hasSuffix("\"conserved\":true}\n") || !one.errors.isEmpty, "\(capture)")
        }
    }

    @Test func sameOutputOnEveryRecordedCapture() throws {
        let captures = TestPaths.files(in: TestPaths.captures, endingWith: [".pcap", ".pcapng", ".pcap.gz"]).map(TestPaths.capture)
        #expect(captures.count >= 10)
        try Self.expectSameOutputOnEach(captures)
    }

    @Test(.requires(.publicCaptures))
    func sameOutputOnEveryPublicCapture() throws {
        try Self.expectSameOutputOnEach(try TestPaths.publicCaptureFiles.map(Requirement.publicCapture))
    }

    /// Every recording with a key log, decrypted: TLS 1.2 and 1.3 with HTTP/1.1 (every cipher, edge
    /// cases, a lossy run), HTTP/2 over TLS (also lossy and cancelled), QUIC/HTTP/3 (also lossy). Plain
    /// HTTP/1 and the lossy cleartext runs are in `sameOutputOnEveryRecordedCapture`.
    @Test func sameOutputWithKeysOnEveryKeyedRecording() throws {
        let names = TestPaths.recordedCaptures(beside: ".keys")
        #expect(Set(["tls12-http1", "tls13-http1", "tls13-h2", "tls-lossy", "h2-lossy", "quic-lossy"]).isSubset(of: names))
        try Self.expectSameOutputOnEach(names.map { TestPaths.capture($0 + ".pcap") }) {
            String($0.dropLast(".pcap".count)) + ".keys"
        }
    }

    /// The public keyed captures with their key logs (TLS 1.0 and 1.2 CBC, GCM, CCM_8 and ChaCha20,
    /// TLS 1.3, mutual TLS, HTTP/2, QUIC): `NAME.pcapng.keylog.txt` beside `NAME.pcapng`, or
    /// `NAME.keylog.txt` beside `NAME.pcap`.
    @Test(.requires(.publicTLSCaptures))
    func sameOutputWithKeysOnEveryPublicKeyedCapture() throws {
        let folder = try #require(TestPaths.publicTLSCaptures)
        var keyLogs: [String: String] = [:]
        for name in TestPaths.files(in: folder, endingWith: [".keylog.txt"]) {
            let base = folder.appendingPathComponent(String(name.dropLast(".keylog.txt".count))).path
            guard let capture = [base, base + ".pcap", base + ".pcapng"].first(where: { FileManager.default.fileExists(atPath: $0) })
            else { continue }
            keyLogs[capture] = folder.appendingPathComponent(name).path
        }
        #expect(keyLogs.count >= 17)
        try Self.expectSameOutputOnEach(keyLogs.keys.sorted()) { keyLogs[$0]! }
    }

    @Test func sameOutputForMergedFilesAndAMissingOne() throws {
        let files = [
            TestPaths.capture("nginx-chunked-gzip.pcap.gz"), TestPaths.capture("dns-http.pcap"),
            "/nonexistent/capture.pcap", TestPaths.capture("lossy.pcap"),
        ]
        let one = try Self.jsonl(files, threads: 1, decode: false)
        let two = try Self.jsonl(files, threads: 2, decode: false)
        #expect(one.text == two.text)
        #expect(one.errors == two.errors && one.errors.count == 1)
    }

    /// More packets than fit in one batch, then a file cut in the middle of a record.
    @Test func sameOutputOnATruncatedFileOfManyBatches() throws {
        let whole = try Data(contentsOf: URL(fileURLWithPath: TestPaths.capture("lossy.pcap")))
        #expect(whole.count > PacketBatch.byteCapacity)
        let cut = TestScratch.folder.appendingPathComponent("wiretally-cut-\(UUID().uuidString).pcap")
        defer { try? FileManager.default.removeItem(at: cut) }
        try whole.prefix(whole.count - 700).write(to: cut)
        let one = try Self.jsonl([cut.path], threads: 1)
        let two = try Self.jsonl([cut.path], threads: 2)
        #expect(one.text == two.text)
        #expect(one.errors == two.errors)
        #expect(one.errors.first?.contains("truncated") == true)
    }

    /// A keep-alive HTTP connection whose first request comes in IPv4 fragments, with a bad TCP
    /// checksum, a bad IPv4 header checksum and a stray fragment that never completes, between ordinary
    /// packets; with and without a filter (with one the reader does not decode).
    @Test func sameOutputAndCountsWithFragmentsAndBadChecksums() throws {
        let (c, s) = ("10.0.0.1:40000", "10.0.0.2:80")
        let request = Array("GET /a HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        let response = Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello".utf8)
        let c1 = UInt32(101), s1 = UInt32(501)
        let c2 = c1 + UInt32(request.count), s2 = s1 + UInt32(response.count)
        let fragments = FrameBuilder.ipv4Fragments(
            FrameBuilder.tcpSegment(from: c, to: s, seq: c1, ack: s1, flags: [.ack, .psh], payload: request),
            from: c, to: s, fragmentSize: 16)
        let badTCP = FrameBuilder.tcp(from: s, to: c, seq: s1, ack: c2, flags: [.ack, .psh], payload: response, badChecksum: true)
        var badIP = FrameBuilder.tcp(from: c, to: s, seq: c2, ack: s2)
        badIP[14 + 10] ^= 0xff
        let stray = FrameBuilder.ipv4Fragments(
            FrameBuilder.tcpSegment(from: c, to: s, seq: 9, payload: [UInt8](repeating: 1, count: 64)),
            from: c, to: s, fragmentSize: 32, identification: 8)[0]
        let frames = [
            FrameBuilder.tcp(from: c, to: s, seq: 100, flags: [.syn]),
            FrameBuilder.tcp(from: s, to: c, seq: 500, ack: c1, flags: [.syn, .ack]),
            FrameBuilder.tcp(from: c, to: s, seq: c1, ack: s1),
        ] + fragments + [stray, badTCP, badIP, FrameBuilder.tcp(from: s, to: c, seq: s1, ack: c2, flags: [.ack, .psh], payload: response)]
        let writer = try PcapWriter(destination: .memory, linkType: .ethernet)
        for (index, frame) in frames.enumerated() {
            try frame.withUnsafeBytes { bytes in
                try writer.write(CapturedPacket(
                    frameNumber: index + 1, timestamp: Timestamp(seconds: 1_700_000_000, nanoseconds: Int64(index) * 1000),
                    linkType: .ethernet, originalLength: bytes.count, bytes: bytes))
            }
        }
        let file = TestScratch.folder.appendingPathComponent("wiretally-frag-\(UUID().uuidString).pcap")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(writer.bytes).write(to: file)

        let one = try Self.jsonl([file.path], threads: 1)
        let two = try Self.jsonl([file.path], threads: 2)
        #expect(one.text == two.text)
        let summary = try #require(one.text.split(separator: "\n").last.map(String.init))
        #expect(summary.contains("\"bad_checksums\":{\"ip\":1,\"transport\":1}"))
        #expect(summary.contains("\"fragmented_datagrams\":1"))
        #expect(summary.hasSuffix("\"conserved\":true}"))
        #expect(one.text.contains("\"method\":\"GET\""))
        let filtered = try Self.jsonl([file.path], threads: 1, filter: "tcp or ip[6:2] & 0x3fff != 0")
        #expect(try Self.jsonl([file.path], threads: 2, filter: "tcp or ip[6:2] & 0x3fff != 0").text == filtered.text)
    }

    /// The reader reads a single file straight into the batches: records bigger than a batch (an
    /// Ethernet frame padded to 300,000 bytes, the snaplen allowing it) and records straddling batch
    /// ends, plain and gzip-compressed.
    @Test func sameOutputWithRecordsBiggerThanABatch() throws {
        let packets = readAll(path: TestPaths.capture("lossy.pcap")).packets
        let writer = try PcapWriter(destination: .memory, linkType: .ethernet, precision: .nanoseconds, snaplen: 1 << 20)
        for (index, packet) in packets.enumerated() {
            var bytes = packet.bytes
            if index % 500 == 7 { bytes += [UInt8](repeating: 0, count: 300_000 - bytes.count) }
            try bytes.withUnsafeBytes { view in
                try writer.write(CapturedPacket(
                    frameNumber: index + 1, timestamp: Timestamp(nanoseconds: packet.nanoseconds), linkType: .ethernet,
                    originalLength: view.count, bytes: view))
            }
        }
        #expect(writer.bytes.count > 8 * PacketBatch.byteCapacity)
        let scratch = try TemporaryDirectory()
        for path in [try scratch.file("big.pcap", writer.bytes), try scratch.file("big.pcap.gz", try gzipped(writer.bytes))] {
            let one = try Self.jsonl([path], threads: 1)
            let two = try Self.jsonl([path], threads: 2)
            #expect(one.text == two.text, "\(path)")
            #expect(one.errors.isEmpty && two.errors.isEmpty)
            #expect(one.text.hasSuffix("\"conserved\":true}\n"))
        }
    }
}

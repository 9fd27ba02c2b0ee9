import Foundation
import Testing
@testable import WireTally

/// Decryption under hostile input: damaged records, damaged captures, damaged key logs. Nothing
/// crashes, conservation holds, and what can still be decrypted is.
@Suite struct TLSDecryptionHostileTests {
    static func options(keys: [String]) throws -> CaptureAnalyzer.Options {
        var options = CaptureAnalyzer.Options()
        options.tlsKeys = try TLSKeyStore.reading(files: keys)
        return options
    }

    /// The byte offsets of each packet's data in a classic pcap file (frame number from 1).
    static func packetOffsets(_ bytes: [UInt8]) -> [Int: Range<Int>] {
        var offsets: [Int: Range<Int>] = [:], position = 24, frame = 1
        while position + 16 <= bytes.count {
            let length = Int(bytes[position + 8]) | Int(bytes[position + 9]) << 8 | Int(bytes[position + 10]) << 16 | Int(bytes[position + 11]) << 24
            offsets[frame] = position + 16 ..< min(bytes.count, position + 16 + length)
            position += 16 + length
            frame += 1
        }
        return offsets
    }

    /// One byte changed inside an encrypted record in the middle of a 40 KB response: that record does
    /// not authenticate; it is lost (`tls_gap`, `partial`), its plaintext length is known from its size,
    /// and every other request of the connection is exact.
    @Test func recordThatDoesNotAuthenticateIsLostAlone() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: TestPaths.capture("tls13-http1.pcap"))))
        let frame = try #require(Self.packetOffsets(bytes)[44])  // inside the response's second 16 KB record
        bytes[frame.upperBound - 100] ^= 0x40
        let path = TestScratch.folder.appendingPathComponent("tls13-http1-damaged-record.pcap").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let (writer, result) = CollectingWriter.analyze([path], options: try Self.options(keys: [TestPaths.capture("tls13-http1.keys")]))
        Conservation.check(writer, result)
        let log = try NginxLog.load(TestPaths.capture("tls13-http1.nginx.jsonl"))
        let hit = try #require(log.first { $0.uri == "/data.json" })
        let damaged = try #require(writer.connections.first { $0.port("client") == hit.clientPort })
        #expect(damaged["tls"]?["decryption"] == .string("partial"))
        #expect(damaged.flagNames.contains("tls_gap") && !damaged.flagNames.contains("gap"))
        let ours = HTTPWireTruthTests.Indexed(writer)
        for entry in log where entry.uri != hit.uri {
            let record = try #require(ours.find(port: entry.clientPort, index: entry.connectionRequests - 1, near: entry.time))
            #expect(record["request"]?.int("bytes.total") == entry.requestLength, "\(entry.uri)")
            #expect(record["response"]?.int("bytes.total") == entry.bytesSent, "\(entry.uri) #\(entry.connectionRequests)")
        }
        #expect(writer.exchanges.count == log.count)
    }

    /// A record header that claims more than TLS allows (2^14 + 2048 body bytes, or 65,535): the first
    /// 16 KB application-data record of the capture gets that length. The record layer loses its
    /// boundary there, resynchronises on a later record header, and the rest of the capture is exact:
    /// no crash, conserved, only that connection `partial` with `tls_gap`, every other nginx line exact.
    @Test(arguments: [TLSRecordReader.maxRecordLength + 1, 0xFFFF])
    func recordLongerThanTLSAllowsIsLostAlone(_ length: Int) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: TestPaths.capture("tls13-http1.pcap"))))
        let header: [UInt8] = [23, 3, 3, 0x40, 0x11]  // application data, 16,384 + 17 bytes
        let at = try #require((0 ..< bytes.count - 5).first { Array(bytes[$0 ..< $0 + 5]) == header })
        (bytes[at + 3], bytes[at + 4]) = (UInt8(length >> 8), UInt8(length & 0xff))
        let path = TestScratch.folder.appendingPathComponent("tls13-http1-long-record-\(length).pcap").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let (writer, result) = CollectingWriter.analyze([path], options: try Self.options(keys: [TestPaths.capture("tls13-http1.keys")]))
        Conservation.check(writer, result)
        let damaged = writer.connections.filter { $0["tls"]?["decryption"] != .string("decrypted") }
        #expect(damaged.count == 1 && damaged.allSatisfy { $0["tls"]?["decryption"] == .string("partial") && $0.flagNames.contains("tls_gap") })
        let port = try #require(damaged.first?.port("client"))
        let ours = HTTPWireTruthTests.Indexed(writer)
        var exact = 0
        for entry in try NginxLog.load(TestPaths.capture("tls13-http1.nginx.jsonl")) where entry.clientPort != port {
            let record = try #require(ours.find(port: entry.clientPort, index: entry.connectionRequests - 1, near: entry.time))
            #expect(record["request"]?.int("bytes.total") == entry.requestLength, "\(entry.uri)")
            #expect(record["response"]?.int("bytes.total") == entry.bytesSent, "\(entry.uri) #\(entry.connectionRequests)")
            exact += 1
        }
        #expect(exact > 0)
    }

    /// Random bytes changed anywhere in TLS captures analysed with their keys: no crash, the summary and
    /// every connection conserved.
    @Test(arguments: ["tls12-http1", "tls13-http1", "latency"])
    func randomDamageWithKeysKeepsConservation(_ name: String) throws {
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: TestPaths.capture(name + ".pcap"))))
        let options = try Self.options(keys: [TestPaths.capture(name + ".keys")])
        var generator = SeededGenerator(state: 14)
        for variant in 0 ..< 40 {
            var bytes = original
            for _ in 0 ..< Int.random(in: 1 ... 8, using: &generator) {
                bytes[Int.random(in: 40 ..< bytes.count, using: &generator)] = UInt8.random(in: 0 ... 255, using: &generator)
            }
            let path = TestScratch.folder.appendingPathComponent("\(name)-damaged-\(variant).pcap").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let (writer, result) = CollectingWriter.analyze([path], options: options)
            #expect(result.summary.isConserved, "\(name) variant \(variant)")
            Conservation.check(writer, result)
        }
    }

    /// A key log cut anywhere: no crash; a connection whose secrets are all there is decrypted, the
    /// others are `no_key`, `failed`, or `partial` (the handshake secrets there, the application
    /// secrets cut off: the handshake opens, the application data does not).
    @Test func truncatedKeyLogs() throws {
        let keys = [UInt8](try Data(contentsOf: URL(fileURLWithPath: TestPaths.capture("tls13-http1.keys"))))
        var generator = SeededGenerator(state: 1414)
        var cuts = [0, 1, keys.count / 3, keys.count / 2, keys.count - 1]
        for _ in 0 ..< 10 { cuts.append(Int.random(in: 0 ..< keys.count, using: &generator)) }
        for cut in cuts {
            var log = TLSKeyLog(keys.prefix(cut))
            log.finish()
            var options = CaptureAnalyzer.Options()
            options.tlsKeys = TLSKeyStore([log])
            let (writer, result) = CollectingWriter.analyze([TestPaths.capture("tls13-http1.pcap")], options: options)
            Conservation.check(writer, result)
            for connection in writer.connections where connection["tls"] != nil && connection["tls"] != .null {
                let status = connection["tls"]?.string("decryption")
                #expect(["decrypted", "partial", "no_key", "failed"].contains(status ?? ""), "cut at \(cut): \(status ?? "nil")")
            }
            if cut == keys.count - 1 || cut == 0 {
                let expected = cut == 0 ? "no_key" : "decrypted"  // the last line loses only its newline
                #expect(writer.connections.filter { $0["tls"] != nil && $0["tls"] != .null }.allSatisfy { $0["tls"]?.string("decryption") == expected })
            }
        }
    }
}

/// A key store that grows while the capture is analysed (live `--keylog`): the secrets of a
/// connection may be logged after its first protected records, which are held until they come.
@Suite struct GrowingKeyStoreTests {
    /// Analyses `capture` (tls13-http1 by default) packet by packet, adding its key log to a growing
    /// store after `keysAfter` packets (nil: never).
    /// `firstLines` (when given) is in the store from the start: the key log lines whose label it accepts.
    static func analyze(_ capture: String = "tls13-http1", keysAfter: Int?, firstLines: ((Substring) -> Bool)? = nil) throws
        -> CollectingWriter
    {
        var options = CaptureAnalyzer.Options()
        let text = try String(contentsOfFile: TestPaths.capture(capture + ".keys"), encoding: .utf8)
        let first = firstLines.map { accept in text.split(separator: "\n").filter(accept).joined(separator: "\n") } ?? ""
        let store = TLSKeyStore([TLSKeyLog(Array(first.utf8))], growing: true)
        options.tlsKeys = store
        let writer = CollectingWriter()
        let analyzer = CaptureAnalyzer(options: options) { writer.write($0, timestampDigits: 6) }
        let source = MergedPacketSource(paths: [TestPaths.capture(capture + ".pcap")])
        let keys = Array(text.utf8)
        var count = 0
        while let packet = try source.nextPacket() {
            if count == keysAfter { store.update(0) { $0 = TLSKeyLog(keys) } }
            analyzer.process(packet)
            count += 1
        }
        writer.finish(summary: analyzer.finish(timestampDigits: 6), files: [])
        return writer
    }

    /// Keys logged after the server's encrypted flight and the client's first records (frame 20 is
    /// inside the first response): the held records are opened once they come; every exchange is
    /// decrypted and equals the run with the keys from the start.
    @Test func secretsLoggedLateDecryptEverything() throws {
        let late = try Self.analyze(keysAfter: 20)
        let early = try Self.analyze(keysAfter: 0)
        #expect(late.exchanges.count == 6 && late.exchanges.allSatisfy { $0.flagNames.contains("decrypted") })
        #expect(late.exchanges.map { $0["request"] } == early.exchanges.map { $0["request"] })
        #expect(late.exchanges.map { $0["wire"] } == early.exchanges.map { $0["wire"] })
        #expect(late.connections.filter { $0["tls"] != nil && $0["tls"] != .null }.allSatisfy { $0["tls"]?["decryption"] == .string("decrypted") })
    }

    /// A client logs each secret as it derives it: live, the handshake secrets may be in the file when
    /// the first protected record comes and the application secrets only later (curl's requests were
    /// lost that way: `no_request` on decrypted connections in the live test). The records wait for
    /// every secret the connection needs.
    @Test func applicationSecretsLoggedAfterTheHandshakeOnesDecryptEverything() throws {
        let late = try Self.analyze(keysAfter: 20, firstLines: { $0.contains("HANDSHAKE_TRAFFIC_SECRET") })
        let early = try Self.analyze(keysAfter: 0)
        #expect(late.exchanges.count == 6 && late.exchanges.allSatisfy { $0.flagNames.contains("decrypted") && !$0.flagNames.contains("no_request") })
        #expect(late.exchanges.map { $0["request"] } == early.exchanges.map { $0["request"] })
        #expect(late.exchanges.map { $0["wire"] } == early.exchanges.map { $0["wire"] })
    }

    /// Keys that never come: the held records are given up when the connection ends; it is `no_key`
    /// and estimated exactly as without keys.
    @Test func secretsThatNeverComeLeaveTheKeylessEstimate() throws {
        let never = try Self.analyze(keysAfter: nil)
        let (keyless, _) = CollectingWriter.analyze([TestPaths.capture("tls13-http1.pcap")])
        #expect(never.exchanges.count == keyless.exchanges.count)
        for (ours, theirs) in zip(never.exchanges, keyless.exchanges) {
            #expect(ours["wire"] == theirs["wire"] && ours["request"] == theirs["request"] && ours["response"] == theirs["response"])
        }
        #expect(never.connections.filter { $0["tls"] != nil && $0["tls"] != .null }.allSatisfy { $0["tls"]?["decryption"] == .string("no_key") })
    }
}

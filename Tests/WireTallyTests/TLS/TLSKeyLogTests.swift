import Foundation
import Testing
@testable import WireTally

/// The NSS key log reader, on the key logs real programs wrote: curl's (`captures/*.keys`, one per
/// recorded TLS capture) against the ClientHellos tshark finds in the same capture, and the public
/// keyed captures' logs; then the format's edges on hand-written logs.
@Suite struct TLSKeyLogTests {
    static let recordedKeyLogs = TestPaths.recordedTCPCaptures(beside: ".keys")

    static func read(_ path: String) throws -> TLSKeyLog {
        TLSKeyLog(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Every ClientHello tshark sees in the capture has its secrets in the clients' key log (curl's;
    /// in tls-ciphers also openssl s_client's and python's): a master secret for TLS 1.2, the four
    /// handshake and application traffic secrets of the suite's hash length for TLS 1.3 (the
    /// ServerHello's selected version and suite say which), and the log has no other connection and no
    /// problem (s_client's `*_TRAFFIC_SECRET_N` lines after KeyUpdates are skipped, not problems).
    @Test(.requires(.tshark), arguments: recordedKeyLogs)
    func curlsKeyLogCoversEveryClientHello(_ name: String) throws {
        let log = try Self.read(TestPaths.capture(name + ".keys"))
        #expect(log.problems.isEmpty, "\(name): \(log.problems)")
        let capture = TestPaths.capture(name + ".pcap")
        let hellos = try Tshark.fields(capture, filter: "tls.handshake.type == 1", ["tcp.stream", "tls.handshake.random"])
        let selected = try Tshark.fields(capture, filter: "tls.handshake.type == 2",
                                         ["tcp.stream", "tls.handshake.extensions.supported_version", "tls.handshake.ciphersuite"])
        let tls13Streams = Set(selected.filter { $0[1].contains("0x0304") }.map { $0[0] })
        // TLS 1.3 secrets are as long as the suite's hash: 48 bytes for TLS_AES_256_GCM_SHA384, else 32
        let sha384Streams = Set(selected.filter { $0[2] == "0x1302" }.map { $0[0] })
        #expect(!hellos.isEmpty, "\(name): no ClientHello")
        for hello in hellos {
            let random = try Tshark.bytes(hello[1])
            let secrets = try #require(log.secrets(clientRandom: random), "\(name) stream \(hello[0]): no secrets")
            if tls13Streams.contains(hello[0]) {
                #expect(secrets.masterSecret == nil)
                for secret in [secrets.clientHandshakeTraffic, secrets.serverHandshakeTraffic,
                               secrets.clientApplicationTraffic, secrets.serverApplicationTraffic] {
                    #expect(secret?.count == (sha384Streams.contains(hello[0]) ? 48 : 32), "\(name) stream \(hello[0]): secret length")
                }
            } else {
                #expect(secrets.masterSecret?.count == 48, "\(name) stream \(hello[0]): master secret")
            }
        }
        // After a HelloRetryRequest (tls-edge) the second ClientHello repeats the first one's random:
        // one connection, one group of secrets.
        #expect(log.connectionCount == Set(hellos.map { $0[1] }).count, "\(name): one connection in the log per ClientHello random")
    }

    /// The key logs shipped with the public keyed captures read without a problem, every secret of
    /// every non-comment line taken (exporter secrets and OpenSSL's updated secrets are skipped, not
    /// counted).
    @Test(.requires(.publicCaptures, .publicTLSCaptures))
    func publicKeyLogsReadWhole() throws {
        let folders = [try #require(TestPaths.publicCaptures), try #require(TestPaths.publicTLSCaptures)]
        var read = 0
        for folder in folders {
            for file in TestPaths.files(in: folder, endingWith: [".keylog.txt", "keylog.txt", ".keys"]) {
                let path = folder.appendingPathComponent(file).path
                let log = try Self.read(path)
                #expect(log.problems.isEmpty, "\(file): \(log.problems)")
                let text = try String(contentsOfFile: path, encoding: .utf8)
                let secretLines = text.split(whereSeparator: \.isNewline).filter {
                    let label = $0.split(separator: " ").first ?? ""
                    return !label.hasPrefix("#") && !label.hasSuffix("EXPORTER_SECRET") && !label.hasSuffix("_TRAFFIC_SECRET_N")
                }
                #expect(log.secretCount == secretLines.count, "\(file)")
                #expect(log.connectionCount > 0, "\(file)")
                read += 1
            }
        }
        #expect(read >= 10, "public key logs read: \(read)")
    }

    static let random = String(repeating: "ab", count: 32)
    static let master = String(repeating: "11", count: 48)
    static let secret32 = String(repeating: "22", count: 32)

    /// Comments, blank lines, CRLF, indentation, upper-case hex, exporter secrets, OpenSSL's secrets
    /// after a KeyUpdate: taken or skipped without a problem (the `_0` secrets stay); one connection
    /// collects the secrets of every label.
    @Test func wellFormedLinesOfEveryLabel() {
        let text = """
            # SSL/TLS secrets log file, generated by NSS\r
            \r

            CLIENT_RANDOM \(Self.random) \(Self.master)
              CLIENT_EARLY_TRAFFIC_SECRET \(Self.random.uppercased()) \(Self.secret32)\r
            CLIENT_HANDSHAKE_TRAFFIC_SECRET \(Self.random) \(Self.secret32)
            SERVER_HANDSHAKE_TRAFFIC_SECRET\t\(Self.random)\t\(Self.secret32)
            CLIENT_TRAFFIC_SECRET_0 \(Self.random) \(Self.secret32)
            SERVER_TRAFFIC_SECRET_0 \(Self.random) \(Self.secret32)
            EXPORTER_SECRET \(Self.random) \(Self.secret32)
            CLIENT_TRAFFIC_SECRET_N \(Self.random) \(String(repeating: "33", count: 32))
            SERVER_TRAFFIC_SECRET_N \(Self.random) \(String(repeating: "33", count: 32))
            """
        let log = TLSKeyLog(Array(text.utf8))
        #expect(log.problems.isEmpty)
        #expect(log.secretCount == 6 && log.connectionCount == 1)
        let secrets = log.secrets(clientRandom: [UInt8](repeating: 0xab, count: 32))
        #expect(secrets?.masterSecret == [UInt8](repeating: 0x11, count: 48))
        #expect(secrets?.clientEarlyTraffic == [UInt8](repeating: 0x22, count: 32))
        #expect(secrets?.serverApplicationTraffic == [UInt8](repeating: 0x22, count: 32))
        #expect(secrets?.clientApplicationTraffic == [UInt8](repeating: 0x22, count: 32))
        #expect(log.secrets(clientRandom: [UInt8](repeating: 0, count: 32)) == nil)
    }

    /// Each malformed line is reported with its number and why, the good lines around it are kept,
    /// and no problem repeats a secret.
    @Test func malformedLinesAreReportedByNumberWithoutTheSecret() {
        let lines = [
            "CLIENT_RANDOM \(Self.random) \(Self.master)",
            "CLIENT_RANDOM \(Self.random)",
            "CLIENT_RANDOM \(Self.random.dropLast(2)) \(Self.master)",
            "CLIENT_RANDOM \(Self.random) \(Self.secret32)",
            "SERVER_TRAFFIC_SECRET_0 \(Self.random) \(Self.secret32)zz",
            "NOT_A_LABEL \(Self.random) \(Self.secret32)",
            "CLIENT_TRAFFIC_SECRET_0 \(Self.random) \(Self.secret32) extra",
            "CLIENT_TRAFFIC_SECRET_0 \(Self.random) \(Self.secret32)",
        ]
        let log = TLSKeyLog(Array(lines.joined(separator: "\n").utf8))
        #expect(log.problems.map(\.line) == [2, 3, 4, 5, 6, 7])
        #expect(log.problems[0].reason.contains("found 1 values"))
        #expect(log.problems[1].reason.contains("client random"))
        #expect(log.problems[2].reason.contains("48 bytes"))
        #expect(log.problems[4].reason.contains("unknown label 'NOT_A_LABEL'"))
        #expect(log.secretCount == 2)
        for problem in log.problems {
            #expect(!problem.description.contains(Self.secret32) && !problem.description.contains(Self.master))
        }
    }

    /// A log arriving in pieces (a file that grows while capturing) reads the same at every split
    /// point, a last line without newline is taken at `finish`, and a line is taken only once whole.
    @Test func piecesReadLikeTheWhole() {
        let text = Array("# x\nCLIENT_RANDOM \(Self.random) \(Self.master)\nCLIENT_TRAFFIC_SECRET_0 \(Self.random) \(Self.secret32)".utf8)
        let whole = TLSKeyLog(text)
        #expect(whole.secretCount == 2 && whole.problems.isEmpty)
        for split in 0...text.count {
            var pieces = TLSKeyLog()
            pieces.read(text[..<split])
            pieces.read(text[split...])
            #expect(pieces.secretCount == 1, "split \(split): the last line waits for its newline")
            pieces.finish()
            #expect(pieces.secretCount == 2 && pieces.problems.isEmpty, "split \(split)")
            #expect(pieces.secrets(clientRandom: [UInt8](repeating: 0xab, count: 32)) == whole.secrets(clientRandom: [UInt8](repeating: 0xab, count: 32)))
        }
    }

    /// A file with no newline at all (garbage, a binary file given by mistake) keeps at most one line's
    /// worth of bytes and is one problem, not a crash or a growing buffer.
    @Test func aHugeLineIsOneProblem() {
        var log = TLSKeyLog()
        for _ in 0 ..< 1000 { log.read([UInt8](repeating: UInt8(ascii: "A"), count: 1000)) }
        log.finish()
        #expect(log.problems == [TLSKeyLog.Problem(line: 1, reason: "longer than any key log line")])
        #expect(log.secretCount == 0)
    }
}

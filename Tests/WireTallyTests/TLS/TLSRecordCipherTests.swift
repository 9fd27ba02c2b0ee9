import Crypto
import Foundation
import Testing
@testable import WireTally

/// TLS 1.3 record decryption on real connections: the encrypted records tshark lists (without keys)
/// in the recorded captures, opened with the traffic keys derived from curl's key log. An AEAD tag
/// only verifies with the right key, nonce and additional data, so every record authenticating is the
/// proof that the key schedule and the record protection are right; the plaintexts then say what
/// nginx and curl sent (the handshake, NewSessionTickets, HTTP, close_notify).
@Suite struct TLSRecordCipherTests {
    /// One encrypted TLS 1.3 record as tshark lists it.
    struct EncryptedRecord {
        var frame: Int
        var fromClient: Bool
        var body: [UInt8]
        var header: [UInt8] { [23, 3, 3, UInt8(body.count >> 8), UInt8(body.count & 0xff)] }
    }

    /// A TLS 1.3 connection of a capture: its client random, suite and encrypted records in order.
    struct Connection {
        var stream: String
        var clientRandom: [UInt8]
        var suite: TLSCipherSuite
        var records: [EncryptedRecord] = []
    }

    /// The TLS 1.3 connections of `capture`, from tshark's record fields (a frame's cleartext records
    /// come first, its opaque records then pair with its `tls.app_data` values in order).
    static func tls13Connections(_ capture: String) throws -> [Connection] {
        var connections: [String: Connection] = [:]
        let hellos = try Tshark.fields(capture, filter: "tls.handshake.type == 1", ["tcp.stream", "tls.handshake.random", "tcp.srcport"])
        let clientPorts = Dictionary(hellos.map { ($0[0], $0[2]) }, uniquingKeysWith: { first, _ in first })
        for server in try Tshark.fields(capture, filter: "tls.handshake.type == 2",
                                        ["tcp.stream", "tls.handshake.ciphersuite", "tls.handshake.extensions.supported_version"])
        where server[2].contains("0x0304") {
            let hello = try #require(hellos.first { $0[0] == server[0] })
            let random = try Tshark.bytes(hello[1])
            let suite = TLSCipherSuite(code: try #require(UInt16(server[1].dropFirst(2), radix: 16)))
            connections[server[0]] = Connection(stream: server[0], clientRandom: random, suite: suite)
        }
        for row in try Tshark.fields(capture, filter: "tls.app_data", ["frame.number", "tcp.stream", "tcp.srcport", "tls.record.length", "tls.app_data"]) {
            guard connections[row[1]] != nil else { continue }
            let lengths = row[3].split(separator: ","), bodies = row[4].split(separator: ",")
            for (length, body) in zip(lengths.suffix(bodies.count), bodies) {
                let bytes = try Tshark.bytes(body)
                #expect(bytes.count == Int(length), "frame \(row[0]): tshark's app_data is the whole record")
                connections[row[1]]!.records.append(EncryptedRecord(frame: Int(row[0])!, fromClient: row[2] == clientPorts[row[1]], body: bytes))
            }
        }
        return connections.values.sorted { Int($0.stream)! < Int($1.stream)! }
    }

    static let tls13Captures = ["tls13-http1", "tls13-h2", "latency"]

    /// One direction of a connection opened: its plaintexts in order, the first `handshakeRecords`
    /// under the handshake keys, the rest under the application keys.
    struct OpenedDirection {
        var plaintexts: [TLSRecordCipher.TLS13Plaintext] = []
        var handshakeRecords = 0
        var handshakeTypes: [UInt8] { plaintexts.prefix(handshakeRecords).flatMap { TLSRecordCipherTests.handshakeTypes($0.content) } }
    }

    /// Opens one direction's records, first with the handshake keys then with the application keys,
    /// each from sequence number 0; a record that opens under neither is an issue.
    static func open(_ connection: Connection, fromClient: Bool, _ secrets: TLSKeyLog.Secrets, _ what: String) throws -> OpenedDirection {
        let handshakeSecret = try #require(fromClient ? secrets.clientHandshakeTraffic : secrets.serverHandshakeTraffic, "\(what)")
        let applicationSecret = try #require(fromClient ? secrets.clientApplicationTraffic : secrets.serverApplicationTraffic, "\(what)")
        let handshake = try #require(TLSRecordCipher(tls13: connection.suite, trafficSecret: handshakeSecret), "\(what): suite")
        let application = try #require(TLSRecordCipher(tls13: connection.suite, trafficSecret: applicationSecret), "\(what): suite")
        var opened = OpenedDirection(), applicationRecords: UInt64 = 0
        for record in connection.records where record.fromClient == fromClient {
            if applicationRecords == 0,
               let plaintext = handshake.openTLS13(header: record.header, body: record.body, sequence: UInt64(opened.handshakeRecords)) {
                opened.plaintexts.append(plaintext)
                opened.handshakeRecords += 1
            } else if let plaintext = application.openTLS13(header: record.header, body: record.body, sequence: applicationRecords) {
                opened.plaintexts.append(plaintext)
                applicationRecords += 1
            } else {
                Issue.record("\(what) frame \(record.frame): the record does not authenticate")
            }
        }
        // the server's flight: full (EncryptedExtensions, Certificate, CertificateVerify, Finished) or
        // resumed with a PSK (no certificate: EncryptedExtensions, Finished); the client's: Finished
        let flights: [[UInt8]] = fromClient ? [[20]] : [[8, 11, 15, 20], [8, 20]]
        #expect(flights.contains(opened.handshakeTypes), "\(what): handshake flight \(opened.handshakeTypes)")
        for alert in opened.plaintexts where alert.contentType == 21 {
            #expect(alert.content == [1, 0], "\(what): a close_notify warning alert")
        }
        return opened
    }

    /// Every encrypted record of every TLS 1.3 connection of the recorded captures opens with the
    /// secrets of curl's key log; the first application data is the request (`GET ` or the HTTP/2
    /// preface) and the server's answer (`HTTP/1.1 ` or an HTTP/2 SETTINGS frame), and the server's
    /// post-handshake messages are NewSessionTickets.
    @Test(.requires(.tshark), arguments: tls13Captures)
    func everyRecordOpensWithTheKeyLogsSecrets(_ name: String) throws {
        let log = TLSKeyLog(try Data(contentsOf: URL(fileURLWithPath: TestPaths.capture(name + ".keys"))))
        let connections = try Self.tls13Connections(TestPaths.capture(name + ".pcap"))
        #expect(!connections.isEmpty, "\(name): TLS 1.3 connections")
        var opened = 0
        for connection in connections {
            let secrets = try #require(log.secrets(clientRandom: connection.clientRandom), "\(name) stream \(connection.stream)")
            for fromClient in [true, false] {
                let what = "\(name) stream \(connection.stream) \(fromClient ? "client" : "server")"
                let direction = try Self.open(connection, fromClient: fromClient, secrets, what)
                opened += direction.plaintexts.count
                let firstData = try #require(direction.plaintexts.first { $0.contentType == 23 }, "\(what): no application data").content
                let http2 = String(decoding: firstData.prefix(24), as: UTF8.self) == "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
                    || (!fromClient && firstData.count >= 9 && firstData[3] == 4)  // a SETTINGS frame
                let http1 = String(decoding: firstData.prefix(9), as: UTF8.self).hasPrefix(fromClient ? "GET " : "HTTP/1.1 ")
                #expect(http1 || (name != "tls13-http1" && http2), "\(what): first application data")
                if !fromClient {
                    let postHandshake = direction.plaintexts.dropFirst(direction.handshakeRecords).filter { $0.contentType == 22 }
                    #expect(postHandshake.allSatisfy { Self.handshakeTypes($0.content).allSatisfy { $0 == 4 } }, "\(what): tickets")
                }
            }
        }
        #expect(opened == connections.reduce(0) { $0 + $1.records.count }, "\(name): every record opened")
    }

    /// The other TLS 1.3 suites, on public captures with their key logs: AES-128-GCM (SHA-256),
    /// ChaCha20-Poly1305 and AES-128-CCM (the recorded captures all negotiate AES-256-GCM).
    @Test(.requires(.tshark, .publicTLSCaptures), arguments: [
        ("hotplace__tls-tls13__tls13_TLS_AES_128_GCM_SHA256.pcapng", TLSRecordCipher.Algorithm.aes128GCM),
        ("hotplace__tls-tls13__tls13_TLS_CHACHA20_POLY1305_SHA256.pcapng", .chaCha20Poly1305),
        ("hotplace__tls-tls13__tls13_TLS_AES_128_CCM_SHA256_X25519MLKEM768.pcapng", .aes128CCM),
    ])
    func otherSuitesOpenOnPublicCaptures(_ file: String, _ algorithm: TLSRecordCipher.Algorithm) throws {
        let log = TLSKeyLog(try Data(contentsOf: URL(fileURLWithPath: try Requirement.publicTLSCapture(file + ".keylog.txt"))))
        #expect(log.problems.isEmpty)
        let connections = try Self.tls13Connections(try Requirement.publicTLSCapture(file))
        #expect(!connections.isEmpty && connections.allSatisfy { $0.suite.aeadAlgorithm == algorithm }, "\(file): suite")
        var opened = 0
        for connection in connections {
            let secrets = try #require(log.secrets(clientRandom: connection.clientRandom), "\(file) stream \(connection.stream)")
            for fromClient in [true, false] {
                opened += try Self.open(connection, fromClient: fromClient, secrets, "\(file) stream \(connection.stream)").plaintexts.count
            }
        }
        #expect(opened == connections.reduce(0) { $0 + $1.records.count } && opened > 0, "\(file): every record opened")
    }

    /// TLS 1.2 AEAD: every application-data record opens with the master secret of the key log and the
    /// key block derived from it (the recorded tls12-http1: AES-256-GCM with the SHA-384 PRF, resumed
    /// session included; a public capture: AES-128-GCM with SHA-256). Each direction's encrypted
    /// Finished is its record 0, so application data starts at record 1; in the recorded capture the
    /// first plaintexts are curl's `GET ` and nginx's `HTTP/1.1 `.
    @Test(.requires(.tshark, .publicTLSCaptures), arguments: [
        ("tls12-http1.pcap", "tls12-http1.keys", true),
        ("hotplace__tls-tls12__tls12_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256.pcapng", "", false),
    ])
    func tls12ApplicationDataOpensWithTheMasterSecret(_ file: String, _ keys: String, _ recorded: Bool) throws {
        let capture = recorded ? TestPaths.capture(file) : try Requirement.publicTLSCapture(file)
        let keyLog = recorded ? TestPaths.capture(keys) : try Requirement.publicTLSCapture(file + ".keylog.txt")
        let log = TLSKeyLog(try Data(contentsOf: URL(fileURLWithPath: keyLog)))
        let hellos = try Tshark.fields(capture, filter: "tls.handshake.type == 1", ["tcp.stream", "tls.handshake.random", "tcp.srcport"])
        let servers = try Tshark.fields(capture, filter: "tls.handshake.type == 2", ["tcp.stream", "tls.handshake.random", "tls.handshake.ciphersuite"])
        let rows = try Tshark.fields(capture, filter: "tls.app_data", ["tcp.stream", "tcp.srcport", "tls.record.content_type", "tls.app_data"])
        var opened = 0, firstPlaintexts: [String] = []
        for server in servers {
            let hello = try #require(hellos.first { $0[0] == server[0] })
            let secrets = try #require(log.secrets(clientRandom: try Tshark.bytes(hello[1])), "\(file) stream \(server[0])")
            let master = try #require(secrets.masterSecret)
            let suite = TLSCipherSuite(code: try #require(UInt16(server[2].dropFirst(2), radix: 16)))
            for client in [true, false] {
                let cipher = try #require(TLSRecordCipher(tls12: suite, masterSecret: master, clientRandom: try Tshark.bytes(hello[1]),
                                                          serverRandom: try Tshark.bytes(server[1]), client: client))
                var sequence: UInt64 = 1
                for row in rows where row[0] == server[0] && (row[1] == hello[2]) == client {
                    // the frame's application-data records pair with its app_data values in order
                    for body in row[3].split(separator: ",") {
                        let bytes = try Tshark.bytes(body)
                        let header: [UInt8] = [23, 3, 3, UInt8(bytes.count >> 8), UInt8(bytes.count & 0xff)]
                        let plaintext = try #require(cipher.openTLS12(header: header, body: bytes, sequence: sequence),
                                                     "\(file) stream \(server[0]) \(client ? "client" : "server") record \(sequence)")
                        if sequence == 1 { firstPlaintexts.append(String(decoding: plaintext.prefix(9), as: UTF8.self)) }
                        sequence += 1
                        opened += 1
                    }
                }
            }
        }
        #expect(opened == rows.reduce(0) { $0 + $1[3].split(separator: ",").count } && opened > 0, "\(file): every record opened")
        if recorded {
            #expect(firstPlaintexts.count == 2 * servers.count)
            #expect(firstPlaintexts.allSatisfy { $0.hasPrefix("GET ") || $0 == "HTTP/1.1 " }, "\(firstPlaintexts)")
        }
    }

    /// AES-CCM as composed from swift-crypto's AES primitives, on NIST SP 800-38C's example 3 (the one
    /// with TLS's 12-byte nonce; an 8-byte tag as in the `_CCM_8` suites, 20 bytes of additional data):
    /// the vector opens to its payload, and not with a changed tag or additional data.
    @Test func ccmOpensTheNISTExample() throws {
        let key = try #require(TLSKeyLog.hexBytes(Array("404142434445464748494a4b4c4d4e4f".utf8)))
        let nonce = try #require(TLSKeyLog.hexBytes(Array("101112131415161718191a1b".utf8)))
        let additional = try #require(TLSKeyLog.hexBytes(Array("000102030405060708090a0b0c0d0e0f10111213".utf8)))
        let payload = try #require(TLSKeyLog.hexBytes(Array("202122232425262728292a2b2c2d2e2f3031323334353637".utf8)))
        let sealed = try #require(TLSKeyLog.hexBytes(Array("e3b201a9f5b71a7a9b1ceaeccd97e70b6176aad9a4428aa5484392fbc1b09951".utf8)))
        let open = { (sealed: [UInt8], additional: [UInt8]) in
            AESCCM.open(sealed.dropLast(8), tag: sealed.suffix(8), key: SymmetricKey(data: key), nonce: nonce, additionalData: additional)
        }
        #expect(open(sealed, additional) == payload)
        var damaged = sealed
        damaged[damaged.count - 1] ^= 1
        #expect(open(damaged, additional) == nil)
        #expect(open(sealed, Array(additional.dropLast())) == nil)
    }

    /// The handshake message types in a handshake plaintext (4-byte headers: type, 24-bit length).
    static func handshakeTypes(_ content: [UInt8]) -> [UInt8] {
        var types: [UInt8] = [], index = 0
        while index + 4 <= content.count {
            types.append(content[index])
            index += 4 + (Int(content[index + 1]) << 16 | Int(content[index + 2]) << 8 | Int(content[index + 3]))
        }
        return types
    }

    /// A record whose tag, sequence number or key is wrong does not open.
    @Test(.requires(.tshark))
    func aWrongKeySequenceOrByteDoesNotOpen() throws {
        let name = "tls13-http1"
        let log = TLSKeyLog(try Data(contentsOf: URL(fileURLWithPath: TestPaths.capture(name + ".keys"))))
        let connection = try #require(try Self.tls13Connections(TestPaths.capture(name + ".pcap")).first)
        let secrets = try #require(log.secrets(clientRandom: connection.clientRandom))
        let record = try #require(connection.records.first { !$0.fromClient })
        let serverSecret = try #require(secrets.serverHandshakeTraffic), clientSecret = try #require(secrets.clientHandshakeTraffic)
        let cipher = try #require(TLSRecordCipher(tls13: connection.suite, trafficSecret: serverSecret))
        #expect(cipher.openTLS13(header: record.header, body: record.body, sequence: 0) != nil)
        #expect(cipher.openTLS13(header: record.header, body: record.body, sequence: 1) == nil)
        var damaged = record.body
        damaged[damaged.count / 2] ^= 1
        #expect(cipher.openTLS13(header: record.header, body: damaged, sequence: 0) == nil)
        let other = try #require(TLSRecordCipher(tls13: connection.suite, trafficSecret: clientSecret))
        #expect(other.openTLS13(header: record.header, body: record.body, sequence: 0) == nil)
        #expect(cipher.openTLS13(header: record.header, body: Array(record.body.prefix(16)), sequence: 0) == nil)
    }
}

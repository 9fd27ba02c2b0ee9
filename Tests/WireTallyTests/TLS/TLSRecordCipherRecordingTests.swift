import Crypto
import Foundation
import Testing
import _CryptoExtras
@testable import WireTally

/// Record decryption on the recordings made for it (`scripts/record-captures tls-ciphers` and
/// `tls-lossy`, captures/README.md): every protected record of every connection — TLS 1.2 AES-CBC with
/// HMAC-SHA1/SHA256/SHA384 with and without encrypt-then-MAC, RSA and ECDHE key exchange, ChaCha20 and
/// AES-128/256-GCM, TLS 1.3 with its three suites, resumed sessions, KeyUpdates both ways, records
/// through drops, duplicates and reordering — opens with the secrets of the clients' key log. What it
/// opens to is checked against tshark's own decryption with the same key log: the application data
/// byte for byte (`-z follow,tls`) and the handshake messages type by type (`NAME.tls-decrypted.tsv`).
@Suite struct TLSRecordCipherRecordingTests {
    typealias Connection = RecordedTLSStreams.Connection
    typealias Record = RecordedTLSStreams.Record

    static let recordings = ["tls-ciphers", "tls-lossy"]

    /// Connections per negotiated suite (and, for CBC, encrypt-then-MAC or MAC-then-encrypt) as
    /// `scripts/record-captures` makes them (nginx ports 4431-4440, captures/README.md).
    static let expectedSuites: [String: [String: Int]] = [
        "tls-ciphers": [
            "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA etm": 2,  // 4431 curl: full handshake, resumed by session id
            "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA mte": 1,  // 4436 curl
            "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384 etm": 1,  // 4432 curl
            "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384 mte": 3,  // 4436 python; 4432 s_client -no_etm, resumed by ticket
            "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256 etm": 1,  // 4433 curl
            "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256 mte": 1,  // 4436 curl
            "TLS_RSA_WITH_AES_256_CBC_SHA256 etm": 1,  // 4437 curl, RSA key exchange
            "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA etm": 1,  // 4437 curl
            "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256": 1,  // 4434
            "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256": 1,  // 4435
            "TLS_AES_128_GCM_SHA256": 2,  // 4438 curl, s_client with KeyUpdates
            "TLS_CHACHA20_POLY1305_SHA256": 1,  // 4439
            "TLS_AES_256_GCM_SHA384": 2,  // 4440 curl, s_client with KeyUpdates
        ],
        "tls-lossy": [
            "TLS_AES_256_GCM_SHA384": 1, "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384": 1,
            "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA etm": 1,
        ],
    ]

    /// A suite as `expectedSuites` names it.
    static func suiteKey(_ connection: Connection) -> String {
        connection.suite.displayName + (connection.suite.protection == .cbc ? (connection.encryptThenMAC ? " etm" : " mte") : "")
    }

    /// One record opened, with the cipher and sequence number that opened it.
    struct Opened {
        var record: Record
        var contentType: UInt8
        var content: [UInt8]
        var cipher: TLSRecordCipher
        var sequence: UInt64
        /// TLS 1.3: how many KeyUpdates of this direction came before (0: the `_0` traffic secret).
        var generation: Int
    }

    /// One direction of a connection opened.
    struct Direction {
        /// Handshake message types of the cleartext handshake records (hellos, TLS 1.2 Certificate…).
        var cleartextHandshakeTypes: [UInt8] = []
        var opened: [Opened] = []
        /// Protected records met (TLS 1.2: after the direction's ChangeCipherSpec; TLS 1.3: type 23).
        var protectedCount = 0
        /// Protected records that did not open: their sequence numbers.
        var failures: [String] = []

        var handshakeTypes: [UInt8] {
            cleartextHandshakeTypes + opened.filter { $0.contentType == 22 }.flatMap { TLSRecordCipherTests.handshakeTypes($0.content) }
        }
        var applicationData: [UInt8] { opened.filter { $0.contentType == 23 }.flatMap(\.content) }
    }

    /// The TLS 1.2 cipher of one direction.
    static func tls12Cipher(_ connection: Connection, fromClient: Bool, _ secrets: TLSKeyLog.Secrets) throws -> TLSRecordCipher {
        let masterSecret = try #require(secrets.masterSecret, "stream \(connection.stream): master secret")
        return try #require(TLSRecordCipher(tls12: connection.suite, masterSecret: masterSecret,
                                     clientRandom: connection.clientRandom, serverRandom: connection.serverRandom,
                                     client: fromClient, encryptThenMAC: connection.encryptThenMAC),
                     "stream \(connection.stream): \(connection.suite.displayName)")
    }

    /// Opens one direction's records in order. TLS 1.2: every record after the direction's
    /// ChangeCipherSpec, sequence numbers from 0 (the Finished first). TLS 1.3: the handshake traffic
    /// secret up to the Finished, then the application secret, and after each KeyUpdate of this
    /// direction the next secret (`nextTrafficSecret`), each from sequence number 0.
    static func open(_ connection: Connection, fromClient: Bool, _ secrets: TLSKeyLog.Secrets) throws -> Direction {
        var direction = Direction()
        let records = connection.records[fromClient] ?? []
        if !connection.isTLS13 {
            let cipher = try tls12Cipher(connection, fromClient: fromClient, secrets)
            var encrypted = false, sequence: UInt64 = 0
            for record in records {
                guard encrypted else {
                    if record.contentType == 22 { direction.cleartextHandshakeTypes += TLSRecordCipherTests.handshakeTypes(record.body) }
                    encrypted = record.contentType == 20
                    continue
                }
                direction.protectedCount += 1
                if let content = cipher.openTLS12(header: record.header, body: record.body, sequence: sequence) {
                    direction.opened.append(Opened(record: record, contentType: record.contentType, content: content,
                                                   cipher: cipher, sequence: sequence, generation: 0))
                } else {
                    direction.failures.append("record \(sequence)")
                }
                sequence += 1
            }
            return direction
        }
        var secret = try #require(fromClient ? secrets.clientHandshakeTraffic : secrets.serverHandshakeTraffic)
        let application = try #require(fromClient ? secrets.clientApplicationTraffic : secrets.serverApplicationTraffic)
        var cipher = try #require(TLSRecordCipher(tls13: connection.suite, trafficSecret: secret))
        var inHandshake = true, sequence: UInt64 = 0, generation = 0
        for record in records {
            guard record.contentType == 23 else {  // ClientHello, ServerHello, compatibility ChangeCipherSpec
                if record.contentType == 22 { direction.cleartextHandshakeTypes += TLSRecordCipherTests.handshakeTypes(record.body) }
                continue
            }
            direction.protectedCount += 1
            guard let plaintext = cipher.openTLS13(header: record.header, body: record.body, sequence: sequence) else {
                direction.failures.append("record \(sequence) of generation \(generation)")
                sequence += 1
                continue
            }
            direction.opened.append(Opened(record: record, contentType: plaintext.contentType, content: plaintext.content,
                                           cipher: cipher, sequence: sequence, generation: inHandshake ? -1 : generation))
            sequence += 1
            let types = plaintext.contentType == 22 ? TLSRecordCipherTests.handshakeTypes(plaintext.content) : []
            if inHandshake && types.contains(20) {
                (secret, inHandshake, sequence) = (application, false, 0)
                cipher = try #require(TLSRecordCipher(tls13: connection.suite, trafficSecret: secret))
            } else if !inHandshake && types.contains(24) {
                secret = TLSRecordCipher.nextTrafficSecret(secret, sha384: connection.suite.usesSHA384)
                (sequence, generation) = (0, generation + 1)
                cipher = try #require(TLSRecordCipher(tls13: connection.suite, trafficSecret: secret))
            }
        }
        return direction
    }

    /// Opens `body` again with the cipher and version of `opened` (nil when it does not authenticate).
    static func reopen(_ opened: Opened, _ connection: Connection, body: [UInt8], sequence: UInt64) -> [UInt8]? {
        connection.isTLS13
            ? opened.cipher.openTLS13(header: opened.record.header, body: body, sequence: sequence)?.content
            : opened.cipher.openTLS12(header: opened.record.header, body: body, sequence: sequence)
    }

    /// Every protected record of every connection opens, and opens to what tshark decrypted: the
    /// application data of each direction byte for byte, the handshake messages type by type (TLS 1.2
    /// Finished; TLS 1.3 EncryptedExtensions…Finished, NewSessionTickets, KeyUpdates); alerts are
    /// close_notify. The record bytes are tshark's (lengths equal `tls-records.tsv`), and the number of
    /// protected records is counted from that truth file. Each record's content sits where
    /// `protectedLayout` says (CBC: re-sealing the content with the record's IV gives the record's
    /// bytes back), and the first application record of each direction does not open at the next
    /// sequence number or with one byte changed. Connections per suite are the recording's.
    @Test(.requires(.tshark), arguments: recordings)
    func everyProtectedRecordOpensAsTsharkDecryptedIt(_ name: String) throws {
        let streams = try RecordedTLSStreams.load(name)
        let log = TLSKeyLog(try Data(contentsOf: URL(fileURLWithPath: TestPaths.capture(name + ".keys"))))
        let truth = try TLSRecordTruth.load(name)
        let decrypted = try TruthTable.load(name, "tls-decrypted.tsv").rows
        var suites: [String: Int] = [:], protectedRecords = 0, opened = 0, resealed = 0, cbcProtected = 0
        for connection in streams.connections {
            suites[Self.suiteKey(connection), default: 0] += 1
            let secrets = try #require(log.secrets(clientRandom: connection.clientRandom), "\(name) stream \(connection.stream)")
            for fromClient in [true, false] {
                let what = "\(name) stream \(connection.stream) \(Self.suiteKey(connection)) \(fromClient ? "client" : "server")"
                let port = fromClient ? connection.clientPort : connection.serverPort
                let records = connection.records[fromClient] ?? []
                let truthRecords = truth.records(stream: connection.stream, from: port)
                #expect(records.map(\.body.count) == truthRecords.map(\.length), "\(what): records = tls-records.tsv")
                let protectedHere = connection.isTLS13
                    ? truthRecords.count { $0.clearContentType == nil }
                    : truthRecords.drop { $0.clearContentType != 20 }.dropFirst().count
                protectedRecords += protectedHere
                if connection.suite.protection == .cbc { cbcProtected += protectedHere }
                let direction = try Self.open(connection, fromClient: fromClient, secrets)
                #expect(direction.failures.isEmpty, "\(what): records that do not open: \(direction.failures)")
                opened += direction.opened.count
                #expect(!direction.applicationData.isEmpty, "\(what): application data")
                #expect(direction.applicationData == connection.tsharkApplicationData[fromClient] ?? [],
                        "\(what): application data = tshark's decryption (\(direction.applicationData.count) vs \(connection.tsharkApplicationData[fromClient]?.count ?? 0) bytes)")
                let tsharkTypes = decrypted.filter { $0.int("tcp.stream") == connection.stream && $0.int("tcp.srcport") == port }
                    .flatMap { $0.list("tls.handshake.type").compactMap { UInt8($0) } }
                #expect(direction.handshakeTypes == tsharkTypes, "\(what): handshake messages = tshark's decryption")
                for alert in direction.opened where alert.contentType == 21 {
                    #expect(alert.content == [1, 0], "\(what): a close_notify warning alert")
                }
                for record in direction.opened {
                    resealed += try Self.checkLayout(record, connection, what)
                }
                let first = try #require(direction.opened.first { $0.contentType == 23 }, "\(what)")
                #expect(Self.reopen(first, connection, body: first.record.body, sequence: first.sequence + 1) == nil, "\(what): next sequence number")
                var damaged = first.record.body
                damaged[damaged.count / 2] ^= 0x10
                #expect(Self.reopen(first, connection, body: damaged, sequence: first.sequence) == nil, "\(what): a changed byte")
            }
        }
        #expect(suites == Self.expectedSuites[name], "\(name): connections per suite")
        #expect(opened == protectedRecords && opened > 0, "\(name): protected records opened, counted from tls-records.tsv")
        #expect(resealed == cbcProtected && (cbcProtected > 0) == suites.keys.contains { $0.hasSuffix("etm") || $0.hasSuffix("mte") },
                "\(name): every CBC record re-sealed")
    }

    /// Where the content of `opened` sits in its record per `protectedLayout`, checked per protection:
    /// TLS 1.3 0 before, tag + content type after (OpenSSL adds no padding); TLS 1.2 AES-GCM the 8-byte
    /// explicit nonce before, the tag after; ChaCha20-Poly1305 only the tag after; CBC the 16-byte IV
    /// before, then MAC + minimal padding + its length byte (MAC-then-encrypt) or padding + length +
    /// MAC (encrypt-then-MAC) after — and sealing the content again with the record's IV, the MAC and
    /// that padding gives the record's body byte for byte. Returns 1 for a re-sealed CBC record.
    static func checkLayout(_ opened: Opened, _ connection: Connection, _ what: String) throws -> Int {
        let body = opened.record.body, content = opened.content
        let layout = try #require(opened.cipher.protectedLayout(bodyLength: body.count, plaintextLength: content.count), "\(what)")
        #expect(layout.leading + content.count + layout.trailing == body.count, "\(what)")
        switch (connection.isTLS13, opened.cipher.algorithm) {
        case (true, _):
            #expect(layout == (0, 17), "\(what): TLS 1.3 record layout \(layout)")
        case (false, .aes128GCM), (false, .aes256GCM), (false, .aes128CCM), (false, .aes256CCM),
             (false, .aes128CCM8), (false, .aes256CCM8):
            #expect(layout == (8, opened.cipher.algorithm.tagLength), "\(what): AES-GCM/CCM record layout \(layout)")
        case (false, .chaCha20Poly1305):
            #expect(layout == (0, 16), "\(what): ChaCha20-Poly1305 record layout \(layout)")
        case (false, .aes128CBC), (false, .aes256CBC):
            let mac = try #require(opened.cipher.mac)
            let padding = layout.trailing - mac.length - 1
            #expect(layout.leading == 16 && (0 ..< 16).contains(padding), "\(what): CBC record layout \(layout)")
            let sealed = try CBCSealer(opened.cipher).seal(type: opened.contentType, content: content, sequence: opened.sequence,
                                                           iv: Array(body.prefix(16)), trailer: CBCSealer.padding(padding))
            #expect(sealed == body, "\(what): record \(opened.sequence) re-sealed with its IV is the record")
            return 1
        }
        return 0
    }

    /// TLS 1.3 KeyUpdate (tls-ciphers: openssl s_client's `K` and `k` on a SHA-256 and a SHA-384 suite):
    /// every KeyUpdate tshark decrypted is one of ours, the records after each open only under the next
    /// traffic secret from sequence number 0 (not under the previous one, continuing), and the next
    /// secrets are those OpenSSL itself logged after each update (`CLIENT_TRAFFIC_SECRET_N`,
    /// `SERVER_TRAFFIC_SECRET_N`, in order — not read by `TLSKeyLog`).
    @Test(.requires(.tshark))
    func keyUpdatesOpenUnderTheNextTrafficSecret() throws {
        let name = "tls-ciphers"
        let streams = try RecordedTLSStreams.load(name)
        let keys = try String(contentsOfFile: TestPaths.capture(name + ".keys"), encoding: .utf8)
        let log = TLSKeyLog(Data(keys.utf8))
        var updatedSecrets: [String: [[UInt8]]] = [:]  // "LABEL random" → secrets in order
        for line in keys.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 3, fields[0].hasSuffix("_TRAFFIC_SECRET_N") else { continue }
            updatedSecrets["\(fields[0]) \(fields[1].lowercased())", default: []].append(try Tshark.bytes(fields[2]))
        }
        let tsharkKeyUpdates = try TruthTable.load(name, "tls-decrypted.tsv").rows.reduce(0) { $0 + $1.list("tls.handshake.type").count { $0 == "24" } }
        var keyUpdates = 0, afterUpdates = 0, suitesUpdated: Set<UInt16> = [], loggedCompared = 0
        for connection in streams.connections where connection.isTLS13 {
            let secrets = try #require(log.secrets(clientRandom: connection.clientRandom))
            let random = connection.clientRandom.map { String(format: "%02x", $0) }.joined()
            for fromClient in [true, false] {
                let what = "\(name) stream \(connection.stream) \(fromClient ? "client" : "server")"
                let direction = try Self.open(connection, fromClient: fromClient, secrets)
                #expect(direction.failures.isEmpty, "\(what): \(direction.failures)")
                let updates = direction.opened.filter { $0.generation >= 0 && $0.contentType == 22 }
                    .flatMap { TLSRecordCipherTests.handshakeTypes($0.content) }.count { $0 == 24 }
                keyUpdates += updates
                guard updates > 0 else { continue }
                suitesUpdated.insert(connection.suite.code)
                // the chain of secrets against OpenSSL's own log of them
                var secret = try #require(fromClient ? secrets.clientApplicationTraffic : secrets.serverApplicationTraffic)
                var chain: [[UInt8]] = []
                for _ in 0 ..< updates {
                    secret = TLSRecordCipher.nextTrafficSecret(secret, sha384: connection.suite.usesSHA384)
                    chain.append(secret)
                }
                let label = (fromClient ? "CLIENT" : "SERVER") + "_TRAFFIC_SECRET_N " + random
                #expect(updatedSecrets[label] == chain, "\(what): OpenSSL's updated secrets")
                loggedCompared += updatedSecrets[label]?.count ?? 0
                // each generation's first record opens only under its own secret
                for generation in 1 ... updates {
                    let records = direction.opened.filter { $0.generation == generation }
                    let first = try #require(records.first, "\(what): records after KeyUpdate \(generation)")
                    afterUpdates += records.count
                    #expect(first.sequence == 0)
                    let previous = try #require(direction.opened.last { $0.generation == generation - 1 })
                    #expect(previous.cipher.openTLS13(header: first.record.header, body: first.record.body, sequence: previous.sequence + 1) == nil,
                            "\(what): the record after KeyUpdate \(generation) does not open under the previous secret")
                }
            }
        }
        #expect(keyUpdates == tsharkKeyUpdates && keyUpdates == 8, "\(name): KeyUpdates opened = tshark's (5 on 4438, 3 on 4440)")
        #expect(loggedCompared == updatedSecrets.values.reduce(0) { $0 + $1.count } && loggedCompared == keyUpdates, "\(name): every logged updated secret compared")
        #expect(afterUpdates > 0)
        #expect(suitesUpdated == [0x1301, 0x1302], "SHA-256 and SHA-384 suites updated")
    }

    /// CBC records that must not open, made from real records of every CBC connection of tls-ciphers
    /// (SHA-1/256/384, with and without encrypt-then-MAC): a changed IV byte, last-block byte or MAC
    /// byte, a wrong sequence number, the other direction's keys, a length that is not whole blocks or
    /// one block short; and records sealed again with the connection's keys whose padding is wrong
    /// (one padding byte differs, or the padding length reaches past the content) while the MAC is
    /// right — next to the same records with correct long padding (16 bytes more than needed), which
    /// open to the content, and with a wrong MAC and correct padding, which do not.
    @Test(.requires(.tshark))
    func cbcPaddingAndMACFailuresAreDetected() throws {
        let name = "tls-ciphers"
        let streams = try RecordedTLSStreams.load(name)
        let log = TLSKeyLog(try Data(contentsOf: URL(fileURLWithPath: TestPaths.capture(name + ".keys"))))
        var kinds: Set<String> = [], checked = 0
        for connection in streams.connections where connection.suite.protection == .cbc {
            let secrets = try #require(log.secrets(clientRandom: connection.clientRandom))
            kinds.insert(Self.suiteKey(connection))
            for fromClient in [true, false] {
                let what = "\(name) stream \(connection.stream) \(Self.suiteKey(connection)) \(fromClient ? "client" : "server")"
                let direction = try Self.open(connection, fromClient: fromClient, secrets)
                let record = try #require(direction.opened.first { $0.contentType == 23 }, "\(what)")
                let cipher = record.cipher, body = record.record.body, header = record.record.header, sequence = record.sequence
                let mac = try #require(cipher.mac), etm = connection.encryptThenMAC
                #expect(cipher.encryptThenMAC == etm && (cipher.algorithm == .aes128CBC || cipher.algorithm == .aes256CBC))
                let open = { (body: [UInt8]) in cipher.openTLS12(header: header, body: body, sequence: sequence) }
                #expect(open(body) == record.content, "\(what)")
                #expect(cipher.openTLS12(header: header, body: body, sequence: sequence + 1) == nil, "\(what): sequence number")
                let other = try Self.tls12Cipher(connection, fromClient: !fromClient, secrets)
                #expect(other.openTLS12(header: header, body: body, sequence: sequence) == nil, "\(what): the other direction's keys")
                let ciphertextEnd = etm ? body.count - mac.length : body.count
                for (index, part) in [(0, "IV"), (ciphertextEnd - 1, "last block"), (body.count - 1, "last byte")] {
                    var damaged = body
                    damaged[index] ^= 0x01
                    #expect(open(damaged) == nil, "\(what): a changed \(part) byte")
                }
                #expect(open(Array(body.dropLast())) == nil, "\(what): not whole blocks")
                #expect(open(etm ? Array(body[..<(ciphertextEnd - 16)]) + body[ciphertextEnd...] : Array(body.dropLast(16))) == nil,
                        "\(what): one block short")
                // sealed again with the keys: padding right or wrong, MAC right or wrong
                let sealer = try CBCSealer(cipher)
                let iv = Array(body.prefix(16)), content = record.content, type = record.contentType
                let minimal = (15 - ((etm ? content.count : content.count + mac.length) % 16))
                let long = CBCSealer.padding(minimal + 16)
                var oneByteWrong = long
                oneByteWrong[long.count / 2] ^= 0x01
                #expect(try open(sealer.seal(type: type, content: content, sequence: sequence, iv: iv, trailer: long)) == content,
                        "\(what): valid padding \(minimal + 16) bytes long")
                #expect(try open(sealer.seal(type: type, content: content, sequence: sequence, iv: iv, trailer: oneByteWrong)) == nil,
                        "\(what): a padding byte differs from the padding length")
                #expect(try open(sealer.seal(type: type, content: content, sequence: sequence, iv: iv, trailer: long, damageMAC: true)) == nil,
                        "\(what): a wrong MAC with valid padding")
                // a padding length byte of 255 with only a few bytes before it
                let short = Array(content.prefix(5)), shortLength = (etm ? 5 : 5 + mac.length) % 16
                let pastTheStart = [UInt8](repeating: 255, count: 16 - shortLength)
                #expect(try open(sealer.seal(type: type, content: short, sequence: sequence, iv: iv, trailer: pastTheStart)) == nil,
                        "\(what): a padding length past the start of the record")
                #expect(try open(sealer.seal(type: type, content: short, sequence: sequence, iv: iv,
                                             trailer: CBCSealer.padding(15 - shortLength))) == short, "\(what): the short record sealed right")
                checked += 1
            }
        }
        #expect(kinds == Set(Self.expectedSuites[name]!.keys.filter { $0.hasSuffix("etm") || $0.hasSuffix("mte") }), "\(name): CBC kinds")
        #expect(checked == 2 * Self.expectedSuites[name]!.filter { $0.key.hasSuffix("etm") || $0.key.hasSuffix("mte") }.values.reduce(0, +))
    }
}

/// Seals TLS 1.2 CBC records with a direction's keys, the way the record layer does it (RFC 5246
/// §6.2.3.2, RFC 7366 §3), with swift-crypto's AES-CBC (no padding of its own) and HMAC — to give the
/// tests records whose padding or MAC is wrong on purpose, and to check that a recorded record is
/// exactly its content sealed with its IV.
struct CBCSealer {
    let cipher: TLSRecordCipher
    let mac: TLSRecordCipher.MAC

    init(_ cipher: TLSRecordCipher) throws {
        self.cipher = cipher
        mac = try #require(cipher.mac)
    }

    /// Padding of `length` bytes and the padding length byte: `length + 1` bytes, all `length`.
    static func padding(_ length: Int) -> [UInt8] { [UInt8](repeating: UInt8(length), count: length + 1) }

    /// The body (IV, ciphertext, and with encrypt-then-MAC the MAC) of record `sequence` of `type`
    /// holding `content`, padded with `trailer` (padding + length byte, taken as given).
    func seal(type: UInt8, content: [UInt8], sequence: UInt64, iv: [UInt8], trailer: [UInt8], damageMAC: Bool = false) throws -> [UInt8] {
        let prefix = TLSRecordCipher.bigEndian(sequence) + [type, 3, 3]
        if cipher.encryptThenMAC {
            let ciphertext = try encrypt(content + trailer, iv: iv)
            let length = iv.count + ciphertext.count
            var code = authenticate(prefix + [UInt8(length >> 8), UInt8(length & 0xff)] + iv + ciphertext)
            if damageMAC { code[0] ^= 0x01 }
            return iv + ciphertext + code
        }
        var code = authenticate(prefix + [UInt8(content.count >> 8), UInt8(content.count & 0xff)] + content)
        if damageMAC { code[0] ^= 0x01 }
        return iv + (try encrypt(content + code + trailer, iv: iv))
    }

    private func encrypt(_ plaintext: [UInt8], iv: [UInt8]) throws -> [UInt8] {
        Array(try AES._CBC.encrypt(plaintext, using: cipher.key, iv: AES._CBC.IV(ivBytes: iv), noPadding: true))
    }

    private func authenticate(_ data: [UInt8]) -> [UInt8] {
        switch mac {
        case .hmacSHA1: return Array(HMAC<Insecure.SHA1>.authenticationCode(for: data, using: cipher.macKey))
        case .hmacSHA256: return Array(HMAC<SHA256>.authenticationCode(for: data, using: cipher.macKey))
        case .hmacSHA384: return Array(HMAC<SHA384>.authenticationCode(for: data, using: cipher.macKey))
        }
    }
}

import FoundationEssentials

/// Opens the protected records of one TLS connection with its secrets from a key log, following the
/// key changes of both directions (all cryptography in `TLSRecordCipher`):
/// - TLS 1.3: the client's early data (0-RTT) under the early traffic secret until EndOfEarlyData, the
///   handshake under each side's handshake traffic secret until its Finished, then the application
///   traffic secrets, each KeyUpdate deriving the next one (RFC 8446 §7.2). A record that does not open
///   under the expected keys is tried under the later ones: 0-RTT data the server rejected is followed
///   by the client's Finished without EndOfEarlyData, and a key log without handshake secrets leaves
///   the handshake records closed (`handshakeWithoutKey`) until one opens under the application secret.
/// - TLS 1.2: one key per direction, from the master secret and both randoms, for the records after
///   the direction's ChangeCipherSpec.
///
/// Every record consumes a sequence number. After records were lost in a gap, the next record's number
/// is searched near the estimate from the lost bytes and the direction's average record size (first
/// the explicit nonce of a TLS 1.2 AES-GCM record, which senders set to the sequence number).
final class TLSDecryptor {
    /// What opening a record gave.
    struct Opened {
        /// The record's real content type (TLS 1.3: the inner type).
        var contentType: UInt8
        /// AEAD suites: as swift-crypto returned it (TLS 1.3: a slice of it, without the inner type and
        /// padding); CBC suites: the content after the MAC and padding checks.
        var plaintext: Data
        /// Body bytes before the ciphertext (TLS 1.2 explicit nonce or CBC IV): plaintext byte i was
        /// carried by body byte `leading + i`.
        var leading: Int
        /// Records that went missing before this one (its sequence number minus the one expected):
        /// after a gap, how many records the lost bytes held.
        var skippedRecords: Int = 0
    }

    enum Outcome {
        case opened(Opened)
        /// A TLS 1.3 handshake record while the key log has no handshake secret for its direction.
        case handshakeWithoutKey
        /// The record did not open under any key the log gives.
        case failed
    }

    /// The key generations of a TLS 1.3 direction, in order.
    private enum Stage: Int, Comparable {
        case early, handshake, application
        static func < (a: Stage, b: Stage) -> Bool { a.rawValue < b.rawValue }
    }

    private struct Direction {
        var stage: Stage
        var cipher: TLSRecordCipher?
        /// TLS 1.3: the current traffic secret (KeyUpdate derives the next from it).
        var secret: [UInt8]?
        var sequence: UInt64 = 0
        /// A record has opened under the current stage (before that, failures may be records of an
        /// earlier stage the log has no key for).
        var openedInStage = false
        var handshake = TLSHandshakeScanner()
        /// Stream bytes lost since the last record: the next sequence number must be searched.
        var lostBytes: Int64 = 0
        var openedRecords: Int64 = 0
        var openedRecordBytes: Int64 = 0
        /// TLS 1.0 CBC: the IV of the next record (the last ciphertext block of the one before).
        var chainIV: [UInt8] = []
    }

    let secrets: TLSKeyLog.Secrets
    let suite: TLSCipherSuite
    let isTLS13: Bool
    private let encryptThenMAC: Bool
    /// TLS 1.2: the key block of both directions, derived once.
    private let keyBlock: [UInt8]?
    /// The negotiated version's wire code.
    let version: UInt16
    private var directions: DirectionPair<Direction>
    /// TLS 1.3: the application protocol from the server's EncryptedExtensions, once decrypted.
    private(set) var encryptedExtensionsALPN: String?
    /// The server's EncryptedExtensions was decrypted (`encryptedExtensionsALPN` is then the choice).
    private(set) var sawEncryptedExtensions = false

    /// Most records a search for the sequence number after a gap tries.
    static let maxSequenceSearch = 2048

    /// The decryptor of a connection with `suite` at `version` (wire code) and the given randoms;
    /// nil when the log has no secret it can use or the suite's records are not ones wiretally opens.
    init?(secrets: TLSKeyLog.Secrets, suite: TLSCipherSuite, version: UInt16, clientRandom: [UInt8],
          serverRandom: [UInt8], encryptThenMAC: Bool) {
        self.secrets = secrets
        self.suite = suite
        self.encryptThenMAC = encryptThenMAC
        self.version = version
        isTLS13 = version == 0x0304
        if isTLS13 {
            guard suite.protection == .tls13AEAD, suite.aeadAlgorithm != nil,
                  secrets.clientApplicationTraffic != nil || secrets.serverApplicationTraffic != nil
                    || secrets.clientHandshakeTraffic != nil || secrets.serverHandshakeTraffic != nil
            else { return nil }
            directions = DirectionPair(
                Direction(stage: secrets.clientEarlyTraffic != nil ? .early : .handshake),
                Direction(stage: .handshake))
            keyBlock = nil
        } else {
            guard let masterSecret = secrets.masterSecret, clientRandom.count == 32, serverRandom.count == 32 else { return nil }
            keyBlock = TLSRecordCipher.keyBlock(tls12: suite, masterSecret: masterSecret, clientRandom: clientRandom,
                                                serverRandom: serverRandom, version: version)
            directions = DirectionPair(Direction(stage: .application), Direction(stage: .application))
        }
        for direction in FlowDirection.allCases { enter(directions[direction.rawValue].stage, direction) }
        if !isTLS13 && (directions.up.cipher == nil || directions.down.cipher == nil) { return nil }
    }

    /// Stream bytes of `direction` were lost (a gap): records may have gone with them.
    func lost(_ bytes: Int64, _ direction: FlowDirection) {
        directions.update(direction.rawValue) { $0.lostBytes += max(1, bytes) }
    }

    /// Opens the next protected record of `direction`. The direction's state is read in place
    /// (`DirectionPair.readInPlace`; only the scalars compared afterwards are copied): copying the
    /// pair of `Direction`s would retain their ciphers, secrets and buffers for every record.
    func open(_ record: TLSProtectedRecord, _ direction: FlowDirection) -> Outcome {
        let d = direction.rawValue
        let (stage, sequence, openedInStage) = directions.readInPlace(d) { ($0.stage, $0.sequence, $0.openedInStage) }
        var opened = directions.readInPlace(d) { firstOpening(of: record, under: $0) }
        if opened == nil, isTLS13 {
            // Later key generations: 0-RTT rejected, handshake records without a logged secret.
            let expected = directions[d]  // the expected keys, kept for the next record
            var later = stage
            while opened == nil, let next = Stage(rawValue: later.rawValue + 1) {
                later = next
                enter(later, direction)
                opened = directions.readInPlace(d) { firstOpening(of: record, under: $0) }
                if opened == nil { directions[d] = expected }
            }
        }
        // TLS 1.0 CBC: the next record's IV is this one's last ciphertext block (before an
        // encrypt-then-MAC MAC), whatever became of the record.
        if directions.readInPlace(d, { $0.cipher?.chainedIV == true }), let cipher = directions.readInPlace(d, { $0.cipher }) {
            let end = record.body.count - (cipher.encryptThenMAC ? cipher.mac?.length ?? 0 : 0)
            if end >= 16 { directions.update(d) { $0.chainIV = Array(record.body[(end - 16) ..< end]) } }
        }
        if let (opened, openedSequence) = opened {
            var result = opened
            if directions.readInPlace(d, { $0.stage }) == stage { result.skippedRecords = Int(openedSequence - sequence) }
            directions.update(d) {
                $0.sequence = openedSequence + 1
                $0.openedInStage = true
                $0.lostBytes = 0
                $0.openedRecords += 1
                $0.openedRecordBytes += Int64(5 + record.body.count)
            }
            if result.contentType == TLSContentType.handshake.rawValue {
                result.plaintext.withUnsafeBytes { handshake($0, direction) }
            }
            return .opened(result)
        }
        directions.update(d) { $0.sequence += 1 }
        let keyMissing = isTLS13 && !openedInStage && stage < .application && trafficSecret(stage, direction) == nil
        return keyMissing ? .handshakeWithoutKey : .failed
    }

    /// The record opened under `state`'s keys, and the sequence number it had: the expected one, or
    /// after lost bytes the first of `sequenceCandidates` that opens it.
    private func firstOpening(of record: TLSProtectedRecord, under state: Direction) -> (Opened, UInt64)? {
        guard state.lostBytes > 0 else {
            return attempt(state.cipher, record, state.sequence, iv: state.chainIV).map { ($0, state.sequence) }
        }
        for sequence in sequenceCandidates(state, record) {
            if let result = attempt(state.cipher, record, sequence, iv: state.chainIV) { return (result, sequence) }
        }
        return nil
    }

    // MARK: Keys

    private func trafficSecret(_ stage: Stage, _ direction: FlowDirection) -> [UInt8]? {
        switch (stage, direction) {
        case (.early, .up): secrets.clientEarlyTraffic
        case (.early, .down): nil
        case (.handshake, .up): secrets.clientHandshakeTraffic
        case (.handshake, .down): secrets.serverHandshakeTraffic
        case (.application, .up): secrets.clientApplicationTraffic
        case (.application, .down): secrets.serverApplicationTraffic
        }
    }

    /// Switches `direction` to the keys of `stage`, sequence number 0.
    private func enter(_ stage: Stage, _ direction: FlowDirection) {
        let cipher: TLSRecordCipher?
        var secret: [UInt8]?
        if isTLS13 {
            secret = trafficSecret(stage, direction)
            cipher = secret.flatMap { TLSRecordCipher(tls13: suite, trafficSecret: $0) }
        } else {
            cipher = keyBlock.flatMap {
                TLSRecordCipher(tls12: suite, keyBlock: $0, client: direction == .up, encryptThenMAC: encryptThenMAC, version: version)
            }
        }
        directions.update(direction.rawValue) {
            $0.stage = stage
            $0.cipher = cipher
            $0.secret = secret
            $0.sequence = 0
            $0.openedInStage = false
            $0.chainIV = cipher?.initialIV ?? []
        }
    }

    /// TLS 1.3 handshake messages change keys: Finished ends a side's handshake keys, EndOfEarlyData
    /// the client's early keys, KeyUpdate replaces the sender's application keys; EncryptedExtensions
    /// names the application protocol.
    private func handshake(_ content: UnsafeRawBufferPointer, _ direction: FlowDirection) {
        guard isTLS13 else { return }
        var messages: [(type: UInt8, body: [UInt8]?)] = []
        directions.update(direction.rawValue) { $0.handshake.scan(content) { messages.append(($0, $1)) } }
        for (type, body) in messages {
            let stage = directions.readInPlace(direction.rawValue) { $0.stage }
            switch type {
            case 8 where direction == .down:  // EncryptedExtensions
                sawEncryptedExtensions = true
                if let body { encryptedExtensionsALPN = TLSHelloParser.encryptedExtensionsALPN(body) }
            case 5 where stage == .early:  // EndOfEarlyData
                enter(.handshake, direction)
            case 20 where stage == .handshake:  // Finished
                enter(.application, direction)
            case 24 where stage == .application:  // KeyUpdate
                guard let secret = directions.readInPlace(direction.rawValue, { $0.secret }) else { break }
                let next = TLSRecordCipher.nextTrafficSecret(secret, sha384: suite.usesSHA384)
                directions.update(direction.rawValue) {
                    $0.secret = next
                    $0.cipher = TLSRecordCipher(tls13: suite, trafficSecret: next)
                    $0.sequence = 0
                }
            default:
                break
            }
        }
    }

    // MARK: Records

    private func attempt(_ cipher: TLSRecordCipher?, _ record: TLSProtectedRecord, _ sequence: UInt64, iv: [UInt8]) -> Opened? {
        guard let cipher else { return nil }
        if isTLS13 {
            guard let (contentType, content) = record.withHeader({ header in
                cipher.openTLS13(header: header, sealed: record.sealed, sequence: sequence)
            }) else { return nil }
            return Opened(contentType: contentType, plaintext: content, leading: 0)
        }
        if cipher.algorithm.isAEAD {
            guard let plaintext = record.withHeader({ header in
                cipher.openAEAD12(header: header, sealed: record.sealed, sequence: sequence)
            }) else { return nil }
            return Opened(contentType: record.type.rawValue, plaintext: plaintext, leading: cipher.explicitIVLength)
        }
        let opened = cipher.chainedIV
            ? cipher.openChainedCBC(header: record.header, body: Array(record.body), sequence: sequence, iv: iv)
            : cipher.openTLS12(header: record.header, body: record.body, sequence: sequence)
        guard let opened else { return nil }
        return Opened(contentType: record.type.rawValue, plaintext: Data(opened), leading: cipher.explicitIVLength)
    }

    /// The stream bytes a record adds to its plaintext when that is fixed (header, explicit nonce, tag,
    /// TLS 1.3 inner content type without padding); nil for CBC, whose padding varies.
    var recordOverhead: Int? {
        if isTLS13 { return 5 + suite.tagLength + 1 }
        switch suite.protection {
        case .aeadExplicitNonce: return 5 + 8 + suite.tagLength
        case .chacha20Poly1305: return 5 + suite.tagLength
        default: return nil
        }
    }

    /// The sequence numbers to try for a record after lost bytes: the estimate and its neighbours (the
    /// explicit nonce of an AES-GCM record first).
    private func sequenceCandidates(_ state: Direction, _ record: TLSProtectedRecord) -> [UInt64] {
        let next = state.sequence
        let average = state.openedRecords > 0 ? max(22, state.openedRecordBytes / state.openedRecords) : 1024
        let most = min(UInt64(Self.maxSequenceSearch), UInt64(state.lostBytes / 22 + 1))
        let estimate = next + min(most, UInt64((state.lostBytes + average / 2) / average))
        var candidates: [UInt64] = []
        if !isTLS13, suite.protection == .aeadExplicitNonce, record.body.count >= 8 {
            let nonce = record.body.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            if nonce >= next && nonce <= next + most { candidates.append(nonce) }
        }
        candidates.append(estimate)
        var step: UInt64 = 1
        while candidates.count < Self.maxSequenceSearch && (estimate >= next + step || estimate + step <= next + most) {
            if estimate + step <= next + most { candidates.append(estimate + step) }
            if estimate >= next + step { candidates.append(estimate - step) }
            step += 1
        }
        return candidates
    }
}

/// Splits decrypted handshake content (which may cut messages across records) into messages: each
/// message's type, and its body when it is small (at most `maxKeptBody` bytes; larger ones, such as
/// certificates, are skipped).
struct TLSHandshakeScanner {
    private var header: [UInt8] = []
    private var body: [UInt8] = []
    private var remaining = 0
    private var keeps = false
    static let maxKeptBody = 16 << 10

    mutating func scan(_ bytes: UnsafeRawBufferPointer, _ found: (UInt8, [UInt8]?) -> Void) {
        var index = 0
        while index < bytes.count {
            if header.count < 4 {
                header.append(bytes[index])
                index += 1
                guard header.count == 4 else { continue }
                remaining = Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
                keeps = remaining <= Self.maxKeptBody
                body.removeAll(keepingCapacity: true)
            } else {
                let n = min(remaining, bytes.count - index)
                if keeps { body.append(contentsOf: bytes[index ..< index + n]) }
                index += n
                remaining -= n
            }
            if header.count == 4 && remaining == 0 {
                found(header[0], keeps ? body : nil)
                header.removeAll(keepingCapacity: true)
            }
        }
    }
}

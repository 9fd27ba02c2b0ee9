/// Session secrets from an NSS key log (the `SSLKEYLOGFILE` format written by curl, browsers, Python,
/// OpenSSL, BoringSSL, NSS, Conscrypt, and read by Wireshark): one `LABEL <client random> <secret>` line
/// per secret, both values in hex, the client random being the 32 bytes of the connection's
/// ClientHello.
///
/// - TLS 1.2 and earlier: `CLIENT_RANDOM` gives the 48-byte master secret.
/// - TLS 1.3: `CLIENT_EARLY_TRAFFIC_SECRET`, `CLIENT_HANDSHAKE_TRAFFIC_SECRET`,
///   `SERVER_HANDSHAKE_TRAFFIC_SECRET`, `CLIENT_TRAFFIC_SECRET_0`, `SERVER_TRAFFIC_SECRET_0` (32 or 48
///   bytes: the suite's hash length).
/// - Exporter secrets (`EXPORTER_SECRET`, `EARLY_EXPORTER_SECRET`) and RSA pre-master lines (`RSA`)
///   decrypt no record and are skipped; `#` comments and blank lines are skipped.
/// - OpenSSL 3 also logs the traffic secret after each TLS 1.3 KeyUpdate, in order, as
///   `CLIENT_TRAFFIC_SECRET_N` / `SERVER_TRAFFIC_SECRET_N` (not NSS labels): skipped, since each
///   follows from the previous one (`TLSRecordCipher.nextTrafficSecret`, RFC 8446 §7.2).
///
/// Input may arrive in pieces (a log that grows while capturing): `read` takes any chunk, a line is
/// taken once its newline arrives, and `finish` takes a last line without one. A malformed line is
/// recorded as a `Problem` with its line number and skipped; problems never contain a secret.
package struct TLSKeyLog: Sendable {
    /// What the log knows of one connection.
    package struct Secrets: Sendable, Equatable {
        /// TLS ≤ 1.2: the master secret (`CLIENT_RANDOM`).
        package var masterSecret: [UInt8]?
        /// TLS 1.3 traffic secrets.
        package var clientEarlyTraffic: [UInt8]?
        package var clientHandshakeTraffic: [UInt8]?
        package var serverHandshakeTraffic: [UInt8]?
        package var clientApplicationTraffic: [UInt8]?
        package var serverApplicationTraffic: [UInt8]?

        package init() {}

        /// Whether these are all the secrets a connection of protocol `version` needs to be read in full:
        /// TLS 1.3 its handshake and application traffic secrets both ways (0-RTT's is optional), earlier
        /// versions the master secret.
        package func areComplete(forVersion version: UInt16) -> Bool {
            guard version == 0x0304 else { return masterSecret != nil }
            return clientHandshakeTraffic != nil && serverHandshakeTraffic != nil
                && clientApplicationTraffic != nil && serverApplicationTraffic != nil
        }

        /// Which secret a label gives.
        enum Field: Sendable {
            case master, clientEarly, clientHandshake, serverHandshake, clientApplication, serverApplication
        }

        mutating func set(_ field: Field, _ secret: [UInt8]) {
            switch field {
            case .master: masterSecret = secret
            case .clientEarly: clientEarlyTraffic = secret
            case .clientHandshake: clientHandshakeTraffic = secret
            case .serverHandshake: serverHandshakeTraffic = secret
            case .clientApplication: clientApplicationTraffic = secret
            case .serverApplication: serverApplicationTraffic = secret
            }
        }
    }

    /// A line that could not be used, by number (1-based) and why. Holds no secret.
    package struct Problem: Sendable, Equatable, CustomStringConvertible {
        package var line: Int
        package var reason: String
        package var description: String { "line \(line): \(reason)" }
    }

    /// The lines that could not be used, in order.
    package private(set) var problems: [Problem] = []
    /// How many secrets were taken.
    package private(set) var secretCount = 0
    private var byClientRandom: [[UInt8]: Secrets] = [:]
    private var partialLine: [UInt8] = []
    private var lineNumber = 0

    package init() {}

    /// A key log read whole from `bytes`.
    package init(_ bytes: some Sequence<UInt8>) {
        read(bytes)
        finish()
    }

    /// The secrets of the connection whose ClientHello carried `clientRandom`, if the log has any.
    package func secrets(clientRandom: some Collection<UInt8>) -> Secrets? {
        byClientRandom[Array(clientRandom)]
    }

    /// How many connections (client randoms) the log has secrets for.
    package var connectionCount: Int { byClientRandom.count }

    /// Takes the complete lines of `chunk`; an unfinished last line waits for the next chunk.
    package mutating func read(_ chunk: some Sequence<UInt8>) {
        for byte in chunk {
            if byte == UInt8(ascii: "\n") {
                takeLine()
            } else if partialLine.count <= Self.longestLine {
                partialLine.append(byte)
            }
        }
    }

    /// Takes a last line that has no newline (the end of the file).
    package mutating func finish() {
        if !partialLine.isEmpty { takeLine() }
    }

    /// Longer lines cannot be key log lines (the longest is a 31-character label and 64 + 96 hex digits);
    /// only this much of one is kept, so a file without newlines cannot grow memory.
    static let longestLine = 256

    private mutating func takeLine() {
        lineNumber += 1
        defer { partialLine.removeAll(keepingCapacity: true) }
        var line = partialLine[...]
        while let last = line.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { line.removeLast() }
        while let first = line.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { line.removeFirst() }
        guard let first = line.first, first != UInt8(ascii: "#") else { return }
        guard line.count <= Self.longestLine else {
            return problem("longer than any key log line")
        }
        let fields = line.split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") })
        let label = String(decoding: fields[0], as: UTF8.self)
        guard let kind = Self.labels[label] else {
            return problem(Self.ignoredLabels.contains(label) ? nil : "unknown label \(Self.printable(label))")
        }
        guard fields.count == 3 else { return problem("\(label): expected a client random and a secret, found \(fields.count - 1) values") }
        guard let random = Self.hexBytes(fields[1]), random.count == 32 else {
            return problem("\(label): the client random is not 32 bytes of hex")
        }
        guard let secret = Self.hexBytes(fields[2]), kind.secretLengths.contains(secret.count) else {
            return problem("\(label): the secret is not \(kind.secretLengths.map(String.init).joined(separator: " or ")) bytes of hex")
        }
        byClientRandom[random, default: Secrets()].set(kind.field, secret)
        secretCount += 1
    }

    /// Records a problem for the current line; nil: the line is skipped without one.
    private mutating func problem(_ reason: String?) {
        if let reason { problems.append(Problem(line: lineNumber, reason: reason)) }
    }

    private struct Kind: Sendable {
        var field: Secrets.Field
        var secretLengths: [Int]
    }

    private static let tls13SecretLengths = [32, 48]
    private static let labels: [String: Kind] = [
        "CLIENT_RANDOM": Kind(field: .master, secretLengths: [48]),
        "CLIENT_EARLY_TRAFFIC_SECRET": Kind(field: .clientEarly, secretLengths: tls13SecretLengths),
        "CLIENT_HANDSHAKE_TRAFFIC_SECRET": Kind(field: .clientHandshake, secretLengths: tls13SecretLengths),
        "SERVER_HANDSHAKE_TRAFFIC_SECRET": Kind(field: .serverHandshake, secretLengths: tls13SecretLengths),
        "CLIENT_TRAFFIC_SECRET_0": Kind(field: .clientApplication, secretLengths: tls13SecretLengths),
        "SERVER_TRAFFIC_SECRET_0": Kind(field: .serverApplication, secretLengths: tls13SecretLengths),
    ]
    /// Labels that decrypt no record, or none that the `_0` secrets do not already give.
    private static let ignoredLabels: Set = [
        "EXPORTER_SECRET", "EARLY_EXPORTER_SECRET", "RSA", "CLIENT_TRAFFIC_SECRET_N", "SERVER_TRAFFIC_SECRET_N",
    ]

    /// A label as it may be shown: at most 40 characters, and only when it looks like a label (capital
    /// letters, digits, `_`, starting with a letter). Anything else — a line torn in the middle of a
    /// secret, hex, lower case — is not shown: it could be part of a secret.
    private static func printable(_ label: String) -> String {
        let looksLikeLabel = label.unicodeScalars.first.map { ("A" ... "Z").contains($0) } == true
            && label.unicodeScalars.allSatisfy { ("A" ... "Z").contains($0) || ("0" ... "9").contains($0) || $0 == "_" }
            && !label.unicodeScalars.allSatisfy { ("A" ... "F").contains($0) || ("0" ... "9").contains($0) }
        guard looksLikeLabel else { return "(not shown: not a label)" }
        return "'" + String(label.prefix(40)) + (label.count > 40 ? "…'" : "'")
    }

    /// The bytes of an even-length hex string (either case), or nil.
    static func hexBytes(_ text: some Collection<UInt8>) -> [UInt8]? {
        guard text.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count / 2)
        var high: UInt8?
        for character in text {
            guard let nibble = HexDigit.value(character) else { return nil }
            if let pending = high {
                bytes.append(pending << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return bytes
    }
}

extension TLSKeyLog {
    /// Starts on another version of the log, as when a followed file was truncated or replaced
    /// (`KeyLogFollower`): the secrets taken so far stay (the connections they unlock were already
    /// captured), an unfinished line is dropped and line numbers count from 1 again.
    package mutating func restartLines() {
        partialLine.removeAll(keepingCapacity: true)
        lineNumber = 0
    }
}

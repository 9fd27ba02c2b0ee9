/// Guesses a connection's application protocol from the first bytes the client sent.
public enum ApplicationProtocolGuess {
    /// True when `firstBytes` start like a TLS ClientHello: a handshake record `16 03 0x` (x ≤ 4) with a
    /// plausible length (4…2^14+2048) whose first message is a ClientHello (type 1), or an SSL 2.0-format
    /// ClientHello (`80 LL 01 03 0x` / `80 LL 01 00 02`); false when they cannot be one; nil when more bytes
    /// are needed to tell (fewer than 6).
    public static func looksLikeTLS(_ firstBytes: UnsafeRawBufferPointer) -> Bool? {
        let count = firstBytes.count
        guard count > 0 else { return nil }
        let b0 = firstBytes[0]
        if b0 & 0x80 != 0 {
            // SSL 2.0-format record header: 2-byte length, then msg type 1 and the version.
            if count < 5 { return firstBytes.count < 3 || firstBytes[2] == 1 ? nil : false }
            let length = Int(b0 & 0x7f) << 8 | Int(firstBytes[1])
            let major = firstBytes[3], minor = firstBytes[4]
            return firstBytes[2] == 1 && length >= 9 && ((major == 3 && minor <= 4) || (major == 0 && minor == 2))
        }
        guard b0 == 0x16 else { return false }
        if count >= 2 && firstBytes[1] != 3 { return false }
        if count >= 3 && firstBytes[2] > 4 { return false }
        if count >= 5 {
            let length = Int(firstBytes[3]) << 8 | Int(firstBytes[4])
            if length < 4 || length > TLSRecordReader.maxRecordLength { return false }
        }
        guard count >= 6 else { return nil }
        return firstBytes[5] == 1
    }
}

/// A connection's stream consumer that picks the application-layer analysis from the client's first
/// bytes: a TLS ClientHello gets `makeTLS()`, anything else `makeOther()` (the HTTP/1.x analysis).
/// Until it has decided it keeps copies of what it was given (at most the client's first 6 bytes, and
/// at most `maxHeldBytes` of server bytes sent before the client spoke — then it decides "other"),
/// reports nothing examined and owns nothing; then it replays them to the chosen analysis and forwards
/// everything, including the `StreamAttribution` questions.
public final class ApplicationProtocolDispatcher: TCPStreamConsumer, StreamAttribution {
    public typealias Analysis = TCPStreamConsumer & StreamAttribution

    /// The chosen analysis (nil until decided).
    public private(set) var selected: (any Analysis)?
    private let makeTLS: () -> any Analysis
    private let makeOther: () -> any Analysis
    private let maxHeldBytes: Int

    private enum Held {
        case data([UInt8], offset: Int64, direction: FlowDirection, origin: PacketOrigin)
        case gap(offset: Int64, length: Int64, direction: FlowDirection, reason: StreamGapReason)
        case ended(FlowDirection)
    }

    private var held: [Held] = []
    private var clientBytes: [UInt8] = []
    private var heldServerBytes = 0

    public init(maxHeldBytes: Int = 64 << 10, makeTLS: @escaping () -> any Analysis, makeOther: @escaping () -> any Analysis) {
        self.makeTLS = makeTLS
        self.makeOther = makeOther
        self.maxHeldBytes = maxHeldBytes
    }

    public func streamData(_ data: UnsafeRawBufferPointer, offset: Int64, direction: FlowDirection, origin: PacketOrigin) {
        if let selected {
            selected.streamData(data, offset: offset, direction: direction, origin: origin)
            return
        }
        held.append(.data(Array(data), offset: offset, direction: direction, origin: origin))
        if direction == .up {
            clientBytes.append(contentsOf: data.prefix(6 - clientBytes.count))
            let guess = clientBytes.withUnsafeBytes { ApplicationProtocolGuess.looksLikeTLS($0) }
            if let guess { decide(tls: guess) }
        } else {
            heldServerBytes += data.count
            if heldServerBytes > maxHeldBytes { decide(tls: false) }
        }
    }

    public func streamGap(offset: Int64, length: Int64, direction: FlowDirection, reason: StreamGapReason) {
        if let selected {
            selected.streamGap(offset: offset, length: length, direction: direction, reason: reason)
            return
        }
        held.append(.gap(offset: offset, length: length, direction: direction, reason: reason))
        if direction == .up { decide(tls: false) }
    }

    public func streamEnded(direction: FlowDirection) {
        if let selected {
            selected.streamEnded(direction: direction)
            return
        }
        held.append(.ended(direction))
        if direction == .up || held.contains(where: { if case .ended(.up) = $0 { return true } else { return false } }) {
            decide(tls: clientBytes.withUnsafeBytes { ApplicationProtocolGuess.looksLikeTLS($0) } ?? false)
        }
    }

    private func decide(tls: Bool) {
        guard selected == nil else { return }
        let analysis = tls ? makeTLS() : makeOther()
        selected = analysis
        let replay = held
        held = []
        clientBytes = []
        for event in replay {
            switch event {
            case let .data(bytes, offset, direction, origin):
                bytes.withUnsafeBytes { analysis.streamData($0, offset: offset, direction: direction, origin: origin) }
            case let .gap(offset, length, direction, reason):
                analysis.streamGap(offset: offset, length: length, direction: direction, reason: reason)
            case let .ended(direction):
                analysis.streamEnded(direction: direction)
            }
        }
    }

    public func examinedLength(_ direction: FlowDirection) -> Int64 { selected?.examinedLength(direction) ?? 0 }
    public func ownership(_ direction: FlowDirection) -> OwnershipRuns { selected?.ownership(direction) ?? OwnershipRuns() }
    public var exchangeInFlight: Int? { selected?.exchangeInFlight }
    public var exchangeCount: Int { selected?.exchangeCount ?? 0 }
}

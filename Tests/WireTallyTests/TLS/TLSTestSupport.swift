import Foundation
import Testing
@testable import WireTally

/// Runs the real pipeline with a `TLSConnectionAnalysis` on every connection.
enum TLSCaptureRun {
    struct Connection {
        var connection: TCPConnection
        var tls: TLSConnectionAnalysis
    }

    /// Every TCP connection of the files, in report order.
    static func analyze(_ paths: [String], options: TLSAnalysisFactory = .init()) throws -> [Connection] {
        var connections: [Connection] = []
        let source = MergedPacketSource(paths: paths)
        let analyzer = CaptureAnalyzer(
            makeConsumer: { _ in options.make() },
            emit: { record in
                if case let .connection(connection) = record, let tls = connection.consumer as? TLSConnectionAnalysis {
                    connections.append(Connection(connection: connection, tls: tls))
                }
            })
        while let packet = try source.nextPacket() { analyzer.process(packet) }
        _ = analyzer.finish(timestampDigits: source.timestampDigits)
        return connections
    }

    /// Conservation of one connection: the ledger's own check, no exchange beyond the analysis's, and
    /// exchanges + unattributed = totals at every level.
    static func checkConservation(_ item: Connection, sourceLocation: SourceLocation = #_sourceLocation) {
        let ledger = item.connection.ledger
        #expect(ledger.isConserved, "connection \(item.connection.id)", sourceLocation: sourceLocation)
        #expect(ledger.exchanges.count <= item.tls.exchangeCount, "phantom exchange", sourceLocation: sourceLocation)
        for direction in FlowDirection.allCases {
            var owned = ledger.unattributed(direction)
            for index in 0 ..< item.tls.exchangeCount { owned = owned + ledger.exchange(index).tally(direction).total }
            #expect(owned == ledger.tally(direction).total, "\(direction)", sourceLocation: sourceLocation)
        }
    }
}

struct TLSAnalysisFactory {
    var unknownALPNWithH2IsSession = true
    func make() -> TLSConnectionAnalysis { TLSConnectionAnalysis(unknownALPNWithH2IsSession: unknownALPNWithH2IsSession) }
}

/// Builds TLS records and handshake messages for unit tests.
enum TLSBytes {
    static func record(_ type: UInt8, _ body: [UInt8], version: UInt16 = 0x0303) -> [UInt8] {
        [type, UInt8(version >> 8), UInt8(version & 0xff), UInt8(body.count >> 8), UInt8(body.count & 0xff)] + body
    }

    static func handshake(_ type: UInt8, _ body: [UInt8]) -> [UInt8] {
        [type, UInt8(body.count >> 16), UInt8((body.count >> 8) & 0xff), UInt8(body.count & 0xff)] + body
    }

    static func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xff), UInt8(value & 0xff)] }

    static func ext(_ type: Int, _ data: [UInt8]) -> [UInt8] { u16(type) + u16(data.count) + data }

    static func sni(_ host: String) -> [UInt8] {
        let name = Array(host.utf8)
        let entry = [0] + u16(name.count) + name
        return ext(0, u16(entry.count) + entry)
    }

    static func alpn(_ protocols: [String]) -> [UInt8] {
        let list = protocols.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) }
        return ext(16, u16(list.count) + list)
    }

    static func clientHello(sni host: String? = "example.com", alpn protocols: [String] = ["http/1.1"],
                            sessionID: [UInt8] = [], versions: [UInt16] = [], extra: [UInt8] = []) -> [UInt8] {
        var extensions: [UInt8] = []
        if let host { extensions += sni(host) }
        if !protocols.isEmpty { extensions += alpn(protocols) }
        if !versions.isEmpty {
            let list = versions.flatMap { u16(Int($0)) }
            extensions += ext(43, [UInt8(list.count)] + list)
        }
        extensions += extra
        let body = u16(0x0303) + [UInt8](repeating: 0xAB, count: 32) + [UInt8(sessionID.count)] + sessionID
            + u16(4) + u16(0x1301) + u16(0xC02F) + [1, 0] + u16(extensions.count) + extensions
        return handshake(1, body)
    }

    static func serverHello(suite: Int, sessionID: [UInt8] = [], alpn protocols: String? = nil,
                            version: UInt16? = nil, psk: Bool = false) -> [UInt8] {
        var extensions: [UInt8] = []
        if let protocols { extensions += alpn([protocols]) }
        if let version { extensions += ext(43, u16(Int(version))) }
        if psk { extensions += ext(41, u16(0)) }
        let body = u16(0x0303) + [UInt8](repeating: 0xCD, count: 32) + [UInt8(sessionID.count)] + sessionID
            + u16(suite) + [0] + u16(extensions.count) + extensions
        return handshake(2, body)
    }
}

/// Feeds hand-made streams to a `TLSConnectionAnalysis` in a chosen order, with a packet origin per chunk.
final class TLSFeeder {
    let analysis: TLSConnectionAnalysis
    private var offsets: [Int64] = [0, 0]
    private var frame = 0

    init(_ analysis: TLSConnectionAnalysis = TLSConnectionAnalysis()) { self.analysis = analysis }

    /// Sends `bytes` in one direction, cut into chunks of `chunk` bytes (each a new packet, 1 ms apart).
    func send(_ direction: FlowDirection, _ bytes: [UInt8], chunk: Int = .max) {
        var index = 0
        while index < bytes.count {
            let end = min(bytes.count, index + max(1, chunk))
            frame += 1
            let origin = PacketOrigin(frameNumber: frame, timestamp: Timestamp(nanoseconds: Int64(frame) * 1_000_000))
            bytes[index ..< end].withUnsafeBytes {
                analysis.streamData($0, offset: offsets[direction.rawValue], direction: direction, origin: origin)
            }
            offsets[direction.rawValue] += Int64(end - index)
            index = end
        }
    }

    func gap(_ direction: FlowDirection, _ length: Int64) {
        analysis.streamGap(offset: offsets[direction.rawValue], length: length, direction: direction, reason: .missing)
        offsets[direction.rawValue] += length
    }

    func end() {
        analysis.streamEnded(direction: .up)
        analysis.streamEnded(direction: .down)
    }

    func offset(_ direction: FlowDirection) -> Int64 { offsets[direction.rawValue] }
}

import Foundation
import Testing
@testable import WireTally

/// TCP segments that overlap with different content: the first copy wins, the connection is flagged
/// `conflicting_overlap`, stream bytes are counted once, every packet is accounted for.
@Suite struct ConflictingOverlapTests {
    static let client = "10.2.0.1:41000", server = "10.2.0.2:80"
    /// 38 bytes; the target is bytes 5..<25.
    static let request = Array("GET /0123456789abcdefghij HTTP/1.1\r\n\r\n".utf8)
    static let response = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)

    static func frames(requestSegments: [(offset: Int, bytes: [UInt8])]) -> [[UInt8]] {
        let c: UInt32 = 7000, s: UInt32 = 9000
        var frames = [
            FrameBuilder.tcp(from: client, to: server, seq: c, flags: [.syn]),
            FrameBuilder.tcp(from: server, to: client, seq: s, ack: c + 1, flags: [.syn, .ack]),
            FrameBuilder.tcp(from: client, to: server, seq: c + 1, ack: s + 1, flags: [.ack]),
        ]
        for segment in requestSegments {
            frames.append(FrameBuilder.tcp(
                from: client, to: server, seq: c + 1 + UInt32(segment.offset), ack: s + 1, flags: [.ack, .psh],
                payload: segment.bytes))
        }
        let up = c + 1 + UInt32(request.count), down = s + 1 + UInt32(response.count)
        frames.append(FrameBuilder.tcp(from: server, to: client, seq: s + 1, ack: up, flags: [.ack], payload: response))
        frames.append(FrameBuilder.tcp(from: client, to: server, seq: up, ack: down, flags: [.fin, .ack]))
        frames.append(FrameBuilder.tcp(from: server, to: client, seq: down, ack: up + 1, flags: [.fin, .ack]))
        frames.append(FrameBuilder.tcp(from: client, to: server, seq: up + 1, ack: down + 1, flags: [.ack]))
        return frames
    }

    /// `request` with bytes 20..<25 (inside the target) replaced.
    static var conflicting: [UInt8] {
        var bytes = request
        bytes.replaceSubrange(20..<25, with: Array("ZZZZZ".utf8))
        return bytes
    }

    /// A delivered request, then a "retransmission" of it with different bytes.
    @Test func retransmissionWithDifferentBytes() throws {
        let (exchange, connection, _) = try LimitTestSupport.analyzeConversation(Self.frames(requestSegments: [
            (0, Self.request), (0, Self.conflicting),
        ]))
        #expect(exchange.string("request.target") == "/0123456789abcdefghij")
        #expect(connection.flagNames.contains("conflicting_overlap"))
        #expect(exchange.int("request.bytes.total") == Self.request.count)
        #expect(exchange.int("wire.up.retransmitted_bytes") == Self.request.count)
        #expect(exchange.int("wire.up.payload_bytes") == 2 * Self.request.count)
        #expect(exchange.int("response.status") == 200)
    }

    /// Out of order: bytes 10..<30 arrive, then 20..<38 with 20..<25 different, then the hole 0..<10
    /// is filled: the buffered first copy of 20..<30 wins.
    @Test func bufferedOutOfOrderSegmentsDisagree() throws {
        let (exchange, connection, _) = try LimitTestSupport.analyzeConversation(Self.frames(requestSegments: [
            (10, Array(Self.request[10..<30])), (20, Array(Self.conflicting[20..<38])), (0, Array(Self.request[0..<10])),
        ]))
        #expect(exchange.string("request.target") == "/0123456789abcdefghij")
        #expect(connection.flagNames.contains("conflicting_overlap"))
        #expect(exchange.int("request.bytes.total") == Self.request.count)
        #expect(exchange.int("wire.up.payload_bytes") == 48)
        #expect(connection.int("up.missing_bytes") == 0)
    }

    /// The same overlaps with identical bytes are plain retransmissions, not conflicts.
    @Test func identicalOverlapIsNotAConflict() throws {
        let (exchange, connection, _) = try LimitTestSupport.analyzeConversation(Self.frames(requestSegments: [
            (10, Array(Self.request[10..<30])), (20, Array(Self.request[20..<38])), (0, Array(Self.request[0..<10])),
            (0, Self.request),
        ]))
        #expect(!connection.flagNames.contains("conflicting_overlap"))
        #expect(exchange.int("request.bytes.total") == Self.request.count)
    }
}

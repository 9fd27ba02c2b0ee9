import Testing
@testable import WireTally

/// Exchange sealing: on a keep-alive connection each exchange's record is written as soon as it is
/// final, with the same numbers the connection's end would have given it; packets that come for a
/// sealed exchange go to the unattributed rest; `--settle` seals an idle connection's last exchange.
@Suite struct ExchangeSealingTests {
    static let client = "10.0.0.1:40000", server = "10.0.0.2:80"
    static let request1 = Array("GET /a HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
    static let response1 = Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello".utf8)
    static let request2 = Array("GET /b HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
    static let response2 = Array("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nbye".utf8)

    /// One frame and when it was captured.
    struct Step {
        var frame: [UInt8]
        var seconds: Double
    }

    /// A keep-alive connection with two exchanges; `gap` seconds of silence after the second one is
    /// acknowledged; `lateRetransmission` repeats the first response after the second request.
    static func conversation(gap: Double = 0, lateRetransmission: Bool = false) -> [Step] {
        let (c, s) = (client, server)
        let c1 = UInt32(101), s1 = UInt32(501)
        let c2 = c1 + UInt32(request1.count), s2 = s1 + UInt32(response1.count)
        let c3 = c2 + UInt32(request2.count), s3 = s2 + UInt32(response2.count)
        var steps: [([UInt8], Double)] = [
            (FrameBuilder.tcp(from: c, to: s, seq: 100, flags: [.syn]), 0),
            (FrameBuilder.tcp(from: s, to: c, seq: 500, ack: c1, flags: [.syn, .ack]), 0.001),
            (FrameBuilder.tcp(from: c, to: s, seq: c1, ack: s1), 0.002),
            (FrameBuilder.tcp(from: c, to: s, seq: c1, ack: s1, flags: [.ack, .psh], payload: request1), 0.003),
            (FrameBuilder.tcp(from: s, to: c, seq: s1, ack: c2, flags: [.ack, .psh], payload: response1), 0.004),
            (FrameBuilder.tcp(from: c, to: s, seq: c2, ack: s2), 0.005),
            (FrameBuilder.tcp(from: c, to: s, seq: c2, ack: s2, flags: [.ack, .psh], payload: request2), 0.1),
        ]
        if lateRetransmission {
            steps.append((FrameBuilder.tcp(from: s, to: c, seq: s1, ack: c2, flags: [.ack, .psh], payload: response1), 0.101))
        }
        steps += [
            (FrameBuilder.tcp(from: s, to: c, seq: s2, ack: c3, flags: [.ack, .psh], payload: response2), 0.102),
            (FrameBuilder.tcp(from: c, to: s, seq: c3, ack: s3), 0.103),
            (FrameBuilder.tcp(from: c, to: s, seq: c3, ack: s3, flags: [.ack, .fin]), 0.104 + gap),
            (FrameBuilder.tcp(from: s, to: c, seq: s3, ack: c3 + 1, flags: [.ack, .fin]), 0.105 + gap),
            (FrameBuilder.tcp(from: c, to: s, seq: c3 + 1, ack: s3 + 1), 0.106 + gap),
        ]
        return steps.map { Step(frame: $0.0, seconds: 1_700_000_000 + $0.1) }
    }

    /// What the analyzer emitted: each record as JSON with the number of packets read when it came
    /// (the packet being processed included).
    struct Emitted {
        var records: [(afterPackets: Int, json: JSONValue)] = []
        var exchanges: [(afterPackets: Int, json: JSONValue)] { records.filter { $0.json.string("type") == "http" } }
        var summary = CaptureSummary()
    }

    /// Runs the analyzer over `steps`; `clockAdvances` lets wall time pass (a live capture's quiet
    /// interface) after the packet with that index.
    static func analyze(_ steps: [Step], settle: Double? = nil, clockAdvances: [Int: Double] = [:]) -> Emitted {
        var options = CaptureAnalyzer.Options()
        options.limits.settleNanoseconds = settle.map { Int64($0 * 1e9) }
        var emitted = Emitted()
        var read = 0
        let analyzer = CaptureAnalyzer(options: options) { record in
            emitted.records.append((read, RecordEncoding.record(record, timestampDigits: 9)))
        }
        for (index, step) in steps.enumerated() {
            let time = Timestamp(nanoseconds: Int64((step.seconds * 1e6).rounded()) * 1000)
            read += 1
            step.frame.withUnsafeBytes { bytes in
                analyzer.process(CapturedPacket(
                    frameNumber: index + 1, timestamp: time, linkType: .ethernet, originalLength: bytes.count, bytes: bytes))
            }
            if let seconds = clockAdvances[index] {
                analyzer.advanceClock(to: Timestamp(nanoseconds: time.nanoseconds + Int64(seconds * 1e9)))
            }
        }
        emitted.summary = analyzer.finish(timestampDigits: 9)
        return emitted
    }

    @Test func firstExchangeIsWrittenOnceTheNextRequestBegins() throws {
        let emitted = Self.analyze(Self.conversation())
        let exchanges = emitted.exchanges
        try #require(exchanges.count == 2)
        #expect(exchanges[0].afterPackets == 7)  // right after the second request, long before the FIN
        #expect(exchanges[1].afterPackets == 12)  // at the end of the capture (the connection lingers)
        #expect(emitted.records.last?.json.string("type") == "connection")
        // The numbers the connection's end gives: exchange 0 has the handshake, its request and
        // response and the client's ACK; exchange 1 its messages, the ACK and the teardown.
        #expect(exchanges[0].json.int("wire.up.packets") == 4)
        #expect(exchanges[0].json.int("wire.down.packets") == 2)
        #expect(exchanges[0].json.int("wire.up.setup_ip_bytes") == 80)
        #expect(exchanges[1].json.int("wire.up.packets") == 4)
        #expect(exchanges[1].json.int("wire.down.packets") == 2)
        #expect(exchanges[1].json.int("wire.down.teardown_ip_bytes") == 40)
        let connection = try #require(emitted.records.last?.json)
        #expect(connection.int("unattributed.up.packets") == 0)
        #expect(connection.int("unattributed.down.packets") == 0)
        #expect(emitted.summary.isConserved)
        #expect(emitted.summary.attributedIPBytes == (connection.int("up.ip_bytes") ?? 0) + (connection.int("down.ip_bytes") ?? 0))
    }

    /// While the first exchange lingers (5 ms here: a 1 ms handshake), the next exchange's packets do
    /// not seal it (the ledger skips those passes until the linger's end it noted); a packet it owns
    /// during the linger (a spurious retransmission of its response) moves the end later; the first
    /// packet after that end seals it, and the numbers are those of the connection's end.
    @Test func aLingeringExchangeIsSealedAtTheFirstPacketAfterItsLinger() throws {
        let (c, s) = (Self.client, Self.server)
        let c1 = UInt32(101), s1 = UInt32(501)
        let c2 = c1 + UInt32(Self.request1.count), s2 = s1 + UInt32(Self.response1.count)
        let c3 = c2 + UInt32(Self.request2.count), s3 = s2 + UInt32(Self.response2.count)
        let steps: [([UInt8], Double)] = [
            (FrameBuilder.tcp(from: c, to: s, seq: 100, flags: [.syn]), 0),
            (FrameBuilder.tcp(from: s, to: c, seq: 500, ack: c1, flags: [.syn, .ack]), 0.0005),
            (FrameBuilder.tcp(from: c, to: s, seq: c1, ack: s1), 0.001),
            (FrameBuilder.tcp(from: c, to: s, seq: c1, ack: s1, flags: [.ack, .psh], payload: Self.request1), 0.002),
            (FrameBuilder.tcp(from: s, to: c, seq: s1, ack: c2, flags: [.ack, .psh], payload: Self.response1), 0.003),
            (FrameBuilder.tcp(from: c, to: s, seq: c2, ack: s2), 0.004),  // exchange 0's last packet so far
            (FrameBuilder.tcp(from: c, to: s, seq: c2, ack: s2, flags: [.ack, .psh], payload: Self.request2), 0.005),
            (FrameBuilder.tcp(from: s, to: c, seq: s1, ack: c3, flags: [.ack, .psh], payload: Self.response1), 0.0085),  // exchange 0's
            (FrameBuilder.tcp(from: s, to: c, seq: s2, ack: c3, flags: [.ack, .psh], payload: Self.response2), 0.0095),
            (FrameBuilder.tcp(from: c, to: s, seq: c3, ack: s3), 0.010),
            (FrameBuilder.tcp(from: c, to: s, seq: c3, ack: s3), 0.013),  // 4.5 ms after 0.0085: still lingering
            (FrameBuilder.tcp(from: c, to: s, seq: c3, ack: s3), 0.0136),  // 5.1 ms after: sealed here
            (FrameBuilder.tcp(from: c, to: s, seq: c3, ack: s3, flags: [.ack, .fin]), 0.020),
            (FrameBuilder.tcp(from: s, to: c, seq: s3, ack: c3 + 1, flags: [.ack, .fin]), 0.021),
            (FrameBuilder.tcp(from: c, to: s, seq: c3 + 1, ack: s3 + 1), 0.022),
        ]
        let emitted = Self.analyze(steps.map { Step(frame: $0.0, seconds: 1_700_000_000 + $0.1) })
        let exchanges = emitted.exchanges
        try #require(exchanges.count == 2)
        #expect(exchanges[0].afterPackets == 12)
        #expect(exchanges[0].json.int("wire.down.packets") == 3)  // the SYN-ACK, its response and the retransmission
        #expect(exchanges[0].json.int("wire.down.retransmitted_packets") == 1)
        let connection = try #require(emitted.records.last?.json)
        #expect(connection.int("unattributed.down.packets") == 0 && !connection.flagNames.contains("late_after_seal"))
        #expect(emitted.summary.isConserved)
    }

    @Test func aRetransmissionAfterSealingGoesToTheUnattributedRest() throws {
        let emitted = Self.analyze(Self.conversation(lateRetransmission: true))
        let exchanges = emitted.exchanges
        try #require(exchanges.count == 2)
        let plain = Self.analyze(Self.conversation()).exchanges
        #expect(exchanges[0].json == plain[0].json)  // already written: unchanged
        let connection = try #require(emitted.records.last?.json)
        #expect(connection.int("unattributed.down.packets") == 1)
        #expect(connection.int("unattributed.down.payload_bytes") == Self.response1.count)
        #expect(connection.flagNames.contains("late_after_seal"))
        for direction in ["up", "down"] {
            for level in ["packets", "ip_bytes", "frame_bytes", "payload_bytes"] {
                let owned = exchanges.reduce(connection.int("unattributed.\(direction).\(level)") ?? 0) {
                    $0 + ($1.json.int("wire.\(direction).\(level)") ?? 0)
                }
                #expect(owned == connection.int("\(direction).\(level)"), "\(direction) \(level)")
            }
        }
        #expect(emitted.summary.isConserved)
    }

    @Test func settleWritesTheLastExchangeOfAnIdleConnection() throws {
        // Live: the interface is quiet for 3 s after the last ACK; the clock passes the settle time.
        let live = Self.analyze(Self.conversation(gap: 5), settle: 2, clockAdvances: [8: 3])
        try #require(live.exchanges.count == 2)
        #expect(live.exchanges[1].afterPackets == 9)  // before the teardown
        #expect(live.exchanges[1].json.int("wire.down.teardown_ip_bytes") == 0)
        let connection = try #require(live.records.last?.json)
        #expect(connection.int("unattributed.up.packets") == 2)  // FIN and last ACK
        #expect(connection.int("unattributed.down.packets") == 1)
        #expect(!connection.flagNames.contains("late_after_seal"))
        #expect(live.summary.isConserved)
        // Offline with the same settle time: the same records, in the same order.
        let offline = Self.analyze(Self.conversation(gap: 5), settle: 2)
        #expect(offline.records.map(\.json) == live.records.map(\.json))
        #expect(offline.exchanges[1].afterPackets == 10)  // sealed when the FIN comes, before it is counted
        // Without settle, the teardown goes to the last exchange as usual.
        let unsettled = Self.analyze(Self.conversation(gap: 5))
        #expect(unsettled.exchanges[1].json.int("wire.down.teardown_ip_bytes") == 40)
    }

    @Test func aConnectionIdleTwiceIsSettledTwice() throws {
        // idle 95 ms after the first exchange and 5 s after the second; settle 50 ms: each idle period
        // seals the exchange before it (the sweep mark must not skip the connection the second time)
        let emitted = Self.analyze(Self.conversation(gap: 5), settle: 0.05)
        try #require(emitted.exchanges.count == 2)
        #expect(emitted.exchanges[0].afterPackets == 7)  // before the second request is counted
        #expect(emitted.exchanges[1].afterPackets == 10)  // before the FIN
        #expect(emitted.exchanges[1].json.int("wire.down.teardown_ip_bytes") == 0)
        #expect(emitted.summary.isConserved)
    }

    @Test func aConnectionThatClosedAndSettledKeepsItsTeardownInTheLastExchange() throws {
        // Live: the connection closes, then the interface is quiet: the last exchange is written after
        // the settle time (not the 60 s linger), with the same numbers as at the connection's end.
        let steps = Self.conversation()
        let live = Self.analyze(steps, settle: 2, clockAdvances: [steps.count - 1: 3])
        let unsettled = Self.analyze(steps)
        try #require(live.exchanges.count == 2)
        #expect(live.exchanges[1].json.int("wire.down.teardown_ip_bytes") == 40)
        #expect(live.records.map(\.json) == unsettled.records.map(\.json))
        #expect(live.summary.isConserved)
    }
}

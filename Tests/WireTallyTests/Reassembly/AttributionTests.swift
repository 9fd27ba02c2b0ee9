import Testing
@testable import WireTally

/// A stand-in application layer for ledger tests: every line (ending in `\n`) is a message, and line k
/// of either direction belongs to exchange k.
final class LineProtocolAttribution: TCPStreamConsumer, StreamAttribution {
    private var runs = [OwnershipRuns(), OwnershipRuns()]
    private var examined: [Int64] = [0, 0]
    private var lines = [0, 0]
    private var atLineStart = [true, true]
    private var finishedResponses = 0

    func streamData(_ data: UnsafeRawBufferPointer, offset: Int64, direction: FlowDirection, origin: PacketOrigin) {
        let d = direction.rawValue
        for (index, byte) in data.enumerated() {
            if atLineStart[d] {
                runs[d].set(StreamOwner(exchange: lines[d]), from: offset + Int64(index))
                atLineStart[d] = false
            }
            if byte == 0x0a {
                lines[d] += 1
                atLineStart[d] = true
                if direction == .down { finishedResponses += 1 }
            }
        }
        examined[d] = offset + Int64(data.count)
    }

    func streamGap(offset: Int64, length: Int64, direction: FlowDirection, reason: StreamGapReason) {
        runs[direction.rawValue].set(.nobody, from: offset)
        examined[direction.rawValue] = offset + length
    }

    func streamEnded(direction: FlowDirection) {}

    func examinedLength(_ direction: FlowDirection) -> Int64 { examined[direction.rawValue] }
    func ownership(_ direction: FlowDirection) -> OwnershipRuns { runs[direction.rawValue] }
    var exchangeCount: Int { max(lines[0] + (atLineStart[0] ? 0 : 1), lines[1] + (atLineStart[1] ? 0 : 1)) }
    var exchangeInFlight: Int? { finishedResponses < exchangeCount ? exchangeCount - 1 : nil }
}

/// The ledger's attribution rules, with exact expected numbers per exchange.
@Suite struct AttributionTests {
    let client = "10.0.0.1:40000"
    let server = "10.0.0.2:80"

    func driver() -> SegmentDriver { SegmentDriver(makeConsumer: { LineProtocolAttribution() }) }

    func handshake(_ driver: SegmentDriver) {
        driver.send(client, server, seq: 1000, flags: [.syn])
        driver.send(server, client, seq: 5000, ack: 1001, flags: [.syn, .ack])
        driver.send(client, server, seq: 1001, ack: 5001, flags: [.ack])
    }

    func teardown(_ driver: SegmentDriver, clientSeq: UInt32, serverSeq: UInt32) {
        driver.send(client, server, seq: clientSeq, ack: serverSeq, flags: [.fin, .ack])
        driver.send(server, client, seq: serverSeq, ack: clientSeq + 1, flags: [.fin, .ack])
        driver.send(client, server, seq: clientSeq + 1, ack: serverSeq + 1, flags: [.ack])
    }

    @Test func splitsAPacketCarryingTwoMessagesExactly() throws {
        let driver = driver()
        handshake(driver)
        // one packet: "a\n" (exchange 0) + "bbb\n" (exchange 1): 2 + 4 payload bytes
        driver.send(client, server, seq: 1001, ack: 5001, flags: [.ack], payload: "a\nbbb\n".bytes)
        driver.send(server, client, seq: 5001, ack: 1007, flags: [.ack], payload: "x\n".bytes)
        driver.send(server, client, seq: 5003, ack: 1007, flags: [.ack], payload: "yy\n".bytes)
        teardown(driver, clientSeq: 1007, serverSeq: 5006)
        let connection = driver.finish()[0]
        let ledger = connection.ledger
        #expect(ledger.isConserved)
        let first = ledger.exchange(0).tally(.up), second = ledger.exchange(1).tally(.up)
        // exchange 0: the packet itself (1 packet, 40 header bytes + 2 payload, frame +14) and the setup
        #expect(first.payload == TrafficCounters(packets: 1, ipBytes: 42, frameBytes: 56, payloadBytes: 2))
        #expect(second.payload == TrafficCounters(packets: 0, ipBytes: 4, frameBytes: 4, payloadBytes: 4))
        #expect(first.setup.packets == 2)
        #expect(second.setup.packets == 0)
        // teardown to the last exchange
        #expect(ledger.exchange(1).tally(.up).teardown.packets == 2)
        #expect(ledger.exchange(1).tally(.down).teardown.packets == 1)
        #expect(ledger.exchange(0).tally(.down).setup.packets == 1)
        #expect(ledger.unattributed(.up) == TrafficCounters())
    }

    @Test func acknowledgmentsGoToTheDataTheyAcknowledge() throws {
        let driver = driver()
        handshake(driver)
        driver.send(client, server, seq: 1001, ack: 5001, flags: [.ack], payload: "q\n".bytes)
        driver.send(server, client, seq: 5001, ack: 1003, flags: [.ack])  // acks request 0 → exchange 0
        driver.send(server, client, seq: 5001, ack: 1003, flags: [.ack], payload: "r".bytes)
        driver.send(client, server, seq: 1003, ack: 5002, flags: [.ack])  // acks response 0 → exchange 0
        driver.send(client, server, seq: 1003, ack: 5002, flags: [.ack])  // dup ack, response in flight → 0
        driver.send(server, client, seq: 5002, ack: 1003, flags: [.ack], payload: "\n".bytes)
        driver.send(client, server, seq: 1003, ack: 5003, flags: [.ack])  // acks the end → 0
        driver.send(client, server, seq: 1003, ack: 5003, flags: [.ack])  // idle keep-alive ack → nobody
        let connection = driver.finish()[0]
        let ledger = connection.ledger
        #expect(ledger.isConserved)
        #expect(ledger.exchange(0).tally(.down).ack.packets == 1)
        #expect(ledger.exchange(0).tally(.up).ack.packets == 3)
        #expect(ledger.unattributed(.up) == TrafficCounters(packets: 1, ipBytes: 40, frameBytes: 54, payloadBytes: 0))
    }

    @Test func outOfOrderPacketsWaitForTheirOwner() throws {
        let driver = driver()
        handshake(driver)
        driver.send(client, server, seq: 1003, ack: 5001, flags: [.ack], payload: "bb\n".bytes)  // early
        driver.send(client, server, seq: 1001, ack: 5001, flags: [.ack], payload: "a\n".bytes)
        let connection = driver.finish()[0]
        let ledger = connection.ledger
        #expect(ledger.isConserved)
        #expect(ledger.exchange(0).tally(.up).payload.packets == 1)
        #expect(ledger.exchange(1).tally(.up).payload == TrafficCounters(packets: 1, ipBytes: 43, frameBytes: 57, payloadBytes: 3))
    }

    @Test func retransmissionsGoToTheOwnerOfTheirBytes() throws {
        let driver = driver()
        handshake(driver)
        driver.send(client, server, seq: 1001, ack: 5001, flags: [.ack], payload: "a\n".bytes)
        driver.send(client, server, seq: 1003, ack: 5001, flags: [.ack], payload: "bb\n".bytes)
        driver.send(client, server, seq: 1003, ack: 5001, flags: [.ack], payload: "bb\n".bytes)
        let ledger = driver.finish()[0].ledger
        #expect(ledger.isConserved)
        #expect(ledger.exchange(1).tally(.up).retransmission.packets == 1)
        #expect(ledger.exchange(1).tally(.up).retransmittedPayloadBytes == 3)
        #expect(ledger.exchange(0).tally(.up).retransmission.packets == 0)
    }

    @Test func withoutExchangesEverythingStaysUnattributed() throws {
        let driver = driver()
        handshake(driver)
        teardown(driver, clientSeq: 1001, serverSeq: 5001)
        let connection = driver.finish()[0]
        #expect(connection.ledger.exchanges.isEmpty)
        #expect(connection.ledger.unattributed(.up) == connection.ledger.tally(.up).total)
        #expect(connection.ledger.isConserved)
    }
}

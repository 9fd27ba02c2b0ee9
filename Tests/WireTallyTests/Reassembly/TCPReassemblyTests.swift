import Testing
@testable import WireTally

/// Reassembly edge cases on hand-made segments; each test also checks conservation and that every
/// stream offset is reported exactly once.
@Suite struct TCPReassemblyTests {
    let client = "10.0.0.1:40000"
    let server = "10.0.0.2:80"

    /// Client ISN 1000, server ISN 5000.
    func handshake(_ driver: SegmentDriver) {
        driver.send(client, server, seq: 1000, flags: [.syn])
        driver.send(server, client, seq: 5000, ack: 1001, flags: [.syn, .ack])
        driver.send(client, server, seq: 1001, ack: 5001, flags: [.ack])
    }

    func checkInvariants(_ connection: TCPConnection, _ consumer: RecordingConsumer) {
        #expect(connection.ledger.isConserved)
        for direction in FlowDirection.allCases {
            #expect(consumer.isContiguous(direction))
            let tally = connection.ledger.tally(direction)
            let categories = PacketCategory.allCases.reduce(TrafficCounters()) { $0 + tally[$1] }
            #expect(categories == tally.total)
        }
    }

    @Test func classifiesAWholeConnection() {
        let driver = SegmentDriver()
        handshake(driver)
        driver.send(client, server, seq: 1001, ack: 5001, flags: [.ack, .psh], payload: "GET / HTTP/1.1\r\n\r\n".bytes)
        driver.send(server, client, seq: 5001, ack: 1019, flags: [.ack])
        driver.send(server, client, seq: 5001, ack: 1019, flags: [.ack, .psh], payload: "HTTP/1.1 200 OK\r\n\r\n".bytes)
        driver.send(client, server, seq: 1019, ack: 5020, flags: [.ack])
        driver.send(client, server, seq: 1019, ack: 5020, flags: [.fin, .ack])
        driver.send(server, client, seq: 5020, ack: 1020, flags: [.fin, .ack])
        driver.send(client, server, seq: 1020, ack: 5021, flags: [.ack])
        let connections = driver.finish()
        #expect(connections.count == 1)
        let connection = connections[0]
        let consumer = driver.consumer(connection)
        #expect(connection.clientEndpoint == client)
        #expect(connection.serverEndpoint == server)
        let up = connection.ledger.tally(.up), down = connection.ledger.tally(.down)
        #expect(up.setup.packets == 2)  // SYN + handshake ACK
        #expect(down.setup.packets == 1)
        #expect(up.payload.packets == 1 && up.payload.payloadBytes == 18)
        #expect(down.payload.packets == 1 && down.payload.payloadBytes == 19)
        #expect(down.ack.packets == 1 && up.ack.packets == 1)
        #expect(up.teardown.packets == 2 && down.teardown.packets == 1)
        #expect(up.total.ipBytes == 6 * 40 + 18)
        #expect(consumer.stream(.up) == "GET / HTTP/1.1\r\n\r\n".bytes)
        #expect(consumer.stream(.down) == "HTTP/1.1 200 OK\r\n\r\n".bytes)
        #expect(consumer.ended == [true, true])
        #expect(connection.flags.isSuperset(of: [.established, .clientFIN, .serverFIN]))
        #expect(!connection.flags.contains(.midstream))
        #expect(connection.handshakeNanoseconds == 2_000_000)
        checkInvariants(connection, consumer)
    }

    @Test func reordersAndTracesBytesToTheirPackets() {
        let driver = SegmentDriver()
        handshake(driver)
        let second = driver.send(client, server, seq: 1006, ack: 5001, flags: [.ack], payload: "world".bytes)
        let first = driver.send(client, server, seq: 1001, ack: 5001, flags: [.ack], payload: "hello".bytes)
        let connection = driver.finish()[0]
        let consumer = driver.consumer(connection)
        #expect(consumer.stream(.up) == "helloworld".bytes)
        #expect(consumer.chunks[0].map(\.frame) == [first, second])
        #expect(connection.ledger.tally(.up).payload.packets == 2)
        #expect(connection.ledger.tally(.up).retransmission.packets == 0)
        checkInvariants(connection, consumer)
    }

    @Test func countsRetransmissionsOnce() {
        let driver = SegmentDriver()
        handshake(driver)
        driver.send(client, server, seq: 1001, ack: 5001, flags: [.ack], payload: "hello".bytes)
        driver.send(client, server, seq: 1001, ack: 5001, flags: [.ack], payload: "hello".bytes)
        // a partial overlap: 3 old bytes, 3 new
        driver.send(client, server, seq: 1003, ack: 5001, flags: [.ack], payload: "llo!!!".bytes)
        let connection = driver.finish()[0]
        let consumer = driver.consumer(connection)
        let up = connection.ledger.tally(.up)
        #expect(consumer.stream(.up) == "hello!!!".bytes)
        #expect(up.retransmission.packets == 1)
        #expect(up.payload.packets == 2)
        #expect(up.retransmittedPayloadBytes == 5 + 3)
        #expect(!connection.flags.contains(.conflictingOverlap))
        checkInvariants(connection, consumer)
    }

    @Test func firstCopyWinsOnConflictingOverlap() {
        let driver = SegmentDriver()
        handshake(driver)
        // out-of-order copy first, then a conflicting in-order copy covering it
        driver.send(client, server, seq: 1004, ack: 5001, flags: [.ack], payload: "GOOD".bytes)
        driver.send(client, server, seq: 1001, ack: 5001, flags: [.ack], payload: "abcXXXX".bytes)
        // and a conflicting retransmission of delivered data
        driver.send(client, server, seq: 1001, ack: 5001, flags: [.ack], payload: "zbc".bytes)
        let connection = driver.finish()[0]
        let consumer = driver.consumer(connection)
        #expect(consumer.stream(.up) == "abcGOOD".bytes)
        #expect(connection.flags.contains(.conflictingOverlap))
        checkInvariants(connection, consumer)
    }

    @Test func followsSequenceWraparound() {
        let driver = SegmentDriver()
        let isn: UInt32 = 0xFFFF_FFF0
        driver.send(client, server, seq: isn, flags: [.syn])
        driver.send(server, client, seq: 7, ack: isn &+ 1, flags: [.syn, .ack])
        driver.send(client, server, seq: isn &+ 1, ack: 8, flags: [.ack])
        let chunk = [UInt8](repeating: 0x41, count: 10)
        var sequence = isn &+ 1
        for _ in 0..<4 {  // crosses 2^32 in the second segment
            driver.send(client, server, seq: sequence, ack: 8, flags: [.ack], payload: chunk)
            sequence = sequence &+ 10
        }
        let connection = driver.finish()[0]
        let consumer = driver.consumer(connection)
        #expect(consumer.stream(.up).count == 40)
        #expect(consumer.gaps[0].isEmpty)
        #expect(connection.ledger.tally(.up).payload.packets == 4)
        checkInvariants(connection, consumer)
    }

    @Test func declaresAcknowledgedHoleAndGoesOn() {
        let driver = SegmentDriver()
        handshake(driver)
        driver.send(client, server, seq: 1001, ack: 5001, flags: [.ack], payload: "aaaa".bytes)
        // 1005..1009 never captured; the server acknowledges it all
        driver.send(client, server, seq: 1009, ack: 5001, flags: [.ack], payload: "cccc".bytes)
        driver.send(server, client, seq: 5001, ack: 1013, flags: [.ack])
        driver.send(client, server, seq: 1013, ack: 5001, flags: [.ack], payload: "dddd".bytes)
        let connection = driver.finish()[0]
        let consumer = driver.consumer(connection)
        #expect(consumer.gaps[0] == [.init(offset: 4, length: 4, reason: .missing)])
        #expect(consumer.stream(.up, fill: 0x2e) == "aaaa....ccccdddd".bytes)
        #expect(connection.ledger.tally(.up).missingBytes == 4)
        #expect(connection.flags.contains(.gap))
        checkInvariants(connection, consumer)
    }

    @Test func flushesHeldDataAtTheEnd() {
        let driver = SegmentDriver()
        handshake(driver)
        driver.send(client, server, seq: 1011, ack: 5001, flags: [.ack], payload: "tail".bytes)
        let connection = driver.finish()[0]
        let consumer = driver.consumer(connection)
        #expect(consumer.gaps[0] == [.init(offset: 0, length: 10, reason: .missing)])
        #expect(consumer.chunks[0].map(\.offset) == [10])
        #expect(connection.flags.contains(.openAtEnd))
        checkInvariants(connection, consumer)
    }

    @Test func bufferCapForcesTheStreamOn() {
        var limits = ReassemblyLimits()
        limits.maxBufferedBytesPerDirection = 16
        let driver = SegmentDriver(limits: limits)
        handshake(driver)
        for index in 0..<5 {  // 5 × 10 bytes after a 10-byte hole
            driver.send(client, server, seq: 1011 + UInt32(index * 10), ack: 5001, flags: [.ack],
                        payload: [UInt8](repeating: 0x42, count: 10))
        }
        let connection = driver.finish()[0]
        let consumer = driver.consumer(connection)
        #expect(connection.flags.contains(.bufferOverflow))
        #expect(connection.ledger.tally(.up).missingBytes == 10)
        #expect(consumer.stream(.up).count == 60)
        checkInvariants(connection, consumer)
    }

    @Test func picksUpMidstreamWithHigherPortAsClient() {
        let driver = SegmentDriver()
        driver.send(server, client, seq: 9000, ack: 300, flags: [.ack], payload: "body".bytes)
        driver.send(client, server, seq: 300, ack: 9004, flags: [.ack])
        let connection = driver.finish()[0]
        #expect(connection.clientEndpoint == client)
        #expect(connection.flags.contains(.midstream))
        #expect(connection.ledger.tally(.down).payload.packets == 1)
        #expect(connection.ledger.tally(.up).ack.packets == 1)
        checkInvariants(connection, driver.consumer(connection))
    }

    @Test func retransmittedSYNsAreSetup() {
        let driver = SegmentDriver()
        driver.send(client, server, seq: 1000, flags: [.syn])
        driver.send(client, server, seq: 1000, flags: [.syn])
        driver.send(server, client, seq: 5000, ack: 1001, flags: [.syn, .ack])
        driver.send(server, client, seq: 5000, ack: 1001, flags: [.syn, .ack])
        driver.send(client, server, seq: 1001, ack: 5001, flags: [.ack])
        let connections = driver.finish()
        #expect(connections.count == 1)
        #expect(connections[0].ledger.tally(.up).setup.packets == 3)
        #expect(connections[0].ledger.tally(.down).setup.packets == 2)
    }

    @Test func synAckWithNewISNDoesNotInventGigabytes() {
        // Zeek issue 3313: a SYN-ACK retransmitted with another ISN.
        let driver = SegmentDriver()
        driver.send(client, server, seq: 1000, flags: [.syn])
        driver.send(server, client, seq: 5000, ack: 1001, flags: [.syn, .ack])
        driver.send(server, client, seq: 0x8000_0000, ack: 1001, flags: [.syn, .ack])
        driver.send(client, server, seq: 1001, ack: 5001, flags: [.ack])
        driver.send(server, client, seq: 0x8000_0001, ack: 1001, flags: [.ack], payload: "data".bytes)
        let connection = driver.finish()[0]
        let consumer = driver.consumer(connection)
        #expect(consumer.stream(.down) == "data".bytes)
        #expect(connection.ledger.tally(.down).missingBytes == 0)
        checkInvariants(connection, consumer)
    }

    @Test func resetEndsBothStreams() {
        let driver = SegmentDriver()
        handshake(driver)
        driver.send(client, server, seq: 1001, ack: 5001, flags: [.ack], payload: "abc".bytes)
        driver.send(server, client, seq: 5001, flags: [.rst])
        let connection = driver.finish()[0]
        let consumer = driver.consumer(connection)
        #expect(connection.flags.contains(.reset))
        #expect(connection.isClosed)
        #expect(consumer.ended == [true, true])
        #expect(connection.ledger.tally(.down).teardown.packets == 1)
        checkInvariants(connection, consumer)
    }

    @Test func halfCloseKeepsCountingPayload() {
        let driver = SegmentDriver()
        handshake(driver)
        driver.send(client, server, seq: 1001, ack: 5001, flags: [.fin, .ack])
        driver.send(server, client, seq: 5001, ack: 1002, flags: [.ack])
        driver.send(server, client, seq: 5001, ack: 1002, flags: [.ack], payload: "late data".bytes)
        driver.send(client, server, seq: 1002, ack: 5010, flags: [.ack])
        driver.send(server, client, seq: 5010, ack: 1002, flags: [.fin, .ack])
        let connection = driver.finish()[0]
        let consumer = driver.consumer(connection)
        #expect(consumer.stream(.down) == "late data".bytes)
        #expect(connection.ledger.tally(.down).payload.packets == 1)
        #expect(connection.ledger.tally(.down).teardown.packets == 2)
        #expect(connection.ledger.tally(.up).teardown.packets == 2)
        checkInvariants(connection, consumer)
    }

    @Test func newSYNAfterCloseStartsANewConnection() {
        let driver = SegmentDriver()
        handshake(driver)
        driver.send(client, server, seq: 1001, ack: 5001, flags: [.fin, .ack])
        driver.send(server, client, seq: 5001, ack: 1002, flags: [.fin, .ack])
        driver.send(client, server, seq: 1002, ack: 5002, flags: [.ack])
        driver.send(client, server, seq: 77_000, flags: [.syn])
        driver.send(server, client, seq: 99_000, ack: 77_001, flags: [.syn, .ack])
        let connections = driver.finish()
        #expect(connections.count == 2)
        #expect(connections[0].flags.contains(.portReused))
        #expect(connections[1].ledger.tally(.up).setup.packets == 1)
        #expect(connections[0].ledger.tally(.up).total.packets == 4)
    }

    @Test func snaplenCutPayloadBecomesAnUncapturedGap() {
        let driver = SegmentDriver()
        handshake(driver)
        driver.send(client, server, seq: 1001, ack: 5001, flags: [.ack], payload: "0123456789".bytes, captured: 4)
        driver.send(client, server, seq: 1011, ack: 5001, flags: [.ack], payload: "tail".bytes)
        let connection = driver.finish()[0]
        let consumer = driver.consumer(connection)
        #expect(consumer.gaps[0] == [.init(offset: 4, length: 6, reason: .uncaptured)])
        #expect(connection.flags.contains(.payloadTruncated))
        #expect(connection.ledger.tally(.up).payload.payloadBytes == 14)
        #expect(connection.ledger.tally(.up).missingBytes == 0)
        checkInvariants(connection, consumer)
    }

    @Test func connectionCapEvictsTheStalest() {
        var limits = ReassemblyLimits()
        limits.maxConnections = 2
        let driver = SegmentDriver(limits: limits)
        for port in 40001...40003 {
            driver.send("10.0.0.1:\(port)", server, seq: 1, flags: [.syn])
        }
        let connections = driver.finish()
        #expect(connections.count == 3)
        #expect(driver.reassembler.evictions == 1)
        #expect(connections[0].flags.contains(.evicted))
    }

    @Test func idleConnectionsExpire() {
        let driver = SegmentDriver()
        handshake(driver)
        driver.reassembler.expire(now: Timestamp(seconds: 1_700_000_000 + 301, nanoseconds: 0))
        #expect(driver.finished.count == 1)
        #expect(driver.finished[0].flags.contains(.idleTimeout))
        #expect(driver.reassembler.connectionCount == 0)
    }
}

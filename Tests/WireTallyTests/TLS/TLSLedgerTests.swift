import Testing
@testable import WireTally

/// The TLS analysis through the real reassembler and ledger, on hand-made TCP segments.
@Suite struct TLSLedgerTests {
    let client = "10.0.0.1:40000"
    let server = "10.0.0.2:443"

    /// Sends `steps` as one segment each with correct sequence/ack numbers, then a FIN exchange.
    func drive(_ steps: [(FlowDirection, [UInt8])], teardown: Bool = true) -> (TCPConnection, TLSConnectionAnalysis) {
        let driver = SegmentDriver(makeConsumer: { TLSConnectionAnalysis() })
        var seq: [UInt32] = [1001, 5001]
        driver.send(client, server, seq: 1000, flags: [.syn])
        driver.send(server, client, seq: 5000, ack: 1001, flags: [.syn, .ack])
        driver.send(client, server, seq: 1001, ack: 5001, flags: [.ack])
        for (direction, bytes) in steps {
            let (from, to) = direction == .up ? (client, server) : (server, client)
            driver.send(from, to, seq: seq[direction.rawValue], ack: seq[1 - direction.rawValue], flags: [.ack, .psh], payload: bytes)
            seq[direction.rawValue] &+= UInt32(bytes.count)
            // The peer acknowledges.
            driver.send(to, from, seq: seq[1 - direction.rawValue], ack: seq[direction.rawValue], flags: [.ack])
        }
        if teardown {
            driver.send(client, server, seq: seq[0], ack: seq[1], flags: [.fin, .ack])
            driver.send(server, client, seq: seq[1], ack: seq[0] + 1, flags: [.fin, .ack])
            driver.send(client, server, seq: seq[0] + 1, ack: seq[1] + 1, flags: [.ack])
        }
        let connection = driver.finish()[0]
        return (connection, connection.consumer as! TLSConnectionAnalysis)
    }

    func checkConserved(_ connection: TCPConnection, _ tls: TLSConnectionAnalysis) {
        TLSCaptureRun.checkConservation(TLSCaptureRun.Connection(connection: connection, tls: tls))
    }

    @Test func handshakeAndBurstsAreOwnedByTheirExchanges() {
        let (connection, tls) = drive(TLS12Conversation.steps)
        checkConserved(connection, tls)
        #expect(tls.exchangeCount == 2)
        let ledger = connection.ledger
        // Exchange 0: TCP setup, the TLS handshake (3 client segments incl. ClientHello and Finished), request 1.
        #expect(ledger.exchange(0).tally(.up).setup.packets == 2)
        let handshakeAndRequest = TLS12Conversation.steps[0 ... 4].filter { $0.0 == .up }.reduce(0) { $0 + $1.1.count }
        #expect(ledger.exchange(0).tally(.up).payload.payloadBytes == handshakeAndRequest)
        #expect(ledger.exchange(1).tally(.up).payload.payloadBytes == TLS12Conversation.steps[6].1.count + TLS12Conversation.steps[8].1.count)
        #expect(ledger.exchange(1).tally(.down).payload.payloadBytes == TLS12Conversation.steps[7].1.count)
        #expect(ledger.unattributed(.up).payloadBytes == 0 && ledger.unattributed(.down).payloadBytes == 0)
        // The exchanges' message totals equal the payload the ledger gave their bursts.
        let exchanges = tls.exchanges
        #expect(exchanges[1].request!.bytes.total + exchanges[1].response!.bytes.total
            == ledger.exchange(1).tally(.up).total.payloadBytes + ledger.exchange(1).tally(.down).total.payloadBytes)
    }

    @Test func handshakeOnlyConnectionHasNoPhantomExchange() {
        let steps = Array(TLS12Conversation.steps[0 ... 3])
        let (connection, tls) = drive(steps)
        checkConserved(connection, tls)
        #expect(tls.exchangeCount == 0)
        #expect(connection.ledger.exchanges.isEmpty)
        for direction in FlowDirection.allCases {
            #expect(connection.ledger.unattributed(direction) == connection.ledger.tally(direction).total)
        }
        #expect(tls.session.clientFinishedOrigin != nil)
    }

    @Test func openConnectionAtTheEndIsConserved() {
        let (connection, tls) = drive(Array(TLS12Conversation.steps[0 ... 5]), teardown: false)
        checkConserved(connection, tls)
        #expect(tls.exchangeCount == 1)
    }

    @Test func notTLSStaysUnattributed() {
        let (connection, tls) = drive([(.up, Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)), (.down, Array("HTTP/1.1 204 No Content\r\n\r\n".utf8))])
        checkConserved(connection, tls)
        #expect(tls.exchangeCount == 0 && tls.session.lostAt == [0, 0])
    }
}

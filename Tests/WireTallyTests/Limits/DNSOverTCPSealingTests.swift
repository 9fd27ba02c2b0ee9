import Foundation
import Testing
@testable import WireTally

/// One DNS-over-TCP connection carrying a great many query/response pairs (a resolver's long-lived
/// upstream connection, or a hostile capture): each transaction's record is written once the ledger
/// seals its exchange (its response framed and acknowledged, the next query begun), with the packets
/// the connection's end would have given it, and dropped from the connection and the analyzer, so
/// memory does not grow with the transactions.
@Suite(.serialized) struct DNSOverTCPSealingTests {
    static let transactionCount = 50_000
    static let client = "10.1.0.1:40000", server = "10.1.0.2:53"

    /// Message `index`: the query for `q<index>.example`, or its response with one address.
    static func message(_ index: Int, response: Bool) -> [UInt8] {
        let id = UInt16(truncatingIfNeeded: index), name = "q\(index).example"
        return response ? DNSMessageBuilder.response(id: id, name, addresses: ["192.0.2.1"]) : DNSMessageBuilder.query(id: id, name)
    }

    /// `message` framed for TCP: its 2-byte length, then the message.
    static func framed(_ index: Int, response: Bool) -> [UInt8] {
        let bytes = message(index, response: response)
        return FrameBuilder.be16(UInt16(bytes.count)) + bytes
    }

    /// Checks each `dns` record as it comes (without keeping it) and what the connection kept.
    final class CheckingWriter: RecordWriter {
        var transactions = 0, connections = 0, wrong: [String] = []
        var transactionIPBytes = 0, keptWireEntries = Int.max, mergedThrough = -1
        var conservedByTransactions = false, ledgerConserved = false

        func write(_ record: AnalysisRecord, timestampDigits: Int) {
            switch record {
            case let .dns(transaction):
                check(transaction)
                transactionIPBytes += transaction.wire.ipBytes
                transactions += 1
            case let .connection(connection):
                connections += 1
                keptWireEntries = connection.ledger.exchanges.count
                ledgerConserved = connection.ledger.isConserved
                // The runs of the written transactions merged into one, owned by the last merged.
                mergedThrough = (connection.consumer as? DNSOverTCPConsumer)?.ownership(.up).owner(at: 0).exchange ?? -1
                let total = connection.ledger.tally(.up).total.ipBytes + connection.ledger.tally(.down).total.ipBytes
                let rest = connection.ledger.unattributed(.up).ipBytes + connection.ledger.unattributed(.down).ipBytes
                conservedByTransactions = transactionIPBytes + rest == total
            default:
                break
            }
        }

        /// Transaction k: its query, its response (acknowledging the query) and the client's ACK; the
        /// first also has the handshake, the last the teardown (3 packets each).
        private func check(_ transaction: DNSTransaction) {
            let index = transactions
            let queryPayload = DNSOverTCPSealingTests.framed(index, response: false).count
            let responsePayload = DNSOverTCPSealingTests.framed(index, response: true).count
            let (first, last) = (index == 0, index == DNSOverTCPSealingTests.transactionCount - 1)
            let extraPackets = (first ? 3 : 0) + (last ? 3 : 0)
            let headers = 14 + 20 + 20
            if transaction.connectionIndex != index || transaction.connectionID != 1 || !transaction.flags.isEmpty
                || transaction.question?.name != "q\(index).example"
                || transaction.wire.packets != 3 + extraPackets
                || transaction.wire.payloadBytes != queryPayload + responsePayload
                || transaction.wire.frameBytes != queryPayload + responsePayload + (3 + extraPackets) * headers
                || transaction.responseWire.packets != 1 + (first ? 1 : 0) + (last ? 1 : 0)  // SYN-ACK, FIN
                || transaction.responseWire.payloadBytes != responsePayload
            {
                if wrong.count < 5 { wrong.append("transaction \(index): \(transaction)") }
            }
        }

        func finish(summary: CaptureSummary, files: [String]) {}
    }

    @Test func transactionsAreWrittenAsTheyAreSealedAndDropped() throws {
        let path = LimitTestSupport.temporaryPath("dns-over-tcp.pcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let connection = try StreamedConnectionWriter(path: path, client: Self.client, server: Self.server)
        try connection.handshake()
        for index in 0..<Self.transactionCount {
            try connection.send(.up, Self.framed(index, response: false))
            try connection.send(.down, Self.framed(index, response: true))
            try connection.acknowledge(from: .up)
        }
        try connection.close()

        let writer = CheckingWriter()
        let result = AnalysisRun(files: [path]).run(writer: writer)
        #expect(result.summary.errors.isEmpty)
        #expect(result.summary.isConserved)
        #expect(result.summary.dnsTransactions == Self.transactionCount)
        #expect(writer.transactions == Self.transactionCount)
        #expect(writer.wrong.isEmpty, "\(writer.wrong)")
        #expect(writer.connections == 1)
        #expect(writer.ledgerConserved && writer.conservedByTransactions)
        // (and those of the last linger: at most one per frame within it)
        let lingering = StreamedConnectionWriter.framesWithinLinger
        #expect(writer.keptWireEntries <= 2 + lingering, "kept \(writer.keptWireEntries) ledger entries")
        #expect(writer.mergedThrough >= Self.transactionCount - 2 - lingering, "runs merged through \(writer.mergedThrough)")
    }

    /// A client whose queries are never answered (only acknowledged): once more queries than the
    /// tracker keeps waiting follow one, the tracker reported it `evicted` and its exchange is sealed,
    /// written and dropped, so the connection keeps at most that many.
    @Test func unansweredQueriesBeyondTheTrackerCapAreDropped() throws {
        let path = LimitTestSupport.temporaryPath("dns-over-tcp-unanswered.pcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let queries = 70_000, waiting = 65_536
        let connection = try StreamedConnectionWriter(path: path, client: Self.client, server: Self.server)
        try connection.handshake()
        for index in 0..<queries {
            try connection.send(.up, Self.framed(index, response: false))
            try connection.acknowledge(from: .down)
        }
        try connection.close()

        final class Writer: RecordWriter {
            var beforeConnection: [DNSTransaction] = [], afterConnection = 0, keptWireEntries = Int.max
            var conserved = false
            func write(_ record: AnalysisRecord, timestampDigits: Int) {
                switch record {
                case let .dns(transaction) where keptWireEntries == .max: beforeConnection.append(transaction)
                case .dns: afterConnection += 1
                case let .connection(connection):
                    keptWireEntries = connection.ledger.exchanges.count
                    conserved = connection.ledger.isConserved
                default: break
                }
            }
            func finish(summary: CaptureSummary, files: [String]) {}
        }
        let writer = Writer()
        let result = AnalysisRun(files: [path]).run(writer: writer)
        #expect(result.summary.isConserved && writer.conserved)
        #expect(result.summary.dnsTransactions == queries)
        // The evicted ones are written with their connection as they are sealed; the queries still
        // waiting when the capture ends, at its end (after their connection, as before sealing).
        #expect(writer.beforeConnection.count == queries - waiting && writer.afterConnection == waiting)
        #expect(writer.keptWireEntries <= waiting + 1, "kept \(writer.keptWireEntries) ledger entries")
        let evicted = writer.beforeConnection.prefix { $0.flags.contains(.evicted) }
        #expect(evicted.count == queries - waiting)
        #expect(evicted.enumerated().allSatisfy { index, transaction in
            transaction.connectionIndex == index && transaction.question?.name == "q\(index).example"
                && transaction.wire.packets == 2 + (index == 0 ? 3 : 0)  // query, server's ACK (+ handshake)
                && transaction.wire.payloadBytes == Self.framed(index, response: false).count
        })
    }

    /// A transaction's record comes when the next query shows its exchange is over, not at the
    /// connection's end; the last one at the end, with the teardown. Packets are 1 ms apart and each
    /// query after the first comes 10 ms after the previous transaction: past its linger (the 5 ms
    /// floor; the handshake's round trip is 2 ms).
    @Test func eachTransactionIsWrittenWhenTheNextQueryBegins() {
        let (c, s) = (Self.client, Self.server)
        var steps: [ExchangeSealingTests.Step] = []
        var milliseconds = 0.0
        func add(_ frame: [UInt8], after gap: Double = 1) {
            milliseconds += gap
            steps.append(ExchangeSealingTests.Step(frame: frame, seconds: 1_700_000_000 + milliseconds / 1000))
        }
        var up = UInt32(101), down = UInt32(501)
        add(FrameBuilder.tcp(from: c, to: s, seq: up - 1, flags: [.syn]))
        add(FrameBuilder.tcp(from: s, to: c, seq: down - 1, ack: up, flags: [.syn, .ack]))
        add(FrameBuilder.tcp(from: c, to: s, seq: up, ack: down))
        var queryPackets: [Int] = []
        for index in 0..<3 {
            let query = Self.framed(index, response: false), response = Self.framed(index, response: true)
            add(FrameBuilder.tcp(from: c, to: s, seq: up, ack: down, flags: [.ack, .psh], payload: query), after: index == 0 ? 1 : 10)
            queryPackets.append(steps.count)
            up += UInt32(query.count)
            add(FrameBuilder.tcp(from: s, to: c, seq: down, ack: up, flags: [.ack, .psh], payload: response))
            down += UInt32(response.count)
            add(FrameBuilder.tcp(from: c, to: s, seq: up, ack: down))
        }
        add(FrameBuilder.tcp(from: c, to: s, seq: up, ack: down, flags: [.ack, .fin]))
        add(FrameBuilder.tcp(from: s, to: c, seq: down, ack: up + 1, flags: [.ack, .fin]))
        add(FrameBuilder.tcp(from: c, to: s, seq: up + 1, ack: down + 1))

        let emitted = ExchangeSealingTests.analyze(steps)
        let dns = emitted.records.filter { $0.json.string("type") == "dns" }
        let connection = emitted.records.first { $0.json.string("type") == "connection" }
        #expect(dns.map(\.afterPackets) == [queryPackets[1], queryPackets[2], steps.count])
        #expect(dns.map { $0.json.int("conn.index") } == [0, 1, 2])
        #expect(dns.map { $0.json.int("wire.packets") } == [6, 3, 6])
        #expect(connection?.afterPackets == steps.count)
        #expect(emitted.summary.isConserved)
    }
}

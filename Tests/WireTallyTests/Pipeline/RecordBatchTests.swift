import Testing
@testable import WireTally

/// A `RecordBatch` hands the writer only the round it was filled with, and drops the last round's
/// records on the analysing thread: exchange records one at a time as the next round's take their
/// slots, a round holding any other record all at once when the batch is reused.
struct RecordBatchTests {
    @Test func exchangeRecordsAreDroppedAsTheirSlotsAreRefilled() {
        let batch = RecordBatch()
        weak var first: ExchangeRecord?
        weak var second: ExchangeRecord?
        do {
            let records = [Self.exchangeRecord(id: 1), Self.exchangeRecord(id: 2)]
            first = records[0]
            second = records[1]
            for record in records { batch.append(.exchange(record), timestampDigits: 6) }
        }
        #expect(Self.ids(in: batch) == [1, 2])
        batch.reuse()
        #expect(first != nil && second != nil)
        #expect(Self.ids(in: batch).isEmpty)

        batch.append(.exchange(Self.exchangeRecord(id: 3)), timestampDigits: 3)
        #expect(first == nil)
        #expect(second != nil)
        #expect(Self.ids(in: batch) == [3])
        #expect(Self.digits(in: batch) == [3])
    }

    @Test func aRoundWithAnotherRecordIsDroppedWhenReused() {
        let batch = RecordBatch()
        weak var kept: ExchangeRecord?
        do {
            let record = Self.exchangeRecord(id: 1)
            kept = record
            batch.append(.exchange(record), timestampDigits: 6)
        }
        batch.append(.dns(Self.dnsTransaction()), timestampDigits: 6)
        batch.reuse()
        #expect(kept == nil)
        #expect(Self.ids(in: batch).isEmpty)
    }

    @Test func aShorterRoundLeavesTheRestForLaterRounds() {
        let batch = RecordBatch()
        for id in 1...4 { batch.append(.exchange(Self.exchangeRecord(id: id)), timestampDigits: id) }
        batch.reuse()
        batch.append(.exchange(Self.exchangeRecord(id: 5)), timestampDigits: 5)
        #expect(Self.ids(in: batch) == [5])
        batch.reuse()
        for id in 6...10 { batch.append(.exchange(Self.exchangeRecord(id: id)), timestampDigits: id) }
        #expect(Self.ids(in: batch) == Array(6...10))
        #expect(Self.digits(in: batch) == Array(6...10))
    }

    private static func ids(in batch: RecordBatch) -> [Int] {
        var ids: [Int] = []
        batch.forEachRecord { record, _ in
            if case let .exchange(exchangeRecord) = record { ids.append(exchangeRecord.id) }
        }
        return ids
    }

    private static func digits(in batch: RecordBatch) -> [Int] {
        var digits: [Int] = []
        batch.forEachRecord { _, recordDigits in digits.append(recordDigits) }
        return digits
    }

    private static func exchangeRecord(id: Int) -> ExchangeRecord {
        let connection = ExchangeConnection(
            transport: .tcp, id: 1, client: IPAddress("10.0.0.1")!, clientPort: 5000, server: IPAddress("10.0.0.2")!,
            serverPort: 80, firstTimestamp: Timestamp(nanoseconds: 0), owner: nil, wire: ExchangeWire(), tlsSession: nil,
            protection: .cleartext)
        return ExchangeRecord(HTTPExchange(index: id - 1), id: id, connection: connection)
    }

    private static func dnsTransaction() -> DNSTransaction {
        DNSTransaction(
            messageID: 7, client: DNSEndpoint(address: IPAddress("10.0.0.1")!, port: 5000),
            server: DNSEndpoint(address: IPAddress("10.0.0.53")!, port: 53), transport: .udp, question: nil)
    }
}

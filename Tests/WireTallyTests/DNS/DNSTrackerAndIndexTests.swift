import Testing
@testable import WireTally

@Suite struct DNSTrackerAndIndexTests {
    private let client = DNSEndpoint(address: IPAddress("10.0.0.1")!, port: 40000)
    private let server = DNSEndpoint(address: IPAddress("10.0.0.53")!, port: 53)
    private let otherServer = DNSEndpoint(address: IPAddress("10.0.0.54")!, port: 53)

    private func at(_ milliseconds: Int64) -> Timestamp { Timestamp(nanoseconds: 1_000_000_000_000 + milliseconds * 1_000_000) }

    private func feed(_ tracker: DNSTrackerHarness, _ bytes: [UInt8], from: DNSEndpoint, to: DNSEndpoint, at time: Timestamp) {
        tracker.tracker.observe(parseDNS(bytes)!, from: from, to: to, transport: .udp, timestamp: time,
                                wire: TrafficCounters(packets: 1, ipBytes: 28 + bytes.count, frameBytes: 42 + bytes.count, payloadBytes: bytes.count))
    }

    @Test func retryAndSeveralServers() {
        let harness = DNSTrackerHarness()
        let query = DNSMessageBuilder.query(id: 5, "a.example")
        feed(harness, query, from: client, to: server, at: at(0))
        feed(harness, query, from: client, to: server, at: at(1000))  // retry
        feed(harness, query, from: client, to: otherServer, at: at(1500))  // asked elsewhere too
        feed(harness, DNSMessageBuilder.response(id: 5, "a.example", addresses: ["192.0.2.7"]), from: server, to: client, at: at(1010))
        #expect(harness.finished.count == 1)
        let answered = harness.finished[0]
        #expect(answered.retries == 1)
        #expect(answered.queryTimestamp == at(0))
        #expect(answered.rttNanoseconds == 1_010_000_000)
        #expect(answered.wire.packets == 3)
        harness.tracker.expire(now: at(40_000))
        #expect(harness.finished.count == 2)
        #expect(harness.finished[1].server == otherServer)
        #expect(harness.finished[1].flags == .noResponse)
        #expect(harness.finished[1].response == nil)
    }

    @Test func responseWithoutQueryAndMismatchedQuestion() {
        let harness = DNSTrackerHarness()
        feed(harness, DNSMessageBuilder.query(id: 9, "q.example"), from: client, to: server, at: at(0))
        // Same id, other question: not this query's answer.
        feed(harness, DNSMessageBuilder.response(id: 9, "other.example", addresses: ["192.0.2.1"]), from: server, to: client, at: at(1))
        #expect(harness.finished.map(\.flags) == [.noQuery])
        #expect(harness.finished[0].queryTimestamp == nil && harness.finished[0].rttNanoseconds == nil)
        harness.tracker.finishAll()
        #expect(harness.finished.map(\.flags) == [.noQuery, .noResponse])
        #expect(harness.finished.map(\.id) == [1, 2])
    }

    @Test func bothCopiesOfARetryAnswered() {
        let harness = DNSTrackerHarness()
        let query = DNSMessageBuilder.query(id: 6, "slow.example")
        let response = DNSMessageBuilder.response(id: 6, "slow.example", addresses: ["192.0.2.6"])
        feed(harness, query, from: client, to: server, at: at(0))
        feed(harness, query, from: client, to: server, at: at(1000))
        feed(harness, response, from: server, to: client, at: at(1100))
        feed(harness, response, from: server, to: client, at: at(1101))
        #expect(harness.finished.map(\.flags) == [[], .duplicateResponse])
        #expect(harness.finished[0].retries == 1 && harness.finished[0].rttNanoseconds == 1_100_000_000)
        #expect(harness.finished[1].wire.packets == 1)
        #expect(harness.index.count == 1)
        #expect(harness.index.lookup(name: "slow.example", before: at(2000))?.transactionID == harness.finished[0].id)
        // Once the first query is older than the timeout, another answer has no query any more.
        harness.tracker.expire(now: at(40_000))
        feed(harness, response, from: server, to: client, at: at(40_001))
        #expect(harness.finished.last?.flags == .noQuery)
        // A new query reusing the id is a new transaction.
        feed(harness, query, from: client, to: server, at: at(41_000))
        feed(harness, response, from: server, to: client, at: at(41_002))
        #expect(harness.finished.last?.flags == [])
        #expect(harness.finished.last?.rttNanoseconds == 2_000_000)
    }

    @Test func tooManyWaitingQueriesEvictTheOldest() {
        let harness = DNSTrackerHarness(maximumPending: 3)
        for id in 0..<5 { feed(harness, DNSMessageBuilder.query(id: UInt16(id), "q\(id).example"), from: client, to: server, at: at(Int64(id))) }
        #expect(harness.finished.map(\.messageID) == [0, 1])
        #expect(harness.finished.allSatisfy { $0.flags == [.noResponse, .evicted] })
        harness.tracker.finishAll()
        #expect(harness.finished.map(\.messageID) == [0, 1, 2, 3, 4])
        #expect(harness.finished.map(\.id) == [1, 2, 3, 4, 5])
    }

    @Test func indexFindsTheLatestAnswerBeforeATime() {
        let harness = DNSTrackerHarness()
        feed(harness, DNSMessageBuilder.query(id: 1, "Shop.Example"), from: client, to: server, at: at(0))
        feed(harness, DNSMessageBuilder.response(id: 1, "shop.example", addresses: ["192.0.2.10"]), from: server, to: client, at: at(5))
        feed(harness, DNSMessageBuilder.query(id: 2, "cdn.example"), from: client, to: server, at: at(100))
        feed(harness, DNSMessageBuilder.response(id: 2, "cdn.example", addresses: ["192.0.2.10", "192.0.2.11"]), from: server, to: client, at: at(107))
        feed(harness, DNSMessageBuilder.query(id: 3, "gone.example"), from: client, to: server, at: at(200))
        feed(harness, DNSMessageBuilder.response(id: 3, "gone.example", rcode: 3), from: server, to: client, at: at(201))
        let index = harness.index
        #expect(index.count == 2)
        #expect(index.lookup(address: IPAddress("192.0.2.10")!, before: at(4)) == nil)
        #expect(index.lookup(address: IPAddress("192.0.2.10")!, before: at(50))?.name == "shop.example")
        let latest = index.lookup(address: IPAddress("192.0.2.10")!, before: at(500))
        #expect(latest?.name == "cdn.example")
        #expect(latest?.transactionID == 2)
        #expect(latest?.queryTimestamp == at(100))
        #expect(latest?.answerTimestamp == at(107))
        #expect(index.lookup(name: "SHOP.example.:443", before: at(500))?.transactionID == 1)
        #expect(index.lookup(name: "gone.example", before: at(500)) == nil)
    }

    /// A resolver asks A and AAAA from one socket and connects after both answers: the lookup ends
    /// with the later one, whichever came first and even when it had no address (curl's
    /// `time_namelookup` on the `latency` capture: 145 ms, the A answer alone 87 ms).
    @Test(arguments: [false, true])
    func lookupEndsWithTheLastAnswerOfTheSameSocket(emptyAnswerFirst: Bool) {
        let harness = DNSTrackerHarness()
        let other = DNSEndpoint(address: client.address, port: 40001)
        feed(harness, DNSMessageBuilder.query(id: 1, "far.example"), from: client, to: server, at: at(0))
        feed(harness, DNSMessageBuilder.query(id: 2, "far.example", type: 28), from: client, to: server, at: at(1))
        let addressed = DNSMessageBuilder.response(id: 1, "far.example", addresses: ["192.0.2.20"])
        let empty = DNSMessageBuilder.response(id: 2, "far.example", type: 28)
        feed(harness, emptyAnswerFirst ? empty : addressed, from: server, to: client, at: at(30))
        feed(harness, emptyAnswerFirst ? addressed : empty, from: server, to: client, at: at(88))
        // a later lookup from another socket is a lookup of its own
        feed(harness, DNSMessageBuilder.query(id: 3, "far.example", type: 28), from: other, to: server, at: at(200))
        feed(harness, DNSMessageBuilder.response(id: 3, "far.example", type: 28), from: server, to: other, at: at(230))
        let resolution = harness.index.lookup(address: IPAddress("192.0.2.20")!, before: at(500))
        #expect(resolution?.queryTimestamp == at(0))
        #expect(resolution?.answerTimestamp == (emptyAnswerFirst ? at(88) : at(30)))
        #expect(resolution?.lookupEndTimestamp == at(88))
    }

    @Test func indexForgetsTheOldestBeyondItsCapacity() {
        let index = DNSAnswerIndex(capacity: 3)
        for number in 0..<10 {
            var transaction = DNSTransaction(
                messageID: UInt16(number), client: client, server: server, transport: .udp,
                question: DNSQuestion(name: "h\(number).example", type: .a))
            transaction.id = number + 1
            transaction.queryTimestamp = at(Int64(number))
            transaction.answerTimestamp = at(Int64(number))
            transaction.response = parseDNS(DNSMessageBuilder.response(id: UInt16(number), "h\(number).example", addresses: ["192.0.2.1"]))
            index.add(transaction)
        }
        #expect(index.count == 3)
        #expect(index.lookup(name: "h6.example", before: at(100)) == nil)
        #expect(index.lookup(name: "h7.example", before: at(100))?.transactionID == 8)
        #expect(index.lookup(address: IPAddress("192.0.2.1")!, before: at(100))?.transactionID == 10)
        #expect(index.lookup(address: IPAddress("192.0.2.1")!, before: at(7))?.transactionID == 8)
        #expect(index.lookup(address: IPAddress("192.0.2.1")!, before: at(6)) == nil)
    }
}

/// A tracker with its index, collecting what it finishes.
final class DNSTrackerHarness {
    let index = DNSAnswerIndex()
    private(set) var finished: [DNSTransaction] = []
    private let maximumPending: Int
    private(set) lazy var tracker = DNSTransactionTracker(answers: index, maximumPending: maximumPending) { [unowned self] in
        finished.append($0)
    }

    init(maximumPending: Int = 65_536) { self.maximumPending = maximumPending }
}

import Testing
@testable import WireTally

/// Dropping a connection's reported exchanges: indices stay, ownership keeps what late packets need,
/// late parser events for dropped exchanges are ignored.
@Suite struct ExchangeDiscardingTests {
    @Test func indicesStayWhenThePrefixIsDiscarded() {
        var array = PrefixDiscardingArray<Int>()
        for value in 0..<10 { array.append(value * 10) }
        array.discard(before: 3)
        #expect(array.startIndex == 3 && array.endIndex == 10 && array.count == 7)
        #expect(array[3] == 30 && array[9] == 90)
        array.discard(before: 8)  // more than half dead: freed
        #expect(Array(array) == [80, 90])
        array.discard(before: 2)  // earlier than the start: nothing changes
        #expect(array.startIndex == 8)
        array.discard(before: 12)  // beyond the end: the next element appended gets index 12
        #expect(array.isEmpty && array.endIndex == 12)
        array.append(120)
        #expect(array[12] == 120 && array.startIndex == 12)
    }

    /// A keep-alive connection: one element appended and the one before it discarded at a time (the
    /// storage shifted on every discard); every kept element stays at its index.
    @Test func discardingOneOfTwoAtATimeKeepsEveryIndex() {
        var array = PrefixDiscardingArray<Int>()
        array.append(0)
        for value in 1..<50 {
            array.append(value)
            array.discard(before: value)
            #expect(array.startIndex == value && array.endIndex == value + 1)
            #expect(Array(array) == [value])
        }
    }

    @Test func mergedRunsKeepWhoOwnedTheFirstByte() {
        var runs = OwnershipRuns()
        runs.set(StreamOwner(exchange: 0), from: 0)
        runs.set(StreamOwner(exchange: 1), from: 10)
        runs.set(.nobody, from: 20)
        runs.set(StreamOwner(exchange: 2), from: 30)
        runs.set(StreamOwner(exchange: 3), from: 40)
        runs.set(StreamOwner(exchange: 4), from: 50)
        runs.mergeRuns(before: 4)
        // 0 and 1 are one run of an exchange, nobody stays, 2 and 3 are one run, 4 is untouched.
        #expect(!runs.run(containing: 5).owner.isNobody && runs.run(containing: 5).end == 20)
        #expect(runs.run(containing: 25) == OwnerRun(owner: .nobody, end: 30))
        #expect(!runs.run(containing: 35).owner.isNobody && runs.run(containing: 35).end == 50)
        #expect(runs.run(containing: 55) == OwnerRun(owner: StreamOwner(exchange: 4), end: .max))
        #expect(runs.start(ofExchangeAfter: 3) == 50)
        runs.set(StreamOwner(exchange: 5), from: 60)
        runs.mergeRuns(before: 5)
        #expect(runs.run(containing: 45).end == 60)
        #expect(runs.run(containing: 65).owner == StreamOwner(exchange: 5))
    }

    @Test func aMessageOfADroppedExchangeIsIgnored() {
        let analysis = HTTPConnectionAnalysis()
        let origin = PacketOrigin(frameNumber: 1, timestamp: Timestamp(nanoseconds: 0))
        for index in 0..<2 {
            for kind in [HTTPMessage.Kind.request, .response] {
                analysis.httpMessageFinished(
                    HTTPMessage(kind: kind, exchangeIndex: index, streamRange: 0..<0, status: kind == .response ? 200 : nil,
                                version: "HTTP/1.1", firstOrigin: origin, lastOrigin: origin),
                    direction: kind == .request ? .up : .down)
            }
        }
        analysis.discardExchanges(before: 1)
        // The server answered exchange 0 early; its request completes after it was dropped.
        analysis.httpMessageFinished(
            HTTPMessage(kind: .request, exchangeIndex: 0, streamRange: 0..<0, version: "HTTP/1.1",
                        firstOrigin: origin, lastOrigin: origin),
            direction: .up)
        analysis.httpUpgraded(direction: .up, from: 0, exchangeIndex: 0)
        #expect(analysis.exchangeCount == 2 && analysis.exchanges.count == 1)
        #expect(analysis.isFinal(1) && analysis.exchangeInFlight == nil)
    }

    /// `takeExchange` hands over the exchange as it was (messages included) and leaves only its index
    /// until the discard; the analysis goes on as after a discard of a copied exchange.
    @Test func aTakenExchangeIsTheExchangeAndTheDiscardFollows() {
        let analysis = HTTPConnectionAnalysis()
        let origin = PacketOrigin(frameNumber: 1, timestamp: Timestamp(nanoseconds: 0))
        for index in 0..<3 {
            analysis.httpMessageStarted(direction: .up, offset: Int64(index * 10), exchangeIndex: index)
            analysis.httpMessageFinished(
                HTTPMessage(kind: .request, exchangeIndex: index, streamRange: 0..<10, method: "GET", target: "/\(index)",
                            version: "HTTP/1.1", firstOrigin: origin, lastOrigin: origin),
                direction: .up)
            analysis.httpMessageFinished(
                HTTPMessage(kind: .response, exchangeIndex: index, streamRange: 0..<10, status: 200 + index,
                            version: "HTTP/1.1", firstOrigin: origin, lastOrigin: origin),
                direction: .down)
        }
        let taken = (0..<2).map { analysis.takeExchange($0) }
        #expect(taken.map(\.index) == [0, 1] && taken.map { $0.request?.target } == ["/0", "/1"])
        #expect(taken.map { $0.response?.status } == [200, 201] && taken.allSatisfy { !$0.isInFlight })
        #expect(analysis.exchanges[0].request == nil && analysis.exchanges[0].index == 0)  // only its index, until the discard
        analysis.discardExchanges(before: 2)
        #expect(analysis.exchangeCount == 3 && analysis.exchanges.count == 1 && analysis.exchanges[2].response?.status == 202)
        #expect(analysis.isFinal(2) && analysis.exchangeInFlight == nil)
    }

    /// The records of a run that takes each sealed exchange from its connection (the default) are the
    /// records of a run that keeps them all (and copies each for its record): recorded keep-alive,
    /// pipelined, cancelled, lossy and h2c-upgraded connections.
    @Test(arguments: ["nginx-wrk.pcap", "nginx-pipelining.pcap", "nginx-curl-keepalive.pcap", "cancel.pcap", "lossy.pcap", "h2-upgrade.pcap"])
    func takenExchangesGiveTheRecordsOfKeptOnes(_ capture: String) {
        var keeping = CaptureAnalyzer.Options()
        keeping.keepsReportedExchanges = true
        let (taken, _) = CollectingWriter.analyze([TestPaths.capture(capture)])
        let (kept, _) = CollectingWriter.analyze([TestPaths.capture(capture)], options: keeping)
        #expect(!taken.exchanges.isEmpty)
        #expect(taken.exchanges == kept.exchanges)
        #expect(taken.connections == kept.connections)
    }
}

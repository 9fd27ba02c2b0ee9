import Testing
@testable import WireTally

/// Fixed interleaved owners, as HTTP/2 frames of several streams give them: the ledger splits packets
/// carrying bytes of several owners by share.
final class InterleavedAttribution: StreamAttribution {
    var runs = OwnershipRuns()
    let examined: Int64
    let exchangeCount: Int

    /// `owners`: (owner, length) in stream order, the same for both directions.
    init(_ owners: [(Int, Int64)]) {
        var offset: Int64 = 0
        for (owner, length) in owners {
            runs.set(owner < 0 ? .nobody : StreamOwner(exchange: owner), from: offset)
            offset += length
        }
        examined = offset
        exchangeCount = (owners.map(\.0).max() ?? -1) + 1
    }

    func examinedLength(_ direction: FlowDirection) -> Int64 { examined }
    func ownership(_ direction: FlowDirection) -> OwnershipRuns { runs }
    var exchangeInFlight: Int? { nil }
    var splitsPacketsByShare: Bool { true }
}

@Suite struct ShareSplitTests {
    @Test func largestRemainderAddsUpAndFavoursTheLargestRemainders() {
        #expect(LargestRemainder.split(66, by: [100, 50]) == [44, 22])
        #expect(LargestRemainder.split(1, by: [30, 70, 70]) == [0, 1, 0])  // the packet: largest share, first of equals
        #expect(LargestRemainder.split(10, by: [1, 1, 1]) == [4, 3, 3])
        #expect(LargestRemainder.split(-5, by: [1, 3]) == [-1, -4])
        #expect(LargestRemainder.split(7, by: [0, 0]) == [7, 0])
        var generator = SeededGenerator(state: 15)
        for _ in 0 ..< 1000 {
            let weights = (0 ..< Int.random(in: 1 ... 6, using: &generator)).map { _ in Int.random(in: 0 ... 20_000, using: &generator) }
            let total = Int.random(in: 0 ... 1_000, using: &generator)
            let parts = LargestRemainder.split(total, by: weights)
            #expect(parts.reduce(0, +) == total)
            let sum = weights.reduce(0, +)
            if sum > 0 {
                for (part, weight) in zip(parts, weights) { #expect(abs(Double(part) - Double(total * weight) / Double(sum)) < 1) }
            }
        }
    }

    /// A 1,000-byte packet (52 bytes of TCP/IP headers, 66 of frame headers) carrying 500 bytes of
    /// exchange 0, 300 of exchange 1, 200 of exchange 0 again: exchange 0 gets 700 payload bytes, 70 % of
    /// the overhead rounded down (36.4 → 36 IP bytes, 46.2 → 46 frame bytes) and the packet; exchange 1
    /// 30 % (15.6, 19.8), and the byte left at each level (its remainder is the larger).
    @Test func aPacketOfSeveralStreamsIsSplitByShare() {
        let attribution = InterleavedAttribution([(0, 500), (1, 300), (0, 200)])
        var ledger = ConnectionLedger()
        let counters = TrafficCounters(packets: 1, ipBytes: 1052, frameBytes: 1066, payloadBytes: 1000)
        ledger.record(LedgerPacket(direction: .down, category: .payload, counters: counters, streamRange: 0 ..< 1000),
                      attribution: attribution)
        let first = ledger.exchange(0).tally(.down).total, second = ledger.exchange(1).tally(.down).total
        #expect(first == TrafficCounters(packets: 1, ipBytes: 700 + 36, frameBytes: 700 + 46, payloadBytes: 700))
        #expect(second == TrafficCounters(packets: 0, ipBytes: 300 + 16, frameBytes: 300 + 20, payloadBytes: 300))
        #expect(first + second == counters)
    }

    /// Unattributed bytes take their share too; random packets over random interleavings always add up.
    @Test func sharesAlwaysAddUp() {
        var generator = SeededGenerator(state: 2)
        for _ in 0 ..< 200 {
            var owners: [(Int, Int64)] = []
            for _ in 0 ..< Int.random(in: 1 ... 12, using: &generator) {
                owners.append((Int.random(in: -1 ... 3, using: &generator), Int64.random(in: 1 ... 400, using: &generator)))
            }
            let attribution = InterleavedAttribution(owners)
            var ledger = ConnectionLedger()
            var offset: Int64 = 0
            while offset < attribution.examined {
                let length = min(attribution.examined - offset, Int64.random(in: 1 ... 1448, using: &generator))
                let payload = Int(length)
                ledger.record(LedgerPacket(direction: .up, category: .payload,
                                           counters: TrafficCounters(packets: 1, ipBytes: payload + 52, frameBytes: payload + 66, payloadBytes: payload),
                                           streamRange: offset ..< offset + length), attribution: attribution)
                offset += length
            }
            #expect(ledger.isConserved)
        }
    }
}

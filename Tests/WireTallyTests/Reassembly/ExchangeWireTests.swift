import Testing
@testable import WireTally

/// `ExchangeWire.afterClientClose`, held by reference, behaves as the value it was inline: a copy
/// does not see later counts, and never counted equals counted as zeros (equality and hash). The
/// reads the exchange's record makes in place give what the copies gave.
struct ExchangeWireTests {
    @Test func afterClientCloseIsAValue() {
        var wire = ExchangeWire()
        let counters = TrafficCounters(packets: 1, ipBytes: 60, frameBytes: 74, payloadBytes: 8)
        wire.afterClientClose.update(FlowDirection.down.rawValue) {
            $0.add(counters, as: .payload, duplicatePayloadBytes: 0)
        }
        let copy = wire
        wire.afterClientClose.update(FlowDirection.down.rawValue) {
            $0.add(counters, as: .teardown, duplicatePayloadBytes: 0)
        }
        wire.afterClientClose[FlowDirection.up.rawValue].missingBytes = 3
        #expect(copy.afterClientClose.down.payload == counters)
        #expect(copy.afterClientClose.down.teardown == TrafficCounters())
        #expect(copy.afterClientClose.up == DirectionTally())
        #expect(wire.afterClientClose.down.payload == counters)
        #expect(wire.afterClientClose.down.teardown == counters)
        #expect(wire.afterClientClose.up.missingBytes == 3)
        #expect(copy != wire)
    }

    @Test func neverCountedEqualsZeros() {
        var zeros = ExchangeWire()
        zeros.afterClientClose[FlowDirection.up.rawValue] += DirectionTally()
        #expect(zeros == ExchangeWire())
        #expect(zeros.hashValue == ExchangeWire().hashValue)
    }

    /// `DirectionTally.ipBytes` (the record's attributed bytes) is `total.ipBytes`.
    @Test func ipBytesAreTheTotals() {
        var tally = DirectionTally()
        for (category, ipBytes) in [(PacketCategory.setup, 60), (.payload, 1_500), (.payload, 52), (.ack, 40), (.teardown, 52)] {
            tally.add(TrafficCounters(packets: 1, ipBytes: ipBytes, frameBytes: ipBytes + 14), as: category, duplicatePayloadBytes: 0)
        }
        tally.retransmission += TrafficCounters(packets: 1, ipBytes: 1_500)
        #expect(tally.ipBytes == 3_204)
        #expect(tally.ipBytes == tally.total.ipBytes)
        #expect(DirectionTally().ipBytes == 0)
    }

    /// `payloadTimes(_:)` (what the timing reads) is the wire's, zeros past the last exchange counted.
    @Test func payloadTimesReadInPlaceAreTheWires() {
        var wires = PrefixDiscardingArray<ExchangeWire>()
        for index in 0..<3 {
            var wire = ExchangeWire()
            wire.notePayload(at: Timestamp(nanoseconds: Int64(10 * index + 1)), direction: .up)
            wire.notePayload(at: Timestamp(nanoseconds: Int64(10 * index + 5)), direction: .down)
            wire.notePayload(at: Timestamp(nanoseconds: Int64(10 * index + 2)), direction: .down)
            wires.append(wire)
        }
        wires.discard(before: 1)
        for index in 1..<3 { #expect(wires.payloadTimes(index) == wires.wire(index).payloadTimes) }
        #expect(wires.payloadTimes(2).down == Timestamp(nanoseconds: 22)...Timestamp(nanoseconds: 25))
        #expect(wires.payloadTimes(3) == DirectionPair(nil, nil))
    }
}

import Testing
@testable import WireTally

/// `ExchangeWire.afterClientClose`, held by reference, behaves as the value it was inline: a copy
/// does not see later counts, and never counted equals counted as zeros (equality and hash).
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
}

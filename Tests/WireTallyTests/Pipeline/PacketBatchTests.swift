import Testing
@testable import WireTally

/// A batch's slots, filled where they lie (`PacketBatch.add`): each holds its packet and what the
/// decoder gives for it, fragments left undecoded for the analysing thread.
@Suite struct PacketBatchTests {
    /// Every packet of every recorded capture, copied into batches (handed over as they fill) with a
    /// decoder: the slots keep the packets in order, and each decoded slot matches a decoder of its own.
    @Test func slotsHoldThePacketsAndTheirDecoding() throws {
        for path in TestPaths.files(in: TestPaths.captures, endingWith: [".pcap", ".pcapng"]).map(TestPaths.capture) {
            var source = try CaptureFile.open(path: path)
            let reference = PacketDecoder()
            let decoder = PacketDecoder()
            var batch = PacketBatch()
            var expected: [(OwnedPacket, FrameSummary, isFragment: Bool)] = []
            var compared = 0
            func compare() {
                #expect(batch.slots.count == expected.count, "\(path)")
                for (slot, (packet, summary, isFragment)) in zip(batch.slots, expected) {
                    #expect(OwnedPacket(slot.packet) == packet, "\(path)")
                    #expect(slot.isDecoded == !isFragment, "\(path) frame \(packet.frameNumber)")
                    if slot.isDecoded { #expect(FrameSummary(slot.decoded) == summary, "\(path) frame \(packet.frameNumber)") }
                }
                compared += expected.count
                expected.removeAll()
                batch = PacketBatch()
            }
            while let packet = try source.nextPacket() {
                let summary = reference.summary(of: packet)
                let isFragment = isIPFragment(packet)
                if !batch.append(packet, decoder: decoder) {
                    compare()
                    #expect(batch.append(packet, decoder: decoder))
                }
                expected.append((OwnedPacket(packet), summary, isFragment))
            }
            compare()
            #expect(compared > 0, "\(path)")
        }
    }

    /// True when a decoder deferring fragments leaves `packet` alone.
    private func isIPFragment(_ packet: CapturedPacket) -> Bool {
        var decoded = DecodedPacket.heldFragment
        return !PacketDecoder().decodeUnlessFragment(packet, into: &decoded)
    }
}

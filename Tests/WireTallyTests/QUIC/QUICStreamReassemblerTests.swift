import Testing
@testable import WireTally

/// QUIC stream data put back in order: every byte delivered once and in order whatever the order,
/// overlap and repetition of the frames; new and duplicate bytes counted per frame; a hole past the
/// buffer cap given up as a gap.
@Suite struct QUICStreamReassemblerTests {
    private struct Delivery: Equatable {
        var offset: UInt64
        var bytes: [UInt8]
        var fin: Bool
    }

    private final class Sink {
        var deliveries: [Delivery] = []
        var gaps: [(UInt64, UInt64)] = []
        var stream: [UInt8] { deliveries.flatMap(\.bytes) }
    }

    private static let origin = PacketOrigin(frameNumber: 1, timestamp: Timestamp(nanoseconds: 0))

    private static func add(
        _ reassembler: inout QUICStreamReassembler, _ offset: UInt64, _ bytes: [UInt8], fin: Bool = false, _ sink: Sink
    ) -> QUICStreamReassembler.Outcome {
        bytes.withUnsafeBytes { raw in
            reassembler.add(
                offset: offset, data: raw, fin: fin, origin: origin,
                deliver: { offset, bytes, fin, _ in sink.deliveries.append(Delivery(offset: offset, bytes: Array(bytes), fin: fin)) },
                gap: { sink.gaps.append(($0, $1)) })
        }
    }

    @Test func inOrderFramesAreDeliveredAsTheyCome() {
        var reassembler = QUICStreamReassembler()
        let sink = Sink()
        #expect(Self.add(&reassembler, 0, [1, 2, 3], sink) == .init(newBytes: 3, duplicateBytes: 0))
        #expect(Self.add(&reassembler, 3, [4, 5], fin: true, sink) == .init(newBytes: 2, duplicateBytes: 0))
        #expect(sink.deliveries == [Delivery(offset: 0, bytes: [1, 2, 3], fin: false), Delivery(offset: 3, bytes: [4, 5], fin: true)])
        #expect(reassembler.isFinished)
    }

    @Test func reorderedOverlappingAndRepeatedFramesGiveEachByteOnce() {
        var reassembler = QUICStreamReassembler()
        let sink = Sink()
        #expect(Self.add(&reassembler, 4, [5, 6, 7], sink) == .init(newBytes: 3, duplicateBytes: 0))
        #expect(sink.deliveries.isEmpty)
        // overlaps the waiting run by two bytes
        #expect(Self.add(&reassembler, 2, [3, 4, 5, 6], sink) == .init(newBytes: 2, duplicateBytes: 2))
        #expect(Self.add(&reassembler, 0, [1, 2, 3], sink) == .init(newBytes: 2, duplicateBytes: 1))
        #expect(sink.stream == [1, 2, 3, 4, 5, 6, 7])
        // a retransmission of delivered bytes, then the FIN alone
        #expect(Self.add(&reassembler, 1, [2, 3, 4], sink) == .init(newBytes: 0, duplicateBytes: 3))
        #expect(Self.add(&reassembler, 7, [], fin: true, sink) == .init(newBytes: 0, duplicateBytes: 0))
        #expect(sink.deliveries.last?.fin == true)
        #expect(sink.stream == [1, 2, 3, 4, 5, 6, 7])
        #expect(reassembler.isFinished)
        // a repeated FIN delivers nothing more
        let count = sink.deliveries.count
        _ = Self.add(&reassembler, 7, [], fin: true, sink)
        #expect(sink.deliveries.count == count)
    }

    @Test func finBeyondAHoleEndsTheStreamWhenTheHoleFills() {
        var reassembler = QUICStreamReassembler()
        let sink = Sink()
        _ = Self.add(&reassembler, 3, [4], fin: true, sink)
        _ = Self.add(&reassembler, 0, [1, 2, 3], sink)
        #expect(sink.stream == [1, 2, 3, 4])
        #expect(sink.deliveries.last?.fin == true)
    }

    @Test func aHolePastTheBufferCapBecomesAGap() {
        var reassembler = QUICStreamReassembler()
        let sink = Sink()
        let chunk = [UInt8](repeating: 7, count: 64 << 10)
        var offset: UInt64 = 1000
        while sink.gaps.isEmpty {
            _ = Self.add(&reassembler, offset, chunk, sink)
            offset += UInt64(chunk.count)
        }
        #expect(sink.gaps.count == 1 && sink.gaps[0].0 == 0 && sink.gaps[0].1 == 1000)
        #expect(sink.stream.count == Int(offset - 1000))
        #expect(reassembler.gapBytes == 1000)
        // the bytes of the hole arriving late are duplicates of nothing: they are behind the stream now
        #expect(Self.add(&reassembler, 0, [1, 2], sink).newBytes == 0)
    }

    @Test func randomSplitsAndRepeatsRebuildTheStream() {
        var generator = SeededGenerator(state: 42)
        let stream = (0 ..< 5000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        for _ in 0 ..< 20 {
            var frames: [(UInt64, [UInt8])] = []
            var offset = 0
            while offset < stream.count {
                let length = Int.random(in: 1 ... 300, using: &generator)
                let end = min(stream.count, offset + length)
                frames.append((UInt64(offset), Array(stream[offset ..< end])))
                offset = end
            }
            frames += frames.filter { _ in Bool.random(using: &generator) }  // retransmissions
            frames.shuffle(using: &generator)
            var reassembler = QUICStreamReassembler()
            let sink = Sink()
            var fresh = 0
            for (offset, bytes) in frames {
                fresh += Self.add(&reassembler, offset, bytes, fin: offset + UInt64(bytes.count) == stream.count, sink).newBytes
            }
            #expect(sink.stream == stream)
            #expect(fresh == stream.count)
            #expect(reassembler.isFinished)
        }
    }
}

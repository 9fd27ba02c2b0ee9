import Testing
@testable import WireTally

/// DNS over TCP: messages behind 2-byte lengths, several per stream, however it is segmented.
@Suite struct DNSStreamFramerTests {
    private static let messages: [[UInt8]] = [
        DNSMessageBuilder.query(id: 1, "one.example"),
        DNSMessageBuilder.response(id: 1, "one.example", addresses: ["192.0.2.1"]),
        DNSMessageBuilder.query(id: 2, "two.example", type: 28),
    ]
    private static let stream: [UInt8] = messages.flatMap { FrameBuilder.be16(UInt16($0.count)) + $0 }

    /// Feeds `pieces` and returns the ids, framed lengths and first/last frame numbers of the messages.
    private func frame(_ pieces: [[UInt8]]) -> [(id: UInt16?, length: Int, first: Int, last: Int)] {
        var framer = DNSStreamFramer()
        var out: [(UInt16?, Int, Int, Int)] = []
        for (index, piece) in pieces.enumerated() {
            let origin = PacketOrigin(frameNumber: index + 1, timestamp: Timestamp(nanoseconds: Int64(index)))
            piece.withUnsafeBytes { bytes in
                framer.append(bytes, origin: origin) { message, length, first, last in
                    out.append((DNSMessage.parse(message)?.header.id, length, first.frameNumber, last.frameNumber))
                }
            }
        }
        return out
    }

    @Test func wholeStreamAtOnce() {
        let framed = frame([Self.stream])
        #expect(framed.map(\.id) == [1, 1, 2])
        #expect(framed.map(\.length) == Self.messages.map { $0.count + 2 })
    }

    @Test func splitAtEveryByte() {
        for split in 0...Self.stream.count {
            let framed = frame([Array(Self.stream[..<split]), Array(Self.stream[split...])])
            #expect(framed.map(\.id) == [1, 1, 2], "split at \(split)")
            #expect(framed.map(\.length).reduce(0, +) == Self.stream.count)
        }
    }

    @Test func oneByteAtATime() {
        let framed = frame(Self.stream.map { [$0] })
        #expect(framed.map(\.id) == [1, 1, 2])
        let firstLength = Self.messages[0].count + 2
        #expect(framed[0].first == 1 && framed[0].last == firstLength)
    }

    @Test func twoSplitsEverywhere() {
        let stream = Self.stream
        for first in stride(from: 0, through: stream.count, by: 3) {
            for second in stride(from: first, through: stream.count, by: 5) {
                let framed = frame([Array(stream[..<first]), Array(stream[first..<second]), Array(stream[second...])])
                #expect(framed.map(\.id) == [1, 1, 2], "splits \(first) \(second)")
            }
        }
    }

    @Test func gapStopsFraming() {
        var framer = DNSStreamFramer()
        var count = 0
        let origin = PacketOrigin(frameNumber: 1, timestamp: Timestamp(nanoseconds: 0))
        Array(Self.stream.prefix(5)).withUnsafeBytes { framer.append($0, origin: origin) { _, _, _, _ in count += 1 } }
        framer.gap()
        Self.stream.withUnsafeBytes { framer.append($0, origin: origin) { _, _, _, _ in count += 1 } }
        #expect(count == 0)
        #expect(framer.isDesynchronized)
    }

    @Test func garbageLengthsNeverTrap() {
        var generator = SeededGenerator(state: 42)
        for _ in 0..<300 {
            var framer = DNSStreamFramer()
            let origin = PacketOrigin(frameNumber: 1, timestamp: Timestamp(nanoseconds: 0))
            for _ in 0..<20 {
                let bytes = (0..<Int.random(in: 0..<400, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
                bytes.withUnsafeBytes { framer.append($0, origin: origin) { _, _, _, _ in } }
            }
        }
    }
}

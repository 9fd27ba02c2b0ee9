import Testing
@testable import WireTally

/// The growable buffer JSON Lines is written into: room made once per piece, bytes stored unchecked.
@Suite struct ByteBufferTests {
    @Test func growsAcrossItsCapacityKeepingEveryByte() {
        let buffer = ByteBuffer(capacity: 16)
        var expected: [UInt8] = []
        for round in 0..<300 {
            let piece = (0..<(round % 37)).map { UInt8(truncatingIfNeeded: round &+ $0) }
            let space = buffer.freeSpace(atLeast: piece.count)
            piece.withUnsafeBufferPointer { space.storeBytes(of: $0) }
            buffer.commit(piece.count)
            buffer.append(UInt8(truncatingIfNeeded: round))
            expected += piece + [UInt8(truncatingIfNeeded: round)]
            #expect(buffer.count == expected.count)
        }
        #expect(Array(buffer.bytes) == expected)
        buffer.removeAll()
        #expect(buffer.count == 0)
        buffer.append(UInt8(ascii: "x"))
        #expect(buffer.text == "x")
    }

    @Test func oneRequestLargerThanDoubleTheCapacity() {
        let buffer = ByteBuffer(capacity: 16)
        buffer.append(UInt8(ascii: "a"))
        let large = [UInt8](repeating: UInt8(ascii: "b"), count: 1000)
        large.withUnsafeBufferPointer { buffer.freeSpace(atLeast: 1000).storeBytes(of: $0) }
        buffer.commit(1000)
        #expect(buffer.text == "a" + String(repeating: "b", count: 1000))
    }

    /// Short copies are overlapping word moves; every length up to past the `memcpy` threshold.
    @Test func storesEveryLength() {
        let source = (0..<80).map { UInt8($0 + 1) }
        for count in 0...source.count {
            var destination = [UInt8](repeating: 0, count: source.count + 2)
            source.withUnsafeBufferPointer { source in
                destination.withUnsafeMutableBufferPointer { destination in
                    (destination.baseAddress! + 1).storeBytes(of: UnsafeBufferPointer(rebasing: source[0..<count]))
                }
            }
            #expect(destination == [0] + source[0..<count] + [UInt8](repeating: 0, count: source.count + 1 - count), "\(count)")
        }
    }
}

import Testing

@testable import WireTally

/// Hostile and arbitrarily cut input: results must not depend on how the bytes are split, the parser
/// must never trap, and the owner runs must always cover every byte fed with exchange runs equal to
/// the messages' byte counts (`HTTP2Harness.checkInvariants`).
@Suite struct HTTP2RobustnessTests {
    typealias W = HTTP2FrameWriter

    /// A conversation with every frame type and flag: padding, PRIORITY, CONTINUATION, push, interim,
    /// trailers, resets, GOAWAY, PING, unknown types, a gzip body.
    static func conversation() -> (up: [UInt8], down: [UInt8]) {
        var client = W(), server = W()
        let get: [(String, String)] = [(":method", "GET"), (":scheme", "https"), (":authority", "h.example"), (":path", "/p")]
        let block = client.block(get + [("cookie", "a=b"), ("x-pad", String(repeating: "z", count: 60))])
        var up = W.preface + W.settings([(1, 8192), (4, 1 << 20)]) + W.windowUpdate(stream: 0, 1 << 20)
        up += W.headers(stream: 1, Array(block[..<20]), endHeaders: false, padding: 5, priority: true)
        up += W.continuation(stream: 1, Array(block[20...]), endHeaders: true)
        up += W.data(stream: 1, .filled(7, 300), padding: 10) + W.data(stream: 1, [], endStream: true)
        up += client.headers(stream: 3, get, endStream: true) + W.priority(stream: 3, dependsOn: 1)
        up += W.settings(ack: true) + W.ping(ack: false) + W.frame(0x0b, stream: 3, [1, 2, 3])
        up += client.headers(stream: 5, get) + W.rst(stream: 5, code: 8) + W.windowUpdate(stream: 1, 500)
        var down = W.settings([(3, 100)]) + W.settings(ack: true)
        down += server.headers(stream: 1, [(":status", "100")])
        down += server.pushPromise(stream: 1, promised: 2, get, padding: 3)
        down += server.headers(stream: 1, [(":status", "200"), ("content-encoding", "gzip")], padding: 2)
        let gz = Gzip.compress((0..<5000).map { UInt8(truncatingIfNeeded: $0 % 13) })!
        down += W.data(stream: 1, Array(gz[..<40]), padding: 1) + W.data(stream: 1, Array(gz[40...]))
        down += server.headers(stream: 1, [("x-trailer", "1")], endStream: true)
        down += server.headers(stream: 2, [(":status", "200")]) + W.data(stream: 2, .filled(2, 1000), endStream: true)
        down += W.ping(ack: true) + server.headers(stream: 3, [(":status", "404")], endStream: true)
        down += W.goaway(last: 5, code: 0) + W.frame(0xee, flags: 0xff, stream: 0, .filled(0, 20))
        return (up, down)
    }

    /// Feeds the conversation with the directions interleaved in `pieces` steps.
    static func run(_ conversation: (up: [UInt8], down: [UInt8]), chunks: ((Int) -> Int)?, gaps: [(FlowDirection, Int, Int)] = []) -> HTTP2Harness {
        let h = HTTP2Harness()
        let half = (up: conversation.up.count / 2, down: conversation.down.count / 2)
        let order: [(FlowDirection, Range<Int>)] = [
            (.up, 0..<half.up), (.down, 0..<half.down), (.up, half.up..<conversation.up.count), (.down, half.down..<conversation.down.count),
        ]
        for (direction, range) in order {
            let bytes = direction == .up ? conversation.up : conversation.down
            var position = range.lowerBound
            for (gapDirection, at, length) in gaps where gapDirection == direction && range.contains(at) && at >= position {
                h.feed(Array(bytes[position..<at]), direction, chunks: chunks)
                h.gap(length, direction)
                position = min(at + length, range.upperBound)
            }
            if position < range.upperBound { h.feed(Array(bytes[position..<range.upperBound]), direction, chunks: chunks) }
        }
        h.parser.finish()
        return h
    }

    @Test func resultsDoNotDependOnChunking() {
        let conversation = Self.conversation()
        let whole = Self.run(conversation, chunks: nil)
        whole.checkInvariants()
        #expect(whole.recorder.messages.count == 7)
        #expect(whole.parser.connectionInfo.malformedFrames == DirectionPair(0, 0))
        #expect(whole.recorder.responses.first { $0.exchangeIndex == 0 }?.decodedBodyBytes == 5000)
        let single = Self.run(conversation, chunks: { _ in 1 })
        single.checkInvariants()
        #expect(single.recorder.summary == whole.recorder.summary)
        #expect(single.recorder.runs == whole.recorder.runs)
        #expect(single.parser.frameTotals == whole.parser.frameTotals && single.parser.connectionInfo == whole.parser.connectionInfo)
        var random = SeededGenerator(state: 15)
        for _ in 0..<200 {
            let cut = Self.run(conversation, chunks: { _ in Int.random(in: 1...40, using: &random) })
            #expect(cut.recorder.summary == whole.recorder.summary)
            #expect(cut.recorder.runs == whole.recorder.runs)
            #expect(cut.parser.frameTotals == whole.parser.frameTotals)
        }
    }

    @Test func gapsAnywhereKeepTheInvariants() {
        let conversation = Self.conversation()
        var random = SeededGenerator(state: 7)
        for _ in 0..<300 {
            let direction: FlowDirection = Bool.random(using: &random) ? .up : .down
            let count = direction == .up ? conversation.up.count : conversation.down.count
            let at = Int.random(in: 0..<count, using: &random), length = Int.random(in: 1...200, using: &random)
            let h = Self.run(conversation, chunks: { _ in Int.random(in: 1...64, using: &random) }, gaps: [(direction, at, length)])
            h.checkInvariants()
        }
    }

    @Test func randomBytesNeverTrap() {
        var random = SeededGenerator(state: 42)
        for round in 0..<400 {
            let h = HTTP2Harness()
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let direction: FlowDirection = Bool.random(using: &random) ? .up : .down
                var bytes = (0..<Int.random(in: 1...600, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                // Some rounds look like HTTP/2: small lengths, known types.
                if round % 2 == 0 {
                    for index in stride(from: 0, to: bytes.count, by: Int.random(in: 9...40, using: &random)) {
                        bytes[index] = 0
                        if index + 3 < bytes.count { bytes[index + 3] = UInt8.random(in: 0...10, using: &random) }
                    }
                }
                if round % 5 == 0 && direction == .up && h.fed.up?.isEmpty == true { bytes = W.preface + bytes }
                h.feed(bytes, direction, chunks: { _ in Int.random(in: 1...50, using: &random) })
                if Int.random(in: 0..<4, using: &random) == 0 { h.gap(Int.random(in: 1...100, using: &random), direction) }
            }
            h.parser.finish()
            h.checkInvariants()
        }
    }

    @Test func mutatedConversationsNeverTrap() {
        let conversation = Self.conversation()
        var random = SeededGenerator(state: 99)
        for _ in 0..<400 {
            var up = conversation.up, down = conversation.down
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                if Bool.random(using: &random) {
                    up[Int.random(in: 0..<up.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                } else {
                    down[Int.random(in: 0..<down.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                }
            }
            if Int.random(in: 0..<4, using: &random) == 0 { down.removeLast(Int.random(in: 0..<down.count, using: &random)) }
            let h = Self.run((up, down), chunks: { _ in Int.random(in: 1...100, using: &random) })
            h.checkInvariants()
        }
    }

    @Test func manyStreamsStayBounded() {
        // 20,000 streams opened and closed one after the other: none is kept once over.
        var client = W(), server = W()
        var up = W.preface + W.settings(), down = W.settings()
        let get: [(String, String)] = [(":method", "GET"), (":scheme", "https"), (":authority", "h"), (":path", "/")]
        let h = HTTP2Harness()
        h.feed(up, .up)
        h.feed(down, .down)
        for index in 0..<20_000 {
            let id = UInt32(2 * index + 1)
            up = client.headers(stream: id, get, endStream: true)
            down = server.headers(stream: id, [(":status", "204")], endStream: true)
            h.feed(up, .up)
            h.feed(down, .down)
        }
        #expect(h.parser.streams.open.isEmpty)
        #expect(h.recorder.messages.count == 40_000)
        h.parser.finish()
        h.checkInvariants()
    }
}

import Testing

@testable import WireTally

/// tshark's HTTP/2 frames of one connection (`http2.streamid`, `http2.type`, `http2.flags`,
/// `http2.length`, and the `:method`/`:path`/`:status` it decoded), in packet order, and the check of
/// an `HTTP2ConnectionParser` fed the connection's plaintext against them.
struct HTTP2TsharkTruth {
    struct Frame {
        var packet: Int
        var fromClient: Bool
        var streamID: UInt32
        var type: UInt8
        var flags: UInt8
        var length: Int
        /// PUSH_PROMISE: the stream it promises.
        var promisedStreamID: UInt32?
        var size: Int { 9 + length }
    }

    var frames: [Frame] = []
    var methods: [String] = []
    var paths: [String] = []
    var statuses: [Int] = []

    /// The fields to ask tshark for, in the order `init(rows:…)` reads them.
    static let fields = ["frame.number", "tcp.stream", "tcp.srcport", "http2.streamid", "http2.type", "http2.flags",
                         "http2.length", "http2.headers.method", "http2.headers.path", "http2.headers.status",
                         "http2.push_promise.promised_stream_id"]

    /// Reads rows of `fields` (one per packet, several frames comma-joined) of TCP stream `stream`.
    init(rows: [[String]], stream: Int, clientPort: Int) throws {
        for row in rows where row.count >= 10 && Int(row[1]) == stream {
            let ids = row[3].split(separator: ","), types = row[4].split(separator: ","),
                flags = row[5].split(separator: ","), lengths = row[6].split(separator: ",")
            try #require(ids.count == types.count && ids.count == flags.count && ids.count == lengths.count,
                         "tshark row \(row[0]): field counts differ")
            // Only PUSH_PROMISE frames have a promised stream id: the k-th value is the row's k-th PUSH_PROMISE's.
            var promised = (row.count > 10 ? row[10] : "").split(separator: ",").compactMap { UInt32($0) }[...]
            for index in ids.indices {
                let type = UInt8(types[index])!
                frames.append(Frame(
                    packet: Int(row[0])!, fromClient: Int(row[2]) == clientPort, streamID: UInt32(ids[index])!,
                    type: type, flags: UInt8(flags[index].dropFirst(2), radix: 16)!, length: Int(lengths[index])!,
                    promisedStreamID: type == 5 ? promised.popFirst() : nil))
            }
            methods += row[7].split(separator: ",").map(String.init)
            paths += row[8].split(separator: ",").map(String.init)
            statuses += row[9].split(separator: ",").compactMap { Int($0) }
        }
    }

    /// A frame sent after its stream was over by tshark's own frames (END_STREAM both ways, or a
    /// RST_STREAM before it): the parser counts such frames for no message. `afterEnd`: those of them
    /// that are a RST_STREAM, WINDOW_UPDATE or PRIORITY on one of the 64 streams closed last, reported
    /// as `.endedStream` (the side must have had a message on the stream: the caller checks).
    /// `upgraded`: stream 1 was opened by an HTTP/1.1 request (its client side has ended).
    func lateFrames(upgraded: Bool) -> (late: Set<Int>, afterEnd: Set<Int>) {
        var ended: [UInt32: (client: Bool, server: Bool)] = upgraded ? [1: (true, false)] : [:]
        var reset = Set<UInt32>(), late = Set<Int>(), afterEnd = Set<Int>()
        var closedOrder: [UInt32] = []
        for (index, frame) in frames.enumerated() where frame.streamID != 0 {
            // A pushed stream's request is its PUSH_PROMISE: only the server's side is open.
            if let promised = frame.promisedStreamID, ended[promised] == nil { ended[promised] = (true, false) }
            let state = ended[frame.streamID] ?? (false, false)
            if reset.contains(frame.streamID) || (state.client && state.server) {
                late.insert(index)
                if [2, 3, 8].contains(frame.type) && closedOrder.suffix(64).contains(frame.streamID) { afterEnd.insert(index) }
                continue
            }
            if frame.type == 3 {
                reset.insert(frame.streamID)
                closedOrder.append(frame.streamID)
            }
            if (frame.type == 0 || frame.type == 1) && frame.flags & 1 != 0 {
                let now = frame.fromClient ? (true, state.server) : (state.client, true)
                ended[frame.streamID] = now
                if now.0 && now.1 { closedOrder.append(frame.streamID) }
            }
        }
        return (late, afterEnd)
    }

    /// Feeds `client`/`server` plaintext to a parser in tshark's packet order (each packet's frames
    /// as one piece cut at random, the preface before the client's first frame) and checks it against
    /// the frames. Returns the harness for further checks.
    @discardableResult
    func check(client: [UInt8], server: [UInt8], upgraded: Bool = false, seed: UInt64 = 1,
               sourceLocation: SourceLocation = #_sourceLocation) throws -> HTTP2Harness {
        let preface = HTTP2FrameWriter.preface
        let hasPreface = client.starts(with: preface)
        let clientFrames = frames.filter(\.fromClient), serverFrames = frames.filter { !$0.fromClient }
        // The plaintext holds exactly tshark's frames.
        try #require(client.count == (hasPreface ? 24 : 0) + clientFrames.reduce(0) { $0 + $1.size },
                     "client plaintext \(client.count) ≠ tshark's frames", sourceLocation: sourceLocation)
        try #require(server.count == serverFrames.reduce(0) { $0 + $1.size },
                     "server plaintext \(server.count) ≠ tshark's frames", sourceLocation: sourceLocation)
        let h = HTTP2Harness(upgradedStream: upgraded ? HTTP2UpgradedStream(exchangeIndex: 0) : nil)
        var random = SeededGenerator(state: seed)
        var position = (client: 0, server: 0)
        var offsets: [Int64] = []
        var clientOffset = Int64(hasPreface ? 24 : 0), serverOffset: Int64 = 0
        var index = 0
        while index < frames.count {
            let packet = frames[index].packet, fromClient = frames[index].fromClient
            var size = 0
            while index < frames.count && frames[index].packet == packet && frames[index].fromClient == fromClient {
                offsets.append(fromClient ? clientOffset : serverOffset)
                if fromClient { clientOffset += Int64(frames[index].size) } else { serverOffset += Int64(frames[index].size) }
                size += frames[index].size
                index += 1
            }
            if fromClient {
                let start = position.client, end = Int(clientOffset)
                h.feed(Array(client[start..<end]), .up, chunks: { _ in Int.random(in: 1...64, using: &random) })
                position.client = end
            } else {
                let start = position.server, end = start + size
                h.feed(Array(server[start..<end]), .down, chunks: { _ in Int.random(in: 1...64, using: &random) })
                position.server = end
            }
        }
        h.parser.finish()
        h.checkInvariants(sourceLocation: sourceLocation)
        compare(h, offsets: offsets, upgraded: upgraded, hasPreface: hasPreface, sourceLocation: sourceLocation)
        return h
    }

    private func compare(_ h: HTTP2Harness, offsets: [Int64], upgraded: Bool, hasPreface: Bool, sourceLocation: SourceLocation) {
        let (late, afterEnd) = lateFrames(upgraded: upgraded)
        // Exchanges by first appearance: the client's HEADERS opening a stream, a PUSH_PROMISE's promised
        // stream (stream 1 is exchange 0 after an upgrade).
        var exchange: [UInt32: Int] = upgraded ? [1: 0] : [:]
        // Streams whose client frames belong to no message (pushed, upgraded).
        var noClientMessage: Set<UInt32> = upgraded ? [1] : []
        for frame in frames {
            if frame.fromClient && frame.type == 1 && exchange[frame.streamID] == nil { exchange[frame.streamID] = exchange.count }
            if let promised = frame.promisedStreamID, exchange[promised] == nil {
                exchange[promised] = exchange.count
                noClientMessage.insert(promised)
            }
        }
        #expect(h.parser.connectionInfo.streams == exchange.count, sourceLocation: sourceLocation)
        var expectedBytes: [String: Int] = [:]
        // The owner of the header block being continued, and whose bytes it adds to.
        var block: (owner: HTTP2ByteOwner, key: String?) = (.connection(.other), nil)
        // Streams opened so far: a PRIORITY frame on a stream not opened yet (idle) does not open it.
        var opened: Set<UInt32> = upgraded ? [1] : []
        for (index, frame) in frames.enumerated() {
            if frame.fromClient && frame.type == 1 { opened.insert(frame.streamID) }
            if let promised = frame.promisedStreamID { opened.insert(promised) }
            let direction: FlowDirection = frame.fromClient ? .up : .down
            var expected = HTTP2ByteOwner.connection(.other)
            var key: String?
            switch frame.type {
            case 4: expected = .connection(.settings)
            case 6: expected = .connection(.ping)
            case 7: expected = .connection(.goaway)
            case 8 where frame.streamID == 0: expected = .connection(.windowUpdate)
            case 9: (expected, key) = block
            case 10...: expected = .connection(.unknown)
            case 5:
                if let promised = frame.promisedStreamID, let index = exchange[promised] {
                    (expected, key) = (.exchange(index), "down \(promised)")
                }
            default:
                let clientWithoutMessage = frame.fromClient && noClientMessage.contains(frame.streamID)
                if opened.contains(frame.streamID) && !late.contains(index) && !clientWithoutMessage, let index = exchange[frame.streamID] {
                    (expected, key) = (.exchange(index), "\(direction) \(frame.streamID)")
                } else if afterEnd.contains(index) && !clientWithoutMessage, let index = exchange[frame.streamID] {
                    expected = .endedStream(index)
                }
            }
            if frame.type == 1 || frame.type == 5 { block = (expected, key) }
            if let key { expectedBytes[key, default: 0] += frame.size }
            let owner = h.recorder.owner(direction, at: offsets[index])
            #expect(owner == expected, "packet \(frame.packet) frame on stream \(frame.streamID) type \(frame.type): owner \(String(describing: owner)), tshark says \(expected)",
                    sourceLocation: sourceLocation)
        }
        // Owners change only at tshark's frame starts (or at the end of the preface).
        for direction in FlowDirection.allCases {
            let starts = Set(zip(frames, offsets).filter { $0.0.fromClient == (direction == .up) }.map(\.1) + [0, hasPreface ? 24 : 0])
            for run in h.recorder.runs[direction.rawValue] {
                #expect(starts.contains(run.offset), "\(direction) run at \(run.offset) is not at a tshark frame start", sourceLocation: sourceLocation)
            }
        }
        // Per stream and direction: the bytes of its frames are the message's.
        var counted: [String: Int] = [:]
        for (message, direction) in h.recorder.messages {
            counted["\(direction) \(message.http2!.streamID)", default: 0] += message.bytes.total + message.interimBytes
        }
        #expect(counted == expectedBytes, sourceLocation: sourceLocation)
        // Frames and bytes per type.
        for direction in FlowDirection.allCases {
            var byType: [UInt8: HTTP2FrameCount] = [:]
            for frame in frames where frame.fromClient == (direction == .up) {
                byType[min(frame.type, 10), default: HTTP2FrameCount()].frames += 1
                byType[min(frame.type, 10), default: HTTP2FrameCount()].bytes += Int64(frame.size)
            }
            let totals = h.parser.frameTotals[direction.rawValue]
            for type in UInt8(0)...10 {
                #expect(totals[type] == byType[type] ?? HTTP2FrameCount(), "\(direction) type \(type)", sourceLocation: sourceLocation)
            }
            #expect(totals.prefaceBytes == (direction == .up && hasPreface ? 24 : 0), sourceLocation: sourceLocation)
            #expect(h.parser.connectionInfo.unparsedBytes[direction.rawValue] == 0, sourceLocation: sourceLocation)
        }
        // Methods, paths and statuses (requests and pushed requests are in two directions: compared as sets
        // with their counts).
        let requests = h.recorder.requests.filter { $0.method != nil }
        #expect(requests.map { $0.method! }.sorted() == methods.sorted(), sourceLocation: sourceLocation)
        #expect(requests.map { $0.target ?? "" }.sorted() == paths.sorted(), sourceLocation: sourceLocation)
        let responses = h.recorder.responses.filter { $0.status != nil }
        #expect(responses.map { $0.status! }.sorted() == statuses.filter { $0 >= 200 }.sorted(), sourceLocation: sourceLocation)
        #expect(h.parser.connectionInfo.hpackError == DirectionPair(false, false), sourceLocation: sourceLocation)
        for (message, _) in h.recorder.messages {
            #expect(message.flags.subtracting(.incomplete).isEmpty, "stream \(message.http2!.streamID) flags \(message.flags)", sourceLocation: sourceLocation)
        }
    }
}

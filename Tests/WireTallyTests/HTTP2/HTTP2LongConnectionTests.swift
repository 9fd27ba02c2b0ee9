import Testing

@testable import WireTally

/// A long HTTP/2 connection keeps what it needs for the streams around its latest bytes, not one entry
/// per stream it ever carried.
@Suite struct HTTP2LongConnectionTests {
    /// 3,000 streams, each request sent while the previous response is still arriving (so runs of
    /// neighbouring streams interleave in both directions), each discarded once over as the pipeline
    /// does after writing its record: the ownership runs stay a handful.
    @Test func ownershipRunsStayBoundedAsStreamsAreDiscarded() {
        let analysis = HTTP2ConnectionAnalysis()
        var client = HTTP2FrameWriter(), server = HTTP2FrameWriter()
        var offsets = DirectionPair<Int64>(0, 0)
        var frame = 0
        func send(_ bytes: [UInt8], _ direction: FlowDirection) {
            frame += 1
            let origin = PacketOrigin(frameNumber: frame, timestamp: Timestamp(nanoseconds: Int64(frame)))
            bytes.withUnsafeBytes { analysis.streamData($0, offset: offsets[direction.rawValue], direction: direction, origin: origin) }
            offsets[direction.rawValue] += Int64(bytes.count)
        }
        send(HTTP2FrameWriter.preface + HTTP2FrameWriter.settings(), .up)
        send(HTTP2FrameWriter.settings() + HTTP2FrameWriter.settings(ack: true), .down)
        var mostRuns = 0
        for index in 0..<3_000 {
            let stream = UInt32(2 * index + 1)
            send(client.headers(stream: stream, [(":method", "GET"), (":scheme", "https"), (":authority", "a.test"),
                                                 (":path", "/item/\(index)")], endStream: true), .up)
            send(server.headers(stream: stream, [(":status", "200")]) + HTTP2FrameWriter.data(stream: stream, Array(repeating: 1, count: 300)), .down)
            if index > 0 {
                // the previous stream ends after this one began, then the client opens the window again
                send(HTTP2FrameWriter.data(stream: stream - 2, Array(repeating: 2, count: 100), endStream: true), .down)
                send(HTTP2FrameWriter.windowUpdate(stream: 0, 400), .up)
                #expect(analysis.isFinal(index - 1))
                analysis.discardExchanges(before: index)
            }
            mostRuns = max(mostRuns, analysis.ownership(.up).count, analysis.ownership(.down).count)
        }
        #expect(analysis.exchangeCount == 3_000 && analysis.exchanges.count == 1)
        #expect(mostRuns <= 8, "runs kept at most: \(mostRuns)")
        // the bytes of the streams not discarded are still their own (the last down: stream 2,998's end)
        #expect(analysis.ownerRun(at: offsets.down - 1, .down).owner == StreamOwner(exchange: 2_998))
        #expect(analysis.ownerRun(at: offsets.up - 1, .up).owner == StreamOwner(exchange: 2_999))
    }

    /// Under TLS, the runs of records not yet reported stay as they were (a record shared by a finished
    /// stream and a later one is split when the later one is reported, by the same shares as when its
    /// bytes were attributed); the runs before merge.
    @Test func runsStillReadByAParentLayerAreKept() {
        var runs = OwnershipRuns()
        for exchange in 0..<6 { runs.set(StreamOwner(exchange: exchange), from: Int64(10 * exchange)) }
        runs.mergeRuns(before: 4, endingBy: 20)  // 0 and 1 end by 20; 2 and 3 are read still
        #expect(runs.count == 5)
        #expect(runs.run(containing: 5).end == 20)
        #expect(runs.run(containing: 25) == OwnerRun(owner: StreamOwner(exchange: 2), end: 30))
        #expect(runs.run(containing: 35) == OwnerRun(owner: StreamOwner(exchange: 3), end: 40))
        runs.mergeRuns(before: 4)
        #expect(runs.count == 3 && runs.run(containing: 5).end == 40)
    }
}

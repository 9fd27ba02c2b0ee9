import Foundation
import Testing
@testable import WireTally

/// HTTP/2 on one long connection (an app's single connection to its API host, open for hours): each
/// stream's exchange is dropped once its record is written and the ownership runs of the dropped
/// streams merge, so memory does not grow with the streams; a client opening more streams at once than
/// `HTTPLimits.maxOpenRequests` gets the rest not followed, flagged and counted.
@Suite(.serialized) struct HTTP2LongConnectionLimitTests {
    typealias W = HTTP2FrameWriter

    static func request(_ index: Int) -> [(String, String)] {
        [(":method", "GET"), (":scheme", "http"), (":authority", "api.test"), (":path", "/poll/\(index)")]
    }

    /// h2c with prior knowledge: `streams` requests, each answered by HEADERS + DATA, the last DATA of
    /// each stream sent after the next stream's request (neighbouring streams overlap), the client
    /// acknowledging with a stream-0 WINDOW_UPDATE; every segment acknowledged.
    static func writeLongConnection(to path: String, streams: Int) throws {
        let connection = try StreamedConnectionWriter(path: path)
        try connection.handshake()
        var client = W(), server = W()
        try connection.send(.up, W.preface + W.settings())
        try connection.send(.down, W.settings() + W.settings(ack: true))
        for index in 0..<streams {
            let stream = UInt32(2 * index + 1)
            try connection.send(.up, client.headers(stream: stream, request(index), endStream: true))
            try connection.send(.down, server.headers(stream: stream, [(":status", "200")]) + W.data(stream: stream, Array(repeating: 0x61, count: 200)))
            if index > 0 {
                try connection.send(.down, W.data(stream: stream - 2, Array(repeating: 0x62, count: 100), endStream: true))
                try connection.send(.up, W.windowUpdate(stream: 0, 300))
            }
        }
        try connection.send(.down, W.data(stream: UInt32(2 * streams - 1), Array(repeating: 0x62, count: 100), endStream: true))
        try connection.send(.up, W.goaway(last: 0, code: 0))
        try connection.close()
    }

    /// Looks at each record as it is written, at what the connection's analysis keeps meanwhile and at
    /// what the connection kept at its end.
    final class CheckingWriter: RecordWriter {
        /// The connection's application-layer analysis (a record carries values only).
        var analysis: ApplicationLayerAnalysis?
        var exchanges = 0, inOrder = true
        var keptExchanges = Int.max, mostRuns = 0, conserved = false, flags: ConnectionFlags = []
        func write(_ record: AnalysisRecord, timestampDigits: Int) {
            switch record {
            case let .exchange(exchangeRecord):
                let exchange = exchangeRecord.exchange
                if exchange.index != exchanges || exchange.response?.status != 200 || exchange.request?.target != "/poll/\(exchange.index)"
                    || exchange.response?.bytes.body != 300 { inOrder = false }
                let http2 = analysis?.anyHTTP2
                mostRuns = max(mostRuns, http2?.ownership(.up).count ?? 0, http2?.ownership(.down).count ?? 0)
                exchanges += 1
            case let .connection(connection):
                keptExchanges = (connection.consumer as? ApplicationLayerAnalysis)?.exchanges.count ?? -1
                conserved = connection.ledger.isConserved
                flags = connection.flags
            default:
                break
            }
        }
        func finish(summary: CaptureSummary, files: [String]) {}
    }

    @Test func streamsAreDroppedAndTheirRunsMerge() throws {
        let streams = 30_000
        let path = LimitTestSupport.temporaryPath("h2-long.pcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Self.writeLongConnection(to: path, streams: streams)

        let writer = CheckingWriter()
        let source = MergedPacketSource(paths: [path])
        let analyzer = CaptureAnalyzer(
            makeConsumer: { _ in
                let analysis = ApplicationLayerAnalysis()
                writer.analysis = analysis
                return analysis
            },
            emit: { writer.write($0, timestampDigits: 6) })
        while let packet = try source.nextPacket() { analyzer.process(packet) }
        let summary = analyzer.finish(timestampDigits: source.timestampDigits)
        #expect(summary.errors.isEmpty && summary.isConserved)
        #expect(writer.exchanges == streams && writer.inOrder)
        // (and those of the last linger: at most one exchange and one run per frame within it)
        let lingering = StreamedConnectionWriter.framesWithinLinger
        #expect(writer.keptExchanges <= 2 + lingering, "kept \(writer.keptExchanges) exchanges")
        #expect(writer.mostRuns <= 8 + lingering, "kept \(writer.mostRuns) ownership runs")
        #expect(writer.conserved && !writer.flags.contains(.lateAfterSealing))

        // The binary: peak memory as for HTTP/1.x keep-alive (20-30 MB; one run per frame kept: ~4 MB
        // more here, growing with the connection).
        let output = LimitTestSupport.temporaryPath("h2-long.jsonl")
        defer { try? FileManager.default.removeItem(atPath: output) }
        let run = try SYNFloodTests.runMeasured(["analyze", "--format", "jsonl", path], output: output)
        #expect(run.status == 0)
        #expect(run.peakKilobytes < 48 << 10, "peak RSS \(run.peakKilobytes / 1024) MB")
    }

    /// 1,005 streams opened and never answered: the first 1,000 are followed, the other 5 are not
    /// (their frames are connection-level bytes), the connection is flagged and the summary counts it.
    @Test func streamsOverTheOpenCapAreFlagged() throws {
        let path = LimitTestSupport.temporaryPath("h2-open-cap.pcap")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let connection = try StreamedConnectionWriter(path: path)
        try connection.handshake()
        var client = W()
        try connection.send(.up, W.preface + W.settings())
        for index in 0..<1_005 { try connection.send(.up, client.headers(stream: UInt32(2 * index + 1), Self.request(index), endStream: true)) }
        try connection.close()
        let run = try LimitTestSupport.analyzeJSONLines(path)
        #expect(run.status == 0)
        #expect(run.records.filter { $0.hasPrefix("{\"type\":\"http\"") }.count == 1_000)
        let record = try #require(run.records.first { $0.hasPrefix("{\"type\":\"connection\"") })
        #expect(record.contains("\"streams_over_cap\":5") && record.contains("\"too_many_open_requests\""))
        #expect(run.summary.contains("\"too_many_open_requests\":1") && run.summary.contains("\"conserved\":true"))
    }
}

import Foundation
@testable import WireTally

/// Keeps each exchange with its connection (for the estimators) and the JSON records (to match nginx).
final class EstimatorCollector: RecordWriter {
    let records = CollectingWriter()
    /// Every exchange, TCP or QUIC.
    private(set) var allExchanges: [(exchange: HTTPExchange, connection: ExchangeConnection)] = []
    /// The exchanges on TCP connections, by record id too.
    private(set) var exchanges: [(exchange: HTTPExchange, connection: ExchangeConnection)] = []
    private(set) var byID: [Int: (exchange: HTTPExchange, connection: ExchangeConnection)] = [:]
    /// The TCP connections, by id.
    private(set) var connections: [Int: TCPConnection] = [:]

    func write(_ record: AnalysisRecord, timestampDigits: Int) {
        if case let .exchange(exchangeRecord) = record {
            let (exchange, id, connection) = (exchangeRecord.exchange, exchangeRecord.id, exchangeRecord.connection)
            allExchanges.append((exchange, connection))
            if connection.transport == .tcp {
                exchanges.append((exchange, connection))
                byID[id] = (exchange, connection)
            }
        }
        if case let .connection(connection) = record { connections[connection.id] = connection }
        records.write(record, timestampDigits: timestampDigits)
    }

    func finish(summary: CaptureSummary, files: [String]) { records.finish(summary: summary, files: files) }

    /// Analyses `files` with the body retention the estimators need.
    static func analyze(_ files: [String], options: CaptureAnalyzer.Options = CaptureAnalyzer.Options()) -> EstimatorCollector {
        var options = options
        options.http = EstimatorRun.requiredHTTPLimits(options.http)
        options.keepsReportedExchanges = true  // the estimators read the ledger after the run
        let collector = EstimatorCollector()
        _ = AnalysisRun(files: files, options: options).run(writer: collector)
        return collector
    }

    /// The estimator run over everything collected.
    func run(level: WireLevel) -> EstimatorRun {
        let run = EstimatorRun(level: level)
        for (exchange, connection) in allExchanges { run.add(exchange, connection) }
        return run
    }
}

enum EstimatorFixtures {
    static let directory: URL = {
        let url = TestScratch.folder.appendingPathComponent("wiretally-estimator-tests-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    /// Writes `bytes` to a temporary pcap named `name`.
    static func write(_ bytes: [UInt8], name: String) throws -> String {
        let path = directory.appendingPathComponent(name + ".pcap").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A synthetic capture of `exchanges` (request bytes, response bytes) on one connection, each message
    /// in one segment, with handshake, a pure ACK after each response and teardown.
    static func capture(_ exchanges: [([UInt8], [UInt8])], client: String = "10.9.0.1:40000", server: String = "10.9.0.2:80") -> [UInt8] {
        var frames: [[UInt8]] = []
        var clientSeq: UInt32 = 1001, serverSeq: UInt32 = 7001
        frames.append(FrameBuilder.tcp(from: client, to: server, seq: 1000, flags: [.syn]))
        frames.append(FrameBuilder.tcp(from: server, to: client, seq: 7000, ack: 1001, flags: [.syn, .ack]))
        frames.append(FrameBuilder.tcp(from: client, to: server, seq: 1001, ack: 7001, flags: [.ack]))
        for (request, response) in exchanges {
            frames.append(FrameBuilder.tcp(from: client, to: server, seq: clientSeq, ack: serverSeq, flags: [.ack, .psh], payload: request))
            clientSeq += UInt32(request.count)
            frames.append(FrameBuilder.tcp(from: server, to: client, seq: serverSeq, ack: clientSeq, flags: [.ack, .psh], payload: response))
            serverSeq += UInt32(response.count)
            frames.append(FrameBuilder.tcp(from: client, to: server, seq: clientSeq, ack: serverSeq, flags: [.ack]))
        }
        frames.append(FrameBuilder.tcp(from: client, to: server, seq: clientSeq, ack: serverSeq, flags: [.fin, .ack]))
        frames.append(FrameBuilder.tcp(from: server, to: client, seq: serverSeq, ack: clientSeq + 1, flags: [.fin, .ack]))
        frames.append(FrameBuilder.tcp(from: client, to: server, seq: clientSeq + 1, ack: serverSeq + 1, flags: [.ack]))
        let stamps = frames.indices.map { Timestamp(nanoseconds: 1_700_000_000_000_000_000 + Int64($0) * 1_000_000) }
        return FrameBuilder.pcap(frames: frames, link: .ethernet, timestamps: stamps)
    }
}

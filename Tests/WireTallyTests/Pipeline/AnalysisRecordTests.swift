import Testing
@testable import WireTally

/// A record handed to a writer is one pointer (an exchange's `ExchangeRecord`, the DNS case indirect),
/// so it moves through the analyzer, a `RecordBatch` and the writer without copying its values; and a
/// record a writer keeps (as `compare` keeps exchanges for app logs) does not change after it was
/// written: encoded again after the run, with one thread or with the writer on a thread of its own,
/// the kept records give the JSON Lines the run wrote.
struct AnalysisRecordTests {
    @Test func aRecordIsOnePointer() {
        #expect(MemoryLayout<AnalysisRecord>.size == MemoryLayout<Int>.size)
    }

    @Test(arguments: ["dns-http.pcap", "nginx-curl-keepalive.pcap", "tls13-h2.pcap", "quic-concurrent.pcap"], [1, 2])
    func keptRecordsEncodeAsWritten(capture: String, threads: Int) {
        let writer = KeepingWriter()
        _ = AnalysisRun(files: [TestPaths.capture(capture)], threads: threads).run(writer: writer)
        #expect(!writer.kept.isEmpty)
        #expect(writer.kept.map { RecordEncoding.record($0.record, timestampDigits: $0.digits).serialized } == writer.written)
        let ids = writer.kept.compactMap { if case let .exchange(exchangeRecord) = $0.record { exchangeRecord.id } else { nil } }
        #expect(ids == ids.indices.map { $0 + 1 })
    }
}

/// Writes the JSON Lines text of each exchange and DNS record and keeps the record itself (not
/// connections: their last reference is to be dropped on the analysing thread).
private final class KeepingWriter: OffThreadRecordWriter {
    private(set) var kept: [(record: AnalysisRecord, digits: Int)] = []
    private(set) var written: [String] = []

    func write(_ record: AnalysisRecord, timestampDigits: Int) {
        switch record {
        case .exchange, .dns:
            written.append(RecordEncoding.record(record, timestampDigits: timestampDigits).serialized)
            kept.append((record, timestampDigits))
        case .connection, .quicConnection, .flow: break
        }
    }

    func finish(summary: CaptureSummary, files: [String]) {}
}

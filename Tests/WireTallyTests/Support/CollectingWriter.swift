@testable import WireTally

/// Keeps every record as the JSON the jsonl output would print, so tests read the output contract.
final class CollectingWriter: RecordWriter {
    private(set) var connections: [JSONValue] = []
    private(set) var quicConnections: [JSONValue] = []
    private(set) var rawQUICConnections: [QUICConnection] = []
    private(set) var flows: [JSONValue] = []
    private(set) var exchanges: [JSONValue] = []
    private(set) var dns: [JSONValue] = []
    private(set) var rawDNS: [DNSTransaction] = []
    private(set) var summary: JSONValue?
    private(set) var rawConnections: [TCPConnection] = []

    func write(_ record: AnalysisRecord, timestampDigits: Int) {
        switch record {
        case let .connection(connection):
            rawConnections.append(connection)
            connections.append(RecordEncoding.connection(connection, timestampDigits: timestampDigits))
        case let .quicConnection(connection):
            rawQUICConnections.append(connection)
            quicConnections.append(RecordEncoding.record(record, timestampDigits: timestampDigits))
        case let .flow(flow):
            flows.append(RecordEncoding.flow(flow, timestampDigits: timestampDigits))
        case .exchange:
            exchanges.append(RecordEncoding.record(record, timestampDigits: timestampDigits))
        case let .dns(transaction):
            rawDNS.append(transaction)
            dns.append(RecordEncoding.record(record, timestampDigits: timestampDigits))
        }
    }

    func finish(summary: CaptureSummary, files: [String]) {
        self.summary = RecordEncoding.summary(summary, files: files)
    }

    /// Runs an analysis of `files` into a new collector.
    static func analyze(_ files: [String], options: CaptureAnalyzer.Options = .init()) -> (CollectingWriter, AnalysisRun.Result) {
        let writer = CollectingWriter()
        let result = AnalysisRun(files: files, options: options).run(writer: writer)
        return (writer, result)
    }
}

extension JSONValue {
    /// The integer at a dotted path (`up.ip_bytes`), or nil.
    func int(_ path: String) -> Int? {
        var value: JSONValue? = self
        for key in path.split(separator: ".") { value = value?[String(key)] }
        if case let .integer(number) = value { return number }
        return nil
    }

    /// The string at a dotted path, or nil.
    func string(_ path: String) -> String? {
        var value: JSONValue? = self
        for key in path.split(separator: ".") { value = value?[String(key)] }
        if case let .string(text) = value { return text }
        return nil
    }

    /// The flag names of a record.
    var flagNames: [String] {
        guard case let .array(values)? = self["flags"] else { return [] }
        return values.map(\.plainText)
    }
}

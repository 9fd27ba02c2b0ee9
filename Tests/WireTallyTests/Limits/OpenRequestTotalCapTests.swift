import Foundation
import Testing
@testable import WireTally

/// The cap on open requests of all connections together (`HTTPLimits.maxOpenRequestsTotal`, here 6):
/// three concurrent connections each pipelining 4 requests that are never answered, each far below
/// its own cap, open 6 in all; every connection whose next request would exceed the total stops like
/// one past its own cap. A connection that ends gives its open requests back.
@Suite struct OpenRequestTotalCapTests {
    static let total = 6

    static var options: CaptureAnalyzer.Options {
        var http = HTTPLimits()
        http.maxOpenRequestsTotal = total
        return CaptureAnalyzer.Options(http: http)
    }

    /// One connection per file, from client port 40000 + `index`, `requests` unanswered requests each
    /// in its own acknowledged segment, starting at `start`.
    static func writeConnection(index: Int, requests: Int, start: Int64 = 1_700_000_000_000_000_000) throws -> String {
        let path = LimitTestSupport.temporaryPath("total-cap-\(index).pcap")
        let connection = try StreamedConnectionWriter(path: path, client: "10.1.0.1:\(40000 + index)", start: start)
        try connection.handshake()
        for request in 0..<requests {
            try connection.send(.up, OpenRequestCapTests.request(request))
            try connection.acknowledge(from: .down)
        }
        try connection.close()
        return path
    }

    /// The three files start together and their frames are 100 µs apart, so the merged capture takes
    /// one request of each connection in turn: 2 each are open when the 7th would come.
    @Test func concurrentConnectionsShareTheTotal() throws {
        let paths = try (0..<3).map { try Self.writeConnection(index: $0, requests: 4) }
        defer { for path in paths { try? FileManager.default.removeItem(atPath: path) } }
        let (writer, result) = CollectingWriter.analyze(paths, options: Self.options)
        Conservation.check(writer, result)
        #expect(writer.exchanges.count == Self.total)
        #expect(writer.connections.count == 3)
        for connection in writer.connections {
            #expect(connection.flagNames.contains("too_many_open_requests"), "\(connection.flagNames)")
            #expect(connection.int("unattributed.up.payload_bytes") == (2..<4).reduce(0) { $0 + OpenRequestCapTests.request($1).count })
        }
        #expect(writer.summary?.int("too_many_open_requests") == 3)

        // The flag of the command line.
        let run = try LimitTestSupport.analyzeJSONLines(paths[2], ["--max-open-requests-total", "\(Self.total)", paths[0], paths[1]])
        #expect(run.status == 0)
        #expect(run.summary.contains("\"too_many_open_requests\":3"), "\(run.summary)")
    }

    /// A connection with 4 open requests ends (idle long before the next one starts); the next
    /// connection opens 4 more under a total of 6: all parsed, nothing flagged.
    @Test func anEndedConnectionGivesItsRequestsBack() throws {
        let later: Int64 = 1_700_000_000_000_000_000 + 1_000 * 1_000_000_000
        let paths = [try Self.writeConnection(index: 0, requests: 4), try Self.writeConnection(index: 1, requests: 4, start: later)]
        defer { for path in paths { try? FileManager.default.removeItem(atPath: path) } }
        let (writer, result) = CollectingWriter.analyze(paths, options: Self.options)
        Conservation.check(writer, result)
        #expect(writer.exchanges.count == 8)
        #expect(writer.connections.allSatisfy { !$0.flagNames.contains("too_many_open_requests") })
        #expect(writer.summary?.int("too_many_open_requests") == 0)
    }
}

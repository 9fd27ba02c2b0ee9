import Foundation
import Testing
@testable import WireTally

/// The cap on open requests at its boundary (a cap of 4, `HTTPLimits.maxOpenRequests`): 3 and 4
/// unanswered requests are all exchanges; a 5th stops the client direction (connection flag
/// `too_many_open_requests`, its bytes unattributed) while the 4 open ones keep their place, so
/// responses still pair with them in order. Requests answered in between free their place.
@Suite struct OpenRequestCapBoundaryTests {
    static let cap = 4

    static var options: CaptureAnalyzer.Options {
        var http = HTTPLimits()
        http.maxOpenRequests = cap
        return CaptureAnalyzer.Options(http: http)
    }

    /// Analyses `path` with the cap (conservation checked); the exchanges and the only connection.
    static func analyze(_ path: String) throws -> (exchanges: [JSONValue], connection: JSONValue, summary: JSONValue?) {
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (writer, _) = LimitTestSupport.analyzeConserved(path, options: options)
        try #require(writer.connections.count == 1)
        return (writer.exchanges, writer.connections[0], writer.summary)
    }

    @Test(arguments: [cap - 1, cap, cap + 1])
    func unansweredRequests(count: Int) throws {
        let path = LimitTestSupport.temporaryPath("pipelined-\(count).pcap")
        try OpenRequestCapTests.writePipelined(to: path, requests: count)
        let (exchanges, connection, summary) = try Self.analyze(path)
        let capped = count > Self.cap
        #expect(exchanges.count == min(count, Self.cap))
        #expect(exchanges.map { $0.string("request.target") } == (0..<min(count, Self.cap)).map { "/r/\($0)" })
        #expect(exchanges.allSatisfy { $0["response"] == .null && $0.flagNames == ["no_response"] })
        #expect(connection.flagNames.contains("too_many_open_requests") == capped, "\(connection.flagNames)")
        #expect(connection.int("unattributed.up.payload_bytes") == (capped ? OpenRequestCapTests.request(Self.cap).count : 0))
        #expect(summary?.int("too_many_open_requests") == (capped ? 1 : 0))
    }

    /// One request over the cap, then the server answers all of them: the first 4 responses pair with
    /// the 4 parsed requests in order; the 5th has no request to pair with (as when the capture
    /// starts after a request).
    @Test func responsesStillPairInOrder() throws {
        let path = LimitTestSupport.temporaryPath("pipelined-answered.pcap")
        try OpenRequestCapTests.writePipelined(to: path, requests: Self.cap + 1, responses: Self.cap + 1)
        let (exchanges, connection, _) = try Self.analyze(path)
        try #require(exchanges.count == Self.cap + 1)
        for (index, exchange) in exchanges.enumerated() {
            #expect(exchange.string("request.target") == (index < Self.cap ? "/r/\(index)" : nil))
            #expect(exchange.int("response.bytes.body") == index + 1)
        }
        #expect(connection.flagNames.contains("too_many_open_requests"))
        #expect(connection.int("unattributed.up.payload_bytes") == OpenRequestCapTests.request(Self.cap).count)
    }

    /// 6 requests, never more than 4 waiting at once: all parsed and paired, no flag.
    @Test func answeredRequestsFreeTheirPlace() throws {
        let path = LimitTestSupport.temporaryPath("pipelined-draining.pcap")
        let connection = try StreamedConnectionWriter(path: path)
        try connection.handshake()
        for index in 0..<Self.cap { try connection.send(.up, OpenRequestCapTests.request(index)) }
        try connection.send(.down, OpenRequestCapTests.response(0))
        try connection.send(.up, OpenRequestCapTests.request(Self.cap))
        try connection.send(.down, OpenRequestCapTests.response(1))
        try connection.send(.up, OpenRequestCapTests.request(Self.cap + 1))
        for index in 2..<(Self.cap + 2) { try connection.send(.down, OpenRequestCapTests.response(index)) }
        try connection.close()
        let (exchanges, record, _) = try Self.analyze(path)
        #expect(exchanges.map { $0.string("request.target") } == (0..<(Self.cap + 2)).map { "/r/\($0)" })
        #expect(exchanges.map { $0.int("response.bytes.body") } == (0..<(Self.cap + 2)).map { $0 + 1 })
        #expect(!record.flagNames.contains("too_many_open_requests"))
        #expect(record.int("unattributed.up.payload_bytes") == 0)
    }
}

import Testing
import WireTally

/// `Capture.records`: the same records as `Capture.analyze`, as they complete.
@Suite struct StreamTests {
    @Test(arguments: ["nginx-curl-keepalive.pcap", "h2-curl.pcap", "dns-http.pcap"])
    func streamYieldsTheSameRecords(capture: String) async throws {
        let files = [Captures.path(capture)]
        let whole = try Capture.analyze(files: files)
        var records: [Record] = []
        for try await record in try Capture.records(files: files) { records.append(record) }
        guard case .summary = records.last else { Issue.record("the summary is not last"); return }
        let streamed = try await Analysis(collecting: try Capture.records(files: files))
        #expect(streamed.exchanges == whole.exchanges)
        #expect(streamed.connections == whole.connections)
        #expect(streamed.dns == whole.dns)
        #expect(streamed.summary == whole.summary)
        #expect(records.count == whole.exchanges.count + whole.connections.count + whole.dns.count + 1)
    }

    /// A connection's exchanges come before the connection.
    @Test func exchangesPrecedeTheirConnection() async throws {
        var ended = Set<Int>()
        for try await record in try Capture.records(files: [Captures.path("nginx-curl-keepalive.pcap")]) {
            switch record {
            case let .exchange(exchange): #expect(!ended.contains(exchange.connectionID))
            case let .connection(connection): ended.insert(connection.id)
            default: break
            }
        }
        #expect(!ended.isEmpty)
    }

    /// Leaving the loop early ends the run without hanging (the pipeline is told the consumer left).
    @Test func breakingOffEarlyReturns() async throws {
        var taken = 0
        for try await _ in try Capture.records(files: [Captures.path("nginx-wrk.pcap")]) {
            taken += 1
            if taken == 3 { break }
        }
        #expect(taken == 3)
    }

    @Test func missingFileEndsTheStreamWithAnError() async throws {
        await #expect(throws: WireTallyError.self) {
            for try await _ in try Capture.records(files: ["/nonexistent/capture.pcap"]) {}
        }
    }
}
